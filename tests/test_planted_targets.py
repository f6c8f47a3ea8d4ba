"""A planted broken target is caught by the differential check, and the run survives every one."""

import subprocess
import sys
from pathlib import Path

from knapcheck.fuzz.runs.check import run_check
from knapcheck.reports.reproduction import snippet
from knapcheck.solvers.registry import resolve

PLANTED = Path(__file__).parent / "planted"


def test_an_off_by_one_in_the_budget_split_is_caught_shrunk_and_reproduced():
    entries = resolve(f"{PLANTED / 'off_by_one_split.py'}:solve") + resolve(f"{PLANTED / 'misbehaving.py'}:segfault")
    entries += resolve("full_table")
    result = run_check(entries, ["tiny"], per_family=15)

    assert result.counts["full_table"]["OPTIMAL"] == result.instances
    found = {(f.solver.name, f.verdict.value): f for f in result.findings}
    segfault = found[(entries[1].name, "CRASH")]
    assert segfault.instance.n == 0
    split = found[(entries[0].name, "OVER_BUDGET")]
    assert split.instance.n == 2
    assert split.judgement.excess == 1
    run = subprocess.run([sys.executable, "-c", snippet(split)], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "OVER_BUDGET" in run.stderr
