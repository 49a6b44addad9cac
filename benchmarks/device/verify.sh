#!/bin/bash
# GPU verification of every fixture pair, and the GPU tests, on the device tool's machine (its
# python3 has torch, not libcst). Run from the repository root with carry [".whl"]:
#   bash benchmarks/device/verify.sh
set -u
cd "$(dirname "$0")/../.."
W=/tmp/bench-work
mkdir -p $W
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl
rm -rf $W/src && mkdir -p $W/src && cp -r h2dlint $W/src/ && rm -rf $W/src/h2dlint/rules &&
  cp -r rules $W/src/h2dlint/rules
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site:$W/src
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
python3 -c "import torch; print('torch', torch.__version__)" | tee -a "$OUT/gpu.txt"
date -u | tee -a "$OUT/gpu.txt"
python3 -m h2dlint verify fixtures/ 2>&1 | tee "$OUT/verify.txt"
python3 -m h2dlint verify fixtures/ --output-format json > "$OUT/h200-verify.json" \
  2> "$OUT/verify-json.err"
python3 -m pytest -p no:cacheprovider -q -m gpu tests/test_verify_gpu.py 2>&1 | tail -5 |
  tee "$OUT/gpu-tests.txt"
