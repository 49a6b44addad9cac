#!/bin/bash
# An earlier revision against the working tree on one machine, interleaved round by round (the
# device's machine changes between calls, so only runs of one call compare): lightning's whole
# tree cold on all cores (wall and CPU of all processes) beside its libcst parse floor, and the
# pre-commit case of lightning and transformers (the ten files precommit.sh uses, the rest of
# the index cached by a whole-tree run of the same side; unchanged, and edited; and "kept":
# edited, with the other files' results that the whole-tree run cached kept, as a hook finds
# them). Prepare the earlier revision with `git archive REV -o .bench/base.tar`; run from the
# repository root with carry [".bench"]:  ROUNDS=3 bash benchmarks/device/pair.sh
set -u
cd "$(dirname "$0")/../.."
source benchmarks/device/common.sh
REPO=$PWD
W=/tmp/bench-work
bench_corpus && h2dlint_venv || exit 9
h2dlint_src && rm -rf $W/src-new && mv $W/src $W/src-new || exit 9
rm -rf /tmp/base-repo && mkdir -p /tmp/base-repo && tar -xf .bench/base.tar -C /tmp/base-repo &&
  (cd /tmp/base-repo && W=$W h2dlint_src) && rm -rf $W/src-base && mv $W/src $W/src-base || exit 9
P=$W/hv/bin/python
H="$P -m h2dlint check --select ALL --exit-zero --output-format json"
T="/usr/bin/time -f"
LFILES="lightning/fabric/accelerators/cpu.py lightning/fabric/plugins/environments/lsf.py
lightning/fabric/strategies/ddp.py lightning/fabric/utilities/data.py
lightning/pytorch/accelerators/cuda.py lightning/pytorch/callbacks/throughput_monitor.py
lightning/pytorch/demos/transformer.py lightning/pytorch/loops/training_epoch_loop.py
lightning/pytorch/strategies/parallel.py lightning/pytorch/trainer/setup.py"
TFILES="transformers/activations.py transformers/models/auto/auto_factory.py
transformers/models/deepseek_v3/modular_deepseek_v3.py transformers/models/flint/modular_flint.py
transformers/models/hgnet_v2/modular_hgnet_v2.py transformers/models/llama4/configuration_llama4.py
transformers/models/muse_spark/modeling_muse_spark.py transformers/models/plbart/modeling_plbart.py
transformers/models/sam3_tracker_video/processing_sam3_tracker_video.py
transformers/models/videomt/video_processing_videomt.py"
{
  cd $W/corpus/lightning-2.6.6 || exit 9
  find lightning -name '*.py' | sort > $W/lall.txt
  echo $LFILES | tr ' ' '\n' > $W/lpc.txt
  for round in $(seq ${ROUNDS:-3}); do
    $T "floor all-cores: %e s wall, %U s user, %S s sys" $P $REPO/benchmarks/bench_lint.py _floor --jobs $(nproc) $W/lall.txt > /dev/null
    $T "floor pre-commit: %e s wall, %U s user, %S s sys" $P $REPO/benchmarks/bench_lint.py _floor --jobs 10 $W/lpc.txt > /dev/null
    for side in base new; do
      PYTHONPATH=$W/src-$side $T "lightning cold $side: %e s wall, %U s user, %S s sys" $H --no-cache lightning > $W/l-$side.json
      PYTHONPATH=$W/src-$side $T "lightning cold -j1 $side: %e s wall, %U s user, %S s sys" $H --no-cache -j 1 lightning > /dev/null
    done
  done
  cmp $W/l-base.json $W/l-new.json && echo "lightning cold findings identical"
  for tree in lightning-2.6.6:lightning:LFILES transformers-5.24.0:transformers:TFILES; do
    IFS=: read dir top var <<< "$tree"
    cd $W/corpus/$dir || exit 9
    FILES=${!var}
    for side in base new; do  # each side's cache, written by a whole-tree run
      rm -rf $W/pc-$side && PYTHONPATH=$W/src-$side $H --cache-dir $W/pc-$side $top > /dev/null
      rm -rf $W/pck-$side && cp -r $W/pc-$side $W/pck-$side  # as the whole-tree run left it
      $P - $W/pc-$side/results-v*.json <<'PY' || exit 9
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p)); d["entries"] = {}; json.dump(d, open(p, "w"))
PY
    done
    for f in $FILES; do cp $f $f.orig; done
    for round in $(seq ${ROUNDS:-3}); do
      for case in unchanged edited kept; do  # kept: edited, the other files' results kept
        for side in base new; do
          rm -rf $W/pcr && cp -r $W/pc-$side $W/pcr
          [ $case = kept ] && rm -rf $W/pcr && cp -r $W/pck-$side $W/pcr
          for f in $FILES; do cp $f.orig $f; [ $case != unchanged ] && echo "# edited $round" >> $f; done
          PYTHONPATH=$W/src-$side $T "$top pre-commit $case $side: %e s wall, %U s user, %S s sys" \
            $H --cache-dir $W/pcr $FILES > $W/pc-$top-$case-$side.json
        done
        cmp $W/pc-$top-$case-base.json $W/pc-$top-$case-new.json || echo "$top $case findings DIFFER"
      done
    done
    for f in $FILES; do mv $f.orig $f; done
  done
} 2>&1 | tee $OUT/pair.txt
