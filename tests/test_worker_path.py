"""Workers import what the judge imports: from the root of a PyTorch checkout, whose ``torch/`` is not
built and cannot be imported, the gate still runs on the installed torch.

Workers are interpreters of their own (``python -c``), which would put the working directory first
on their path where the command's own process (the ``knapcheck`` console script) does not: a worker
would import the checkout's ``torch/`` and every target would fail to load.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

KNAPSACK = Path("torch/_functorch/_activation_checkpointing/knapsack.py")
CONSOLE_SCRIPT = shutil.which("knapcheck", path=str(Path(sys.executable).parent))


@pytest.mark.skipif(CONSOLE_SCRIPT is None, reason="the knapcheck console script is not installed beside this Python")
def test_the_gate_runs_from_the_root_of_an_unbuilt_pytorch_checkout(tmp_path):
    import torch._functorch._activation_checkpointing.knapsack as installed

    (tmp_path / KNAPSACK).parent.mkdir(parents=True)
    (tmp_path / "torch/__init__.py").write_text("raise ImportError('an unbuilt checkout: torch._C is missing')\n")
    for package in (KNAPSACK.parent.parent, KNAPSACK.parent):
        (tmp_path / package / "__init__.py").touch()
    shutil.copyfile(installed.__file__, tmp_path / KNAPSACK)
    done = subprocess.run([CONSOLE_SCRIPT, "report", "--candidate", f"{KNAPSACK}:dp_knapsack", "--baseline",
                           "torch:dp_knapsack", "--families", "tiny", "--per-family", "2", "--time", "30s",
                           "--bench-repeats", "0", "--out", "out"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads((tmp_path / "out/report.json").read_text())
    candidate, baseline = report["correctness"]["solvers"]
    assert candidate["role"] == "candidate" and candidate["verdicts"] == baseline["verdicts"]
    assert report["gate"]["passed"] is True
