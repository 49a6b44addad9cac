#!/bin/bash
# Where a many-core run spends its time, on the device tool's machine (16 cores): timed runs of
# h2dlint on one tree (with and without the project index; also the snapshot in .bench/base
# when there is one, laid out as installed), then one run with every worker profiled
# (benchmarks/profile_workers.py). Run from the repository root with carry [".bench"]:
#   TREE=transformers-5.24.0/transformers bash benchmarks/device/profile.sh
set -u
cd "$(dirname "$0")/../.."
source benchmarks/device/common.sh
W=/tmp/bench-work
bench_corpus || exit 9
h2dlint_venv || exit 9
h2dlint_src
TREE_PATH=$W/corpus/${TREE:-transformers-5.24.0/transformers}
[ -d .bench/base/h2dlint ] &&
  env -u PYTHONDONTWRITEBYTECODE $W/hv/bin/python -m compileall -q .bench/base > /dev/null
ARGS="--no-cache --select ALL -j ${JOBS:-16} --output-format json"
timed() {  # label, PYTHONPATH, extra environment
  local label=$1 path=$2; shift 2
  /usr/bin/time -f "$label: %e s wall, %U s user, %S s sys, %M KB max RSS" \
    env PYTHONPATH=$path "$@" $W/hv/bin/python -m h2dlint check $ARGS $TREE_PATH \
    > $OUT/$label.json 2>> $OUT/times.txt
  tail -1 $OUT/times.txt
}
for round in $(seq 1 ${ROUNDS:-2}); do
  timed "current-index-$round" $W/src
  timed "current-noindex-$round" $W/src H2DLINT_PROJECT_INDEX_OFF=1 H2DLINT_NO_PROJECT_INDEX=1
  [ -d .bench/base/h2dlint ] && timed "base-index-$round" $PWD/.bench/base
done
PYTHONPATH=$W/src $W/hv/bin/python benchmarks/profile_workers.py --out $W/prof -- $ARGS \
  $TREE_PATH > /dev/null 2>> $OUT/times.txt
tail -1 $OUT/times.txt
PYTHONPATH=$W/src $W/hv/bin/python benchmarks/profile_workers.py --out $W/prof --report \
  --top 80 > $OUT/profile.txt
tar -cf $OUT/profiles.tar -C $W prof
