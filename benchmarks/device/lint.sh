#!/bin/bash
# The lint benchmark on the device tool's machine (16 cores, no network), from .bench/ as
# benchmarks/device/prepare.sh fills it. Run from the repository root with carry [".bench"]:
#   TREES=transformers,mixed RUNS=3 NAME=final bash benchmarks/device/lint.sh --no-peers
# Results go to $OUT/$NAME.txt and $OUT/$NAME.json; extra arguments go to bench_lint.py.
set -u
cd "$(dirname "$0")/../.."
source benchmarks/device/common.sh
W=/tmp/bench-work
mkdir -p $W/pv
bench_corpus || exit 9
h2dlint_venv || exit 9
for spec in torchfix==0.7.0 fixit==2.2.1 ruff==0.17.6; do
  name=${spec%%==*}
  [ -f $W/pv/$name/.h2dlint-bench-installed ] && continue
  python3 -m venv $W/pv/$name &&
    $W/pv/$name/bin/pip install -q --no-index --find-links .bench/peers $spec &&
    printf %s "$spec" > $W/pv/$name/.h2dlint-bench-installed
done
# h2dlint from the working tree, laid out as installed (rules/ becomes h2dlint/rules).
h2dlint_src
export PYTHONUNBUFFERED=1 H2DLINT_CORPUS_DIR=$W/corpus PYTHONPATH=$W/src
$W/hv/bin/python benchmarks/bench_lint.py --corpus-dir $W/corpus --bench-dir $W/bench \
  --peer-venvs $W/pv --trees "${TREES:-transformers,lightning,mixed}" --runs "${RUNS:-3}" \
  --peer-runs 1 --peer-timeout 300 --json "$OUT/${NAME:-bench}.json" "$@" 2>&1 |
  tee "$OUT/${NAME:-bench}.txt"
