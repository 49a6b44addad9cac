#!/bin/bash
# The whole-package recall score (scripts/score_recall.py) on the device tool's machine, whose
# 16 cores check the labelled packages side by side. The packages come from
# .bench/recall-corpus*.tar.xz (their .py files, as scripts/fetch_corpus.py unpacked them).
# Run from the repository root with carry [".bench"]:
#   bash benchmarks/device/recall.sh          # results in $OUT/recall.json and recall.txt
set -u
cd "$(dirname "$0")/../.."
source benchmarks/device/common.sh
W=/tmp/recall-work
mkdir -p $W/corpus
for archive in .bench/recall-corpus*.tar.xz; do xz -dc $archive | tar -xf - -k -C $W/corpus 2> /dev/null; done
for dir in $W/corpus/*/; do  # what fetch_corpus.py marks a package unpacked whole with
  [ -f $dir.complete ] || echo device > $dir.complete
done
h2dlint_venv || exit 9
h2dlint_src
export H2DLINT_CORPUS_DIR=$W/corpus PYTHONPATH=$W/src
$W/hv/bin/python scripts/score_recall.py -j ${JOBS:-8} --save $OUT/recall.json "$@" | tee $OUT/recall.txt
