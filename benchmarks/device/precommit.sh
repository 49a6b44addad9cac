#!/bin/bash
# Where a pre-commit run (10 files of a large tree, the rest of the index cached) spends its
# time, on the device tool's machine: timed runs (all cores, -j 1, without the index), the
# libcst floor of the same files, an import-time listing, and profiles (-j 1 under cProfile;
# all cores with every worker profiled). Run from the repository root with carry [".bench"]:
#   bash benchmarks/device/precommit.sh
# Results under $OUT/precommit/.
set -u
cd "$(dirname "$0")/../.."
source benchmarks/device/common.sh
REPO=$PWD
W=/tmp/bench-work
mkdir -p $OUT/precommit
bench_corpus || exit 9
h2dlint_venv || exit 9
h2dlint_src
export PYTHONPATH=$W/src
P=$W/hv/bin/python
R=$OUT/precommit
env | grep -i '^python' > $R/env.txt
H="$P -m h2dlint check --select ALL --exit-zero --output-format json"
one() {  # name, top-level folder, files...
  local name=$1 top=$2; shift 2
  local cache=$W/pc-$name
  rm -rf $cache && $H --cache-dir $cache $top > /dev/null
  $P - $cache/results-v*.json <<'PY'
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p)); d["entries"] = {}; json.dump(d, open(p, "w"))
PY
  fresh() { rm -rf $W/pcr && cp -r $cache $W/pcr; }
  for r in 1 2 3; do
    fresh; /usr/bin/time -f "$name all-cores: %e s wall, %U s user, %S s sys" $H --cache-dir $W/pcr "$@" > /dev/null 2>> $R/times.txt
    fresh; /usr/bin/time -f "$name -j1: %e s wall, %U s user, %S s sys" $H -j 1 --cache-dir $W/pcr "$@" > /dev/null 2>> $R/times.txt
    fresh; H2DLINT_NO_PROJECT_INDEX=1 /usr/bin/time -f "$name no-index all-cores: %e s wall, %U s user" $H --cache-dir $W/pcr "$@" > /dev/null 2>> $R/times.txt
    printf '%s\n' "$@" > $W/list.txt
    /usr/bin/time -f "$name floor 1 process: %e s wall, %U s user" $P $REPO/benchmarks/bench_lint.py _floor --jobs 1 $W/list.txt > /dev/null 2>> $R/times.txt
    /usr/bin/time -f "$name floor 16: %e s wall, %U s user" $P $REPO/benchmarks/bench_lint.py _floor --jobs 16 $W/list.txt > /dev/null 2>> $R/times.txt
    /usr/bin/time -f "$name version: %e s wall" $P -m h2dlint --version > /dev/null 2>> $R/times.txt
  done
  fresh; $P -X importtime -m h2dlint check --select ALL --exit-zero -j 1 --cache-dir $W/pcr --output-format json "$@" > /dev/null 2> $R/$name-importtime.txt
  fresh; $P -m cProfile -o $R/$name-j1.prof -m h2dlint check --select ALL --exit-zero -j 1 --cache-dir $W/pcr --output-format json "$@" > /dev/null
  fresh; $P $REPO/benchmarks/profile_workers.py --out $R/$name-workers -- --select ALL --exit-zero --cache-dir $W/pcr --output-format json "$@" > /dev/null
  $P $REPO/benchmarks/profile_workers.py --out $R/$name-workers --report --top 60 > $R/$name-workers.txt
}
cd $W/corpus/lightning-2.6.6 && one lightning lightning lightning/fabric/accelerators/cpu.py lightning/fabric/plugins/environments/lsf.py lightning/fabric/strategies/ddp.py lightning/fabric/utilities/data.py lightning/pytorch/accelerators/cuda.py lightning/pytorch/callbacks/throughput_monitor.py lightning/pytorch/demos/transformer.py lightning/pytorch/loops/training_epoch_loop.py lightning/pytorch/strategies/parallel.py lightning/pytorch/trainer/setup.py
cd $W/corpus/transformers-5.24.0 && one transformers transformers transformers/activations.py transformers/models/auto/auto_factory.py transformers/models/deepseek_v3/modular_deepseek_v3.py transformers/models/flint/modular_flint.py transformers/models/hgnet_v2/modular_hgnet_v2.py transformers/models/llama4/configuration_llama4.py transformers/models/muse_spark/modeling_muse_spark.py transformers/models/plbart/modeling_plbart.py transformers/models/sam3_tracker_video/processing_sam3_tracker_video.py transformers/models/videomt/video_processing_videomt.py
cat $R/times.txt
