#!/bin/bash
# Pre-commit timings on transformers (the ten files precommit.sh uses, the rest of the index and
# the results cached by a run over the whole tree) for an earlier revision and for the working
# tree, interleaved round by round on one machine (the device's machine changes between calls,
# so only runs of one call compare). Two cases each: the files unchanged since the cache was
# written, and the same files edited (a comment appended), which makes the run compute and save
# their summaries again. Prepare the earlier revision with `git archive REV -o .bench/base.tar`;
# run from the repository root with carry [".bench"]:  bash benchmarks/device/precommit_pair.sh
set -u
cd "$(dirname "$0")/../.."
source benchmarks/device/common.sh
W=/tmp/bench-work
bench_corpus && h2dlint_venv || exit 9
h2dlint_src && rm -rf $W/src-new && mv $W/src $W/src-new || exit 9
rm -rf /tmp/base-repo && mkdir -p /tmp/base-repo && tar -xf .bench/base.tar -C /tmp/base-repo &&
  (cd /tmp/base-repo && W=$W h2dlint_src) && rm -rf $W/src-base && mv $W/src $W/src-base || exit 9
T=$W/pc-tree && rm -rf $T && cp -r $W/corpus/transformers-5.24.0 $T && cd $T || exit 9
FILES="transformers/activations.py transformers/models/auto/auto_factory.py
transformers/models/deepseek_v3/modular_deepseek_v3.py transformers/models/flint/modular_flint.py
transformers/models/hgnet_v2/modular_hgnet_v2.py transformers/models/llama4/configuration_llama4.py
transformers/models/muse_spark/modeling_muse_spark.py transformers/models/plbart/modeling_plbart.py
transformers/models/sam3_tracker_video/processing_sam3_tracker_video.py
transformers/models/videomt/video_processing_videomt.py"
H="$W/hv/bin/python -m h2dlint check --select ALL --exit-zero --output-format json"
for side in base new; do  # each side's cache, written by a whole-tree run
  rm -rf $W/pc-$side && PYTHONPATH=$W/src-$side $H --cache-dir $W/pc-$side transformers > /dev/null
  # The findings are forgotten, the summaries kept: the ten files are checked, the rest is not.
  $W/hv/bin/python - $W/pc-$side/results-v*.json <<'PY' || exit 9
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p)); d["entries"] = {}; json.dump(d, open(p, "w"))
PY
done
for f in $FILES; do cp $f $f.orig; done
for round in 1 2 3; do
  for case in unchanged edited; do
    for side in base new; do
      rm -rf $W/pcr && cp -r $W/pc-$side $W/pcr
      for f in $FILES; do cp $f.orig $f; [ $case = edited ] && echo "# edited $round" >> $f; done
      PYTHONPATH=$W/src-$side /usr/bin/time -f "$case $side: %e s wall, %U s user, %S s sys" \
        $H --cache-dir $W/pcr $FILES > /dev/null
    done
  done
done 2>&1 | tee $OUT/precommit_pair.txt
