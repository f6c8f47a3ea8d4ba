"""The upstream patch, gated: ``python studies/repaired_torch.py``.

In a fresh temporary directory it runs, as a PyTorch developer would,

    knapcheck repair torch --out knapsack.py
    knapcheck report --candidate knapsack.py --baseline torch --bench-repeats 0 --out r
    knapcheck export-tests --out test_knapsack_knapcheck.py

and then the exported file with torch's four solvers swapped for the repaired file's functions.
It prints the gate's exit status and report.md's first screen, the catalogued causes the report counts as
fixed and those it does not, any regression, and the exported file's outcomes by kind. The repaired
file passes when the gate exits 0 with every cause fixed and the exported file fails nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from knapcheck.fuzz.judging.known.defects import CAUSES

SWAP = """\
import importlib.util, runpy, sys
from torch._functorch._activation_checkpointing import knapsack
spec = importlib.util.spec_from_file_location("repaired_knapsack", sys.argv[1])
repaired = importlib.util.module_from_spec(spec)
spec.loader.exec_module(repaired)
for name in ("greedy_knapsack", "ilp_knapsack", "dp_knapsack", "dp_knapsack_sliding_hirschberg"):
    setattr(knapsack, name, getattr(repaired, name))
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
"""Runs a test file with torch's four solvers swapped for the repaired file's functions."""


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    start = time.monotonic()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
    print(f"$ {' '.join(command[1:]) if command[0] == sys.executable else ' '.join(command)}"
          f"  (exit {done.returncode}, {time.monotonic() - start:.0f} s)", flush=True)
    return done


def main() -> None:
    knapcheck = shutil.which("knapcheck") or sys.exit("knapcheck is not on PATH: install it (pip install -e .)")
    with tempfile.TemporaryDirectory() as name:
        work = Path(name)
        repair = run([knapcheck, "repair", "torch", "--out", "knapsack.py"], work)
        print(repair.stdout)
        if repair.returncode:
            sys.exit(repair.stderr.strip())
        gate = run([knapcheck, "report", "--candidate", "knapsack.py", "--baseline", "torch",
                    "--bench-repeats", "0", "--out", "r"], work)
        report = json.loads((work / "r" / "report.json").read_text())
        print((work / "r" / "report.md").read_text().split("\n## ")[0], "\n")
        fixed = {cause for fix in report["gate"]["fixes"] if not fix["by_chance"] for cause in fix["causes"]}
        print(f"gate exit {gate.returncode}; fixed {len(fixed & set(CAUSES))} of {len(CAUSES)} catalogued causes")
        print(f"  not counted as fixed: {', '.join(sorted(set(CAUSES) - fixed)) or 'none'}")
        print(f"  failing: {report['gate']['failing'] or 'none'}")
        run([knapcheck, "export-tests", "--out", "test_knapsack_knapcheck.py"], work)
        (work / "swap.py").write_text(SWAP)
        exported = run([sys.executable, "swap.py", "knapsack.py", "test_knapsack_knapcheck.py", "-v"], work,
                       env={k: v for k, v in os.environ.items() if k != "CI"})
        outcomes = Counter(line.rsplit(" ... ", 1)[1] for line in exported.stderr.splitlines() if " ... " in line)
        print(f"exported file: {dict(outcomes)}; last line: {exported.stderr.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
