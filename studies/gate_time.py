"""How long the default gate of one function takes: ``python studies/gate_time.py [FUNCTION ...]``.

For each function (default: dp_knapsack and dp_knapsack_sliding_hirschberg) it runs, in a fresh
temporary directory holding an unchanged copy of the installed torch's knapsack.py,

    knapcheck report --candidate knapsack.py:FUNCTION --baseline torch:FUNCTION --out r

with every default (every family, the benchmark on), and prints the wall time, how much of it the
check and shrinking took (report.json's ``correctness.seconds``) and the benchmark
(``performance.pairs[].seconds``), the exit status, and the load average (1 minute) at the start
and the end: the gate's budget is a minute at a load of 3 or less on a 2-core machine.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import cast

FUNCTIONS = ("dp_knapsack", "dp_knapsack_sliding_hirschberg")


def torch_knapsack_file() -> Path:
    from torch._functorch._activation_checkpointing import knapsack

    return Path(cast(str, inspect.getsourcefile(knapsack)))  # torch ships the module's source


def main(functions: list[str]) -> None:
    knapcheck = shutil.which("knapcheck") or sys.exit("knapcheck is not on PATH: install it (pip install -e .)")
    source = torch_knapsack_file()
    print(f"{os.cpu_count()} cores")
    print("| function | wall | check and shrink | benchmark | exit | load at start | load at end |")
    print("|---|---|---|---|---|---|---|")
    for function in functions:
        with tempfile.TemporaryDirectory() as directory:
            shutil.copy(source, Path(directory) / "knapsack.py")
            load_start = os.getloadavg()[0]
            start = time.monotonic()
            done = subprocess.run([knapcheck, "report", "--candidate", f"knapsack.py:{function}",
                                   "--baseline", f"torch:{function}", "--out", "r"],
                                  cwd=directory, capture_output=True, text=True)
            wall = time.monotonic() - start
            load_end = os.getloadavg()[0]
            report = json.loads((Path(directory) / "r" / "report.json").read_text())
        checking = report["correctness"]["seconds"]
        benchmark = sum(pair["seconds"] for pair in report["performance"]["pairs"])
        print(f"| {function} | {wall:.0f} s | {checking:.0f} s | {benchmark:.0f} s | {done.returncode}"
              f" | {load_start:.2f} | {load_end:.2f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(FUNCTIONS))
