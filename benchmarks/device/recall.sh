#!/bin/bash
# The whole-package recall score (scripts/score_recall.py) on the device tool's machine, whose
# 16 cores check the labelled packages side by side. The packages come from
# .bench/recall-corpus*.tar.xz (their .py files, as scripts/fetch_corpus.py unpacked them).
# Run from the repository root with carry [".bench"]:
#   bash benchmarks/device/recall.sh          # results in $OUT/recall.json and recall.txt
set -u
cd "$(dirname "$0")/../.."
W=/tmp/recall-work
mkdir -p $W/corpus
for archive in .bench/recall-corpus*.tar.xz; do xz -dc $archive | tar -xf - -k -C $W/corpus 2> /dev/null; done
for dir in $W/corpus/*/; do  # what fetch_corpus.py marks a package unpacked whole with
  [ -f $dir.complete ] || echo device > $dir.complete
done
if [ ! -x $W/hv/bin/python ]; then
  python3 -m venv $W/hv &&
    $W/hv/bin/pip install -q --no-index --find-links .bench/peers libcst==1.8.6 click==8.1.8 || exit 9
fi
rm -rf $W/src && mkdir -p $W/src && cp -r h2dlint $W/src/ && rm -rf $W/src/h2dlint/rules &&
  cp -r rules $W/src/h2dlint/rules
export H2DLINT_CORPUS_DIR=$W/corpus PYTHONPATH=$W/src
$W/hv/bin/python scripts/score_recall.py -j ${JOBS:-8} --save $OUT/recall.json "$@" | tee $OUT/recall.txt
