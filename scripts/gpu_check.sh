#!/usr/bin/env bash
# The cuda solver's GPU checks on one GPU: every kernel and solver test on the device (the gpu-marked
# ones included; a skipped test fails the check), then the GPU benchmark, each stage under a timeout
# so that a partial run still reports. Needs a CUDA build of torch, triton, pytest-xdist and the
# project importable (pip install -e ".[test]", or PYTHONPATH=. with its dependencies).
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
status=0
timeout 200 "$PYTHON" -m pytest -q -rs -n 4 tests/test_triton_rows.py tests/test_cuda_solver.py | tee "$tests" || status=1
timeout 150 "$PYTHON" -m pytest -q -rs -n 8 tests/test_solvers.py -k cuda | tee -a "$tests" || status=1  # the registry entry against the oracle
if grep -q "skipped" "$tests"; then
    echo "gpu_check: GPU tests were skipped"
    status=1
fi

echo "== benchmark"
# Two partitioner-scale rows and the large budgets, 2 fresh processes each, against our CPU solver on
# the same host; the kernel and backend tables follow. Add the other partitioner rows, --repeats 3 and
# the upstream baselines when time allows.
timeout 220 "$PYTHON" -m knapcheck bench --device cuda --baselines sliding_hirschberg --repeats 2 --time-limit 60 \
    --rows "n=500 budget=0.5" "n=2000 budget=0.9" "n=1000 C=1e6" "n=2000 C=1e7" "n=2000 C=1e8" || status=1
exit $status
