#!/bin/bash
# Every package of .bench/corpus.tar.xz (the pinned corpus, benchmarks/device/prepare.sh)
# linted whole with every rule on all cores of the device tool's machine: per package the
# files, findings, wall seconds and the internal errors (E900: a rule raised and was skipped
# for a file), each of which is printed. Exits 1 if any rule raised. Run from the repository
# root with carry [".bench"]:  bash benchmarks/device/sweep.sh   (results in $OUT/sweep.txt)
set -u
cd "$(dirname "$0")/../.."
source benchmarks/device/common.sh
W=/tmp/bench-work
bench_corpus || exit 9
h2dlint_venv || exit 9
h2dlint_src
export PYTHONPATH=$W/src
raised=0
for tree in $W/corpus/*/; do
  name=$(basename "$tree")
  start=$(date +%s%N)
  $W/hv/bin/python -m h2dlint check --no-cache --exit-zero --select ALL --output-format json \
    "$tree" > $W/sweep.json 2> $W/sweep.err
  rc=$?
  took=$(( ($(date +%s%N) - start) / 1000000 ))
  summary=$($W/hv/bin/python - "$W/sweep.json" <<'PY'
import json, sys
records = json.load(open(sys.argv[1])) if open(sys.argv[1]).read(1) else []
errors = [r for r in records if r["code"] == "E900"]
files = len({r["filename"] for r in records})
print(f"{len(records)} findings in {files} files, {len(errors)} internal errors")
for r in errors:
    print(f"    {r['filename']}: {r['message']}")
PY
)
  printf '%-32s rc=%s %7d ms  %s\n' "$name" "$rc" "$took" "$summary" | tee -a "$OUT/sweep.txt"
  [ "$rc" = 2 ] && raised=1 && tail -3 $W/sweep.err | tee -a "$OUT/sweep.txt"
done
exit $raised
