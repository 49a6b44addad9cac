#!/bin/bash
# Where the transformers pre-commit run's time goes on the device's machine (session 46): the
# working tree's cache primed by a whole-tree run, then the ten files of pair.sh edited with the
# other files' results kept (as a hook finds the cache), timed (all cores, -j 1) and measured
# phase by phase in every process (benchmarks/cold_phases.py); the cache-hit run (nothing
# edited) and `--version` timed too. Run from the repository root with carry [".bench"]:
#   bash benchmarks/device/precommit_phases.sh      (results under $OUT/phases/)
set -u
cd "$(dirname "$0")/../.."
source benchmarks/device/common.sh
REPO=$PWD
W=/tmp/bench-work
R=$OUT/phases
mkdir -p $R
bench_corpus && h2dlint_venv && h2dlint_src || exit 9
export PYTHONPATH=$W/src
P=$W/hv/bin/python
H="$P -m h2dlint check --select ALL --exit-zero --output-format json"
T="/usr/bin/time -f"
FILES="transformers/activations.py transformers/models/auto/auto_factory.py
transformers/models/deepseek_v3/modular_deepseek_v3.py transformers/models/flint/modular_flint.py
transformers/models/hgnet_v2/modular_hgnet_v2.py transformers/models/llama4/configuration_llama4.py
transformers/models/muse_spark/modeling_muse_spark.py transformers/models/plbart/modeling_plbart.py
transformers/models/sam3_tracker_video/processing_sam3_tracker_video.py
transformers/models/videomt/video_processing_videomt.py"
cd $W/corpus/transformers-5.24.0 || exit 9
{
  rm -rf $W/pc && $T "prime (whole tree, all cores): %e s wall, %U s user" $H --cache-dir $W/pc transformers > /dev/null
  for f in $FILES; do cp $f $f.orig; done
  fresh() { rm -rf $W/pcr && cp -r $W/pc $W/pcr; }
  edit() { for f in $FILES; do cp $f.orig $f; echo "# edited" >> $f; done; }
  for round in 1 2 3 4 5; do
    fresh; edit; $T "kept all-cores: %e s wall, %U s user, %S s sys" $H --cache-dir $W/pcr $FILES > $W/k.json
    fresh; edit; $T "kept -j1: %e s wall, %U s user, %S s sys" $H -j 1 --cache-dir $W/pcr $FILES > /dev/null
    for f in $FILES; do cp $f.orig $f; done
    $T "hit (nothing edited): %e s wall, %U s user, %S s sys" $H --cache-dir $W/pc $FILES > /dev/null
    $T "version: %e s wall" $P -m h2dlint --version > /dev/null
    $T "python -c pass: %e s wall" $P -c pass
    $T "python -c 'import libcst': %e s wall" $P -c 'import libcst'
  done
  fresh; edit; $P $REPO/benchmarks/cold_phases.py --out $R/kept-all -- --select ALL --exit-zero --output-format json --cache-dir $W/pcr $FILES > /dev/null
  $P $REPO/benchmarks/cold_phases.py --out $R/kept-all --report > $R/kept-all.txt
  for f in $R/kept-all/*.json; do $P -c "import json,sys; d=json.load(open('$f')); s=d['seconds']; print('$f'.split('/')[-1], 'main' if d['main'] else 'worker', round(s.get('all of the process (process_time)',0),3))"; done > $R/kept-all-processes.txt
  fresh; edit; $P $REPO/benchmarks/cold_phases.py --out $R/kept-j1 -- -j 1 --select ALL --exit-zero --output-format json --cache-dir $W/pcr $FILES > /dev/null
  $P $REPO/benchmarks/cold_phases.py --out $R/kept-j1 --report > $R/kept-j1.txt
  fresh; edit; $P -X importtime -m h2dlint check --select ALL --exit-zero --output-format json --cache-dir $W/pcr $FILES 2> $R/importtime.txt > /dev/null
  for f in $FILES; do mv $f.orig $f; done
  ls -la $W/pc > $R/cache-listing.txt
} 2>&1 | tee $R/times.txt
