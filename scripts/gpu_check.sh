#!/usr/bin/env bash
# The cuda solver's GPU checks, a few minutes on one GPU: every kernel and solver test on the
# device (the gpu-marked ones included; a skipped test fails the check), then the GPU benchmark.
# Needs a CUDA build of torch, and triton, with the project installed (pip install -e ".[test]").
# Everything printed also goes to ${OUT:-/tmp}/gpu_check.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
unset TRITON_INTERPRET
exec > >(tee "${OUT:-/tmp}/gpu_check.txt") 2>&1

"$PYTHON" - <<'PY'
import sys, torch, triton
if not torch.cuda.is_available():
    sys.exit("gpu_check: torch sees no CUDA device")
print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}")
PY

echo "== tests on the GPU"
tests=$(mktemp)
"$PYTHON" -m pytest -q -rs -p no:cacheprovider tests/test_triton_rows.py tests/test_cuda_solver.py | tee "$tests"
if grep -q "skipped" "$tests"; then
    echo "gpu_check: GPU tests were skipped"
    exit 1
fi

echo "== benchmark"
"$PYTHON" -m knapcheck bench --device cuda --baselines --repeats 2 --time-limit 120
