"""Outputs that a move of modules must leave byte for byte as they were: ``python studies/move_goldens.py OUT``

Runs, in a fresh directory of a fixed path (so the paths a report prints are alike), the commands
whose outputs name modules, solvers or instances, and writes each output to OUT with its timings
taken out (keys and phrases that measure seconds or the machine's load):

- ``check.json``: ``knapcheck check --json`` on a fixed sample (three of torch's solvers, two
  families, six instances each, seed 0);
- ``report.md`` and ``report.json``: ``knapcheck report`` of a planted copy of torch's file (a
  ``dp_knapsack`` whose backtrack keeps the item it should drop), no benchmark;
- ``groups.txt`` and ``database_keys.txt``: the group names of a campaign's failure store and the
  keys of its Hypothesis example database (``knapcheck fuzz`` with a seed, one job, torch's
  sliding solver, whose over-budget defect a tiny instance shows; the keys from a run without a seed,
  since a seeded run uses no example database);
- ``exported.py``: ``knapcheck export-tests``' test file.

Record once before the move and once after, then ``diff -r BEFORE AFTER``: no line may differ.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import torch._functorch._activation_checkpointing.knapsack as upstream

WORK = Path("/tmp/knapcheck-move-goldens")
TIMING_KEYS = re.compile(r"seconds|elapsed|duration|load|rate|per_second|started|ended|time$|_at$|cpus|pid")
TIMING_TEXT = re.compile(r"\d+(\.\d+)?\s?(ms|µs|s|min|cases/s)\b|load average [\d.]+|\d{4}-\d\d-\d\dT[\d:.+-]+Z?")
PLANTED_FROM = "if dp[i][j] != dp[i - 1][j]:"
PLANTED_TO = "if dp[i][j] >= dp[i - 1][j]:"


def knapcheck(*args: str, stdout: Path | None = None) -> None:
    command = [str(Path(sys.executable).with_name("knapcheck")), *args]
    with open(stdout, "w") if stdout else open("/dev/null", "w") as out:
        subprocess.run(command, cwd=WORK, stdout=out, stderr=subprocess.DEVNULL, check=False)


def without_timings(value: object) -> object:
    if isinstance(value, dict):
        return {key: without_timings(item) for key, item in value.items() if not TIMING_KEYS.search(key)}
    if isinstance(value, list):
        return [without_timings(item) for item in value]
    if isinstance(value, str):
        return TIMING_TEXT.sub("<time>", value)
    return value


def write_json(source: Path, out: Path) -> None:
    out.write_text(json.dumps(without_timings(json.loads(source.read_text())), indent=1, sort_keys=True) + "\n")


def main(out: Path) -> None:
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    out.mkdir(parents=True, exist_ok=True)
    knapcheck("check", "--targets", "torch:dp_knapsack", "torch:greedy_knapsack", "torch:dp_knapsack_sliding_hirschberg",
              "--families", "tiny", "tight_budget", "--per-family", "6", "--seed", "0", "--json", "check.json")
    write_json(WORK / "check.json", out / "check.json")

    source = Path(upstream.__file__).read_text()
    assert source.count(PLANTED_FROM) == 1, f"torch's file no longer has {PLANTED_FROM!r}"
    (WORK / "planted.py").write_text(source.replace(PLANTED_FROM, PLANTED_TO))
    knapcheck("report", "--candidate", "planted.py:dp_knapsack", "--baseline", "torch:dp_knapsack",
              "--per-family", "4", "--bench-repeats", "0", "--out", "r")
    (out / "report.md").write_text(TIMING_TEXT.sub("<time>", (WORK / "r" / "report.md").read_text()))
    write_json(WORK / "r" / "report.json", out / "report.json")

    knapcheck("fuzz", "--time", "20s", "--jobs", "1", "--seed", "0", "--families", "tiny", "--targets",
              "torch:dp_knapsack_sliding_hirschberg", "--db", "db", "--out", "campaign")
    knapcheck("fuzz", "--time", "10s", "--jobs", "1", "--families", "tiny", "--targets",
              "torch:dp_knapsack_sliding_hirschberg", "--db", "unseeded", "--out", "unseeded-campaign")
    for name, folder in (("groups.txt", WORK / "db" / "failures"), ("database_keys.txt", WORK / "unseeded" / "hypothesis")):
        entries = sorted(path.name for path in folder.iterdir())
        assert entries, f"the campaign left nothing in {folder}"
        (out / name).write_text("".join(f"{entry}\n" for entry in entries))

    knapcheck("export-tests", "--out", "exported.py")
    shutil.copyfile(WORK / "exported.py", out / "exported.py")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python studies/move_goldens.py OUT")
    main(Path(sys.argv[1]))
