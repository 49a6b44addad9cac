#!/bin/bash
# `h2dlint trace` on the device tool's machine (its python3 has torch with CUDA, not libcst). Run
# from the repository root with carry [".whl"] (the libcst/click/pyyaml wheels, as verify.sh):
#   bash benchmarks/device/trace.sh
# Under $OUT/trace/ it writes:
#   gpu.txt                      the GPU, driver, torch, Python
#   fixtures.txt                 one line per fixture side: events, host ms, findings vs events
#   fixtures/CODE-SIDE.{json,txt}  each side's trace file (with the join) and text report
#   fixtures/fixtures-summary.json
#   example.txt                  the overhead runs and the example's full text report
#   example/example.{json,sarif,txt}, example/overhead.json
#   gpu-tests.txt                tests/test_trace_gpu.py
# Each step has its own time limit and a failing step does not stop the next (about 4 minutes).
set -u
cd "$(dirname "$0")/../.."
W=/tmp/bench-work
T="$OUT/trace"
mkdir -p "$W" "$T"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl
rm -rf $W/src && mkdir -p $W/src && cp -r h2dlint $W/src/ && rm -rf $W/src/h2dlint/rules &&
  cp -r rules $W/src/h2dlint/rules
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site:$W/src
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import sys, torch; print('torch', torch.__version__, 'python', sys.version.split()[0])"
  python3 -c "import libcst; print('libcst', libcst.__version__ if hasattr(libcst, '__version__') else 'ok')"
  date -u
} 2>&1 | tee "$T/gpu.txt"

echo "== 1/3 every fixture's before.py and after.py, traced" | tee "$T/fixtures.txt"
timeout 300 python3 benchmarks/device/trace_fixtures.py --out "$T/fixtures" 2>&1 |
  tee -a "$T/fixtures.txt"

echo "== 2/3 the example: untraced vs traced, and its report" | tee "$T/example.txt"
timeout 240 python3 benchmarks/device/trace_overhead.py --out "$T/example" 2>&1 |
  tee -a "$T/example.txt"

echo "== 3/3 tests/test_trace_gpu.py" | tee "$T/gpu-tests.txt"
timeout 180 python3 -m pytest -p no:cacheprovider -q -m gpu tests/test_trace_gpu.py 2>&1 |
  tail -25 | tee -a "$T/gpu-tests.txt"
ls -R "$T" | head -80
