#!/bin/bash
# precommit.sh for an earlier revision and for the working tree, one after the other in one
# call (the device's machine changes between calls, so only runs of one call compare), then
# lint.sh's cold and pre-commit rounds on lightning for the working tree. Prepare the
# earlier revision here with `git archive REV -o .bench/base.tar`; run from the repository root
# with carry [".bench/corpus.tar.xz", ".bench/peers", ".bench/base.tar"]:
#   bash benchmarks/device/compare_precommit.sh
# Results under $OUT/base/precommit, $OUT/new/precommit and $OUT/cold-lightning.*.
set -u
R=$PWD
rm -rf /tmp/base-repo && mkdir -p /tmp/base-repo && tar -xf .bench/base.tar -C /tmp/base-repo &&
  ln -sfn $R/.bench /tmp/base-repo/.bench || exit 9
(cd /tmp/base-repo && OUT=$OUT/base bash benchmarks/device/precommit.sh > /dev/null 2>&1)
echo "base rc $?"
OUT=$OUT/new bash benchmarks/device/precommit.sh > /dev/null 2>&1
echo "new rc $?"
for side in base new; do
  grep -h "all-cores\|floor 16\|no-index" $OUT/$side/precommit/times.txt | sed "s/^/$side /"
done
TREES=lightning RUNS=3 NAME=cold-lightning timeout 280 bash benchmarks/device/lint.sh --no-peers \
  > /dev/null 2>&1
echo "lint rc $?"
tail -40 $OUT/cold-lightning.txt
