"""Every case of the known-failure corpus (promoted from fuzz campaigns with `knapcheck promote`).

Our own solvers must pass their cases. An upstream solver's case is a strict expected failure: the
defect is upstream's and never makes this suite red, while a fix upstream shows up as an
unexpected pass that fails the suite, so the case gets retired on purpose rather than silently.
"""

from __future__ import annotations

import pytest

from knapcheck.fuzz.corpus.known_failures import KnownFailure, load_known_failures
from knapcheck.fuzz.judging.known.known import replay
from knapcheck.fuzz.judging.verdicts.differential import check, size_allows
from knapcheck.solvers.registry import ours


class StillDefective(AssertionError):
    """The case fails as it did when found: an upstream case's expected failure. Any other failure is new."""


def _param(case: KnownFailure):
    marks = []
    if not case.ours:
        cause = f": {case.why}" if case.why else ""
        reason = f"upstream defect{cause} ({case.solver} {case.verdict}, found in {case.origin} by family {case.family})"
        marks.append(pytest.mark.xfail(strict=True, raises=StillDefective, reason=reason))
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(case) for case in load_known_failures()])
def test_regression_case(case: KnownFailure):
    try:
        done = replay(case)
    except ValueError as exc:
        pytest.skip(f"solver unavailable here: {exc}")
    if done.verdict.value == case.verdict:
        raise StillDefective(f"{case.solver} still fails: {done.verdict.value}: {done.judgement.detail}")
    assert not done.failed, f"{case.solver} now fails differently: {done.verdict.value}: {done.judgement.detail}"


@pytest.mark.parametrize("entry", [pytest.param(entry, id=entry.name) for entry in ours() if entry.exact])
def test_our_exact_solvers_are_optimal_on_every_case(entry):
    # The corpus holds upstream's defects; each instance is an edge case every exact solver must get right.
    for case in load_known_failures():
        if size_allows(entry, case.instance):
            found = check(entry, case.instance, case.family)
            assert found.verdict.value == "OPTIMAL", f"{case.id}: {found.verdict}: {found.judgement.detail}"
