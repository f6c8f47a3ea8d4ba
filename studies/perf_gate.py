"""Does the performance gate measure what it claims? ``python studies/perf_gate.py [COPY ...]``

It copies the installed torch's knapsack.py into a temporary directory, as a pull request would:
unchanged; with ``dp_knapsack`` made five times slower (its whole DP run five times); with
``dp_knapsack_sliding_hirschberg`` keeping every DP row it computes (a clone per item, the memory
the sliding window exists to save); and four copies whose ``dp_knapsack`` hides what it costs where
a gate that shares one process, or reads one process's peak, would not see it: the five-times-slower
one and one holding 300 MiB more per call, each also rebinding the installed torch's
``dp_knapsack`` to itself when imported (so that a baseline called in the same process would be as
slow, or as hungry); one keeping a 400 MiB workspace from its first call on; and one computing in a
forked child that holds 300 MiB. The hungry and forked ones do so only on the benchmark's sizes (100
items or more), so that the correctness part of each report stays quick. Two more add a step
quadratic in n while building the answer, one in ``greedy_knapsack`` (its recomputable items
rebuilt by scanning the saved list for every item) and one in ``dp_knapsack`` (the memory in use
after each saved item, each summed from the first): both cost little at a few hundred items and
fail on the gate's largest size, 2 000 items. Each copy's function goes through ``knapcheck report`` against the
installed torch's with ``--max-slowdown 1.5 --max-memory 2`` (a small correctness part: ``--families
tiny --per-family 5``), and the study prints each report's performance table, its performance
verdict and the command's exit status. Expected: the unchanged copy at 1.00x within every interval
and passing; the slower ones about 5x and failing on time; the hungry ones failing on memory; the
quadratic ones failing on time at n=2000. The
load average at each run is in the tables.
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
HUNGRY_TAIL = '''

def dp_knapsack(memory, runtime, max_memory):
    """The unchanged DP, holding 300 MiB more while it runs on the benchmark's sizes (100 items or more)."""
    held = bytearray(b"\\x01") * (300 * 2**20 if len(memory) >= 100 else 0)
    answer = _dp_knapsack_once(memory, runtime, max_memory)
    del held
    return answer
'''
REBINDING_TAIL = '''

import torch._functorch._activation_checkpointing.knapsack as _installed

_installed.dp_knapsack = dp_knapsack
'''
WORKSPACE_TAIL = '''

_WORKSPACE = []


def dp_knapsack(memory, runtime, max_memory):
    """The unchanged DP, with a 400 MiB workspace allocated on the first call and kept."""
    if not _WORKSPACE:
        _WORKSPACE.append(bytearray(b"\\x01") * (400 * 2**20))
    return _dp_knapsack_once(memory, runtime, max_memory)
'''
FORKED_TAIL = '''

import json as _json
import os as _os


def dp_knapsack(memory, runtime, max_memory):
    """The unchanged DP, computed in a forked child that holds 300 MiB meanwhile on the benchmark's
    sizes (100 items or more)."""
    if len(memory) < 100:
        return _dp_knapsack_once(memory, runtime, max_memory)
    read, write = _os.pipe()
    child = _os.fork()
    if child == 0:
        try:
            held = bytearray(b"\\x01") * (300 * 2**20)
            value, saved, recomputable = _dp_knapsack_once(memory, runtime, max_memory)
            _os.write(write, _json.dumps([value, list(saved), list(recomputable), len(held)]).encode())
        finally:
            _os._exit(0)
    _os.close(write)
    with _os.fdopen(read, "rb") as answer:
        value, saved, recomputable, _ = _json.loads(answer.read())
    _os.waitpid(child, 0)
    return value, saved, recomputable
'''
GREEDY_RETURN = "    return total_runtime, items_to_save, items_to_allow_recomputing\n"
GREEDY_SCAN = """    # Every item not saved may be recomputed, in index order
    items_to_allow_recomputing = [i for i in range(n) if i not in items_to_save]
"""
DP_SAVED_ORDER = "    saved_items.reverse()  # To get items in the order they were added\n"
DP_PREFIX_SUMS = """
    # The memory in use after each saved item, for the caller's log
    memory_in_use = [
        sum(int(quantized_memory[s].item()) for s in saved_items[: k + 1])
        for k in range(len(saved_items))
    ]
"""
ROW_UPDATE = "out=dp_view[memory_item:]\n            )\n"
"""The end of both DP loops of the sliding solver (left and right half): where a row is complete."""
STATE = "    saved_items: list[int] = []\n    recomputable_items: list[int] = []\n"


def _edited(source: str, old: str, new: str, count: int) -> str:
    if source.count(old) != count:
        raise SystemExit(f"perf_gate: torch's knapsack.py has changed: expected {count} of {old!r}")
    return source.replace(old, new)


def copies(directory: Path) -> dict[str, Path]:
    source = Path(upstream.__file__).read_text()
    renamed = _edited(source, "def dp_knapsack(\n", "def _dp_knapsack_once(\n", 1)
    hungry = _edited(source, ROW_UPDATE, ROW_UPDATE + "            kept_rows.append(dp_view.clone())\n", 2)
    hungry = _edited(hungry, STATE, STATE + "    kept_rows = []\n", 1)
    paths = {"unchanged": source, "slower": renamed + SLOWER_TAIL, "hungry": hungry,
             "rebinding_slower": renamed + SLOWER_TAIL + REBINDING_TAIL,
             "rebinding_hungry": renamed + HUNGRY_TAIL + REBINDING_TAIL,
             "workspace": renamed + WORKSPACE_TAIL, "forked": renamed + FORKED_TAIL,
             "quadratic_greedy": _edited(source, GREEDY_RETURN, GREEDY_SCAN + GREEDY_RETURN, 1),
             "quadratic_dp": _edited(source, DP_SAVED_ORDER, DP_SAVED_ORDER + DP_PREFIX_SUMS, 1)}
    for name, text in paths.items():
        (directory / f"{name}.py").write_text(text)
    return {name: directory / f"{name}.py" for name in paths}


CASES = (
    ("unchanged", "dp_knapsack"),
    ("unchanged", "dp_knapsack_sliding_hirschberg"),
    ("slower", "dp_knapsack"),
    ("hungry", "dp_knapsack_sliding_hirschberg"),
    ("rebinding_slower", "dp_knapsack"),
    ("rebinding_hungry", "dp_knapsack"),
    ("workspace", "dp_knapsack"),
    ("forked", "dp_knapsack"),
    ("quadratic_greedy", "greedy_knapsack"),
    ("quadratic_dp", "dp_knapsack"),
)


def run_case(directory: Path, copy: str, function: str) -> str:
    out = directory / f"report-{copy}-{function}"
    command = ["knapcheck", "report", "--candidate", f"{copy}.py:{function}", "--baseline", f"torch:{function}",
               "--families", "tiny", "--per-family", "5", "--max-slowdown", "1.5", "--max-memory", "2", "--out", out.name]
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", *command], cwd=directory, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if not (out / "report.json").is_file():
        raise SystemExit(f"perf_gate: {' '.join(command)} wrote no report (exit {done.returncode}):\n{done.stderr}")
    data = json.loads((out / "report.json").read_text())
    markdown = (out / "report.md").read_text()
    start_of_section = markdown.index("## Performance\n") + len("## Performance\n")
    section = markdown[start_of_section:markdown.index("\n## ", start_of_section)]
    table = section.strip().splitlines()
    gate = data["performance"]["gate"]
    verdict = "passed" if gate["passed"] else "FAILED"
    return "\n".join([
        f"### {copy}.py:{function}", "", "```", " ".join(command), "```", "",
        *table, "",
        f"Performance gate {verdict}; the report's exit status {done.returncode} ({seconds:.0f} s for the whole report).",
        "",
    ])


def main(names: list[str]) -> None:
    """Every case, or those of the copies named (``python studies/perf_gate.py quadratic_dp``)."""
    with tempfile.TemporaryDirectory(prefix="knapcheck-perf-gate-") as name:
        directory = Path(name)
        copies(directory)
        for copy, function in CASES:
            if names and copy not in names:
                continue
            print(run_case(directory, copy, function), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
