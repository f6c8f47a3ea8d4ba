"""Does the performance gate measure what it claims? ``python studies/perf_gate.py``

It copies the installed torch's knapsack.py three times into a temporary directory, as a pull
request would: unchanged; with ``dp_knapsack`` made five times slower (its whole DP run five
times); and with ``dp_knapsack_sliding_hirschberg`` keeping every DP row it computes (a clone per
item, the memory the sliding window exists to save). Each copy's function goes through ``knapcheck
report`` against the installed torch's with ``--max-slowdown 2 --max-memory 2`` (a small correctness
part: ``--families tiny --per-family 5``), and the study prints each report's performance table, its
performance verdict and the command's exit status. Expected: the unchanged copy at 1.00x within
every interval and passing; the slower one about 5x and failing on time; the hungry one failing on
memory. The load average at each run is in the tables.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch._functorch._activation_checkpointing.knapsack as upstream

SLOWER_TAIL = '''

def dp_knapsack(memory, runtime, max_memory):
    """The unchanged DP, run five times over."""
    for _ in range(4):
        _dp_knapsack_once(memory, runtime, max_memory)
    return _dp_knapsack_once(memory, runtime, max_memory)
'''
ROW_UPDATE = "out=dp_view[memory_item:]\n            )\n"
"""The end of both DP loops of the sliding solver (left and right half): where a row is complete."""
STATE = "    saved_items: list[int] = []\n    recomputable_items: list[int] = []\n"


def _edited(source: str, old: str, new: str, count: int) -> str:
    if source.count(old) != count:
        raise SystemExit(f"perf_gate: torch's knapsack.py has changed: expected {count} of {old!r}")
    return source.replace(old, new)


def copies(directory: Path) -> dict[str, Path]:
    source = Path(upstream.__file__).read_text()
    slower = _edited(source, "def dp_knapsack(\n", "def _dp_knapsack_once(\n", 1) + SLOWER_TAIL
    hungry = _edited(source, ROW_UPDATE, ROW_UPDATE + "            kept_rows.append(dp_view.clone())\n", 2)
    hungry = _edited(hungry, STATE, STATE + "    kept_rows = []\n", 1)
    paths = {"unchanged": source, "slower": slower, "hungry": hungry}
    for name, text in paths.items():
        (directory / f"{name}.py").write_text(text)
    return {name: directory / f"{name}.py" for name in paths}


CASES = (
    ("unchanged", "dp_knapsack"),
    ("unchanged", "dp_knapsack_sliding_hirschberg"),
    ("slower", "dp_knapsack"),
    ("hungry", "dp_knapsack_sliding_hirschberg"),
)


def run_case(directory: Path, copy: str, function: str) -> str:
    out = directory / f"report-{copy}-{function}"
    command = ["knapcheck", "report", "--candidate", f"{copy}.py:{function}", "--baseline", f"torch:{function}",
               "--families", "tiny", "--per-family", "5", "--max-slowdown", "2", "--max-memory", "2", "--out", out.name]
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", *command], cwd=directory, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if not (out / "report.json").is_file():
        raise SystemExit(f"perf_gate: {' '.join(command)} wrote no report (exit {done.returncode}):\n{done.stderr}")
    data = json.loads((out / "report.json").read_text())
    markdown = (out / "report.md").read_text()
    section = markdown[markdown.index("## Performance") + len("## Performance"):markdown.index("## Environment")]
    table = section.strip().splitlines()[2:]
    gate = data["performance"]["gate"]
    verdict = "passed" if gate["passed"] else "FAILED"
    return "\n".join([
        f"### {copy}.py:{function}", "", "```", " ".join(command), "```", "",
        *table, "",
        f"Performance gate {verdict}; the report's exit status {done.returncode} ({seconds:.0f} s for the whole report).",
        "",
    ])


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="knapcheck-perf-gate-") as name:
        directory = Path(name)
        copies(directory)
        for copy, function in CASES:
            print(run_case(directory, copy, function), flush=True)


if __name__ == "__main__":
    main()
