"""The installed torch's knapsack solvers, through the same checks as ours.

Their known defects live in the known-failure corpus (fuzz/corpus/known_failures.json), each a strict
expected failure in tests/test_known_failures.py. Here: every upstream solver answers a plain
instance validly, and `knapcheck check` finds every known defect of the installed torch by itself.
"""


import pytest

from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.instances import families, sizes
from knapcheck.fuzz.judging.verdicts.differential import check
from knapcheck.fuzz.runs.check import run_check
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.registry import torch_entries


@pytest.mark.parametrize("entry", torch_entries(), ids=lambda e: e.name)
def test_upstream_solver_answers_a_plain_instance_validly(entry):
    found = check(entry, Instance((0.3, 0.3, 0.4), (1.0, 1.0, 1.5), 0.6))
    assert not found.failed, f"{entry.name}: {found.verdict} {found.judgement.detail}"


def test_check_finds_every_known_defect_by_itself():
    """Found by the check itself, on its sampled families: 40 instances of each family of at most
    24 items, 10 of each Pisinger class of 30 (torch's ilp_knapsack takes longest there; the fixed
    lists and the families at scale find no defect these miss, and took as long again). Each
    failure is kept as found, not shrunk (shrinking keeps a failure's signature:
    test_gate.py::test_shrinking_keeps_the_baseline_verdict)."""
    entries = torch_entries()
    names = {entry.name for entry in entries}
    known = {(case.solver, case.verdict) for case in load_known_failures() if case.solver in names}
    small = families.names(enumerated=False, max_n=24)
    pisinger = [name for name in families.names(enumerated=False, max_n=sizes.PISINGER_MAX_ITEMS) if name not in small]
    found = {(f.solver.name, f.verdict.value) for f in run_check(entries, small, per_family=40, shrink_seconds=0).findings}
    found |= {(f.solver.name, f.verdict.value) for f in run_check(entries, pisinger, per_family=10, shrink_seconds=0).findings}
    assert known <= found, f"check no longer finds {sorted(known - found)}"
