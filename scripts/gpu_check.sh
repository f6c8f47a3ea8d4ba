#!/usr/bin/env bash
# The cuda solver's GPU checks, about 5 minutes on one GPU (an H200): every kernel and solver test on the
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
"$PYTHON" -m pytest -q -rs tests/test_triton_rows.py tests/test_cuda_solver.py | tee "$tests"
"$PYTHON" -m pytest -q -rs tests/test_solvers.py -k cuda | tee -a "$tests"  # the registry entry against the oracle
if grep -q "skipped" "$tests"; then
    echo "gpu_check: GPU tests were skipped"
    exit 1
fi

echo "== benchmark"
# Two partitioner-scale rows and the large budgets, 2 fresh processes each; the kernel and backend
# tables follow. Add the other partitioner rows, --repeats 3 and the upstream baselines when time allows.
"$PYTHON" -m knapcheck bench --device cuda --baselines --repeats 2 --time-limit 120 \
    --rows "n=500 budget=0.5" "n=2000 budget=0.9" "n=1000 C=1e6" "n=2000 C=1e7" "n=2000 C=1e8"
