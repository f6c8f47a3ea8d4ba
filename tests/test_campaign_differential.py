"""Campaigns against a baseline: every target judged beside its counterpart on the same instance,
findings named by (target, verdict, baseline verdict), the store keeping the smallest instance of
each, shrinking and replays keeping the relation, and the one gate rule deciding the exit status.
Without a baseline, findings a case of the known-failure corpus explains are known, the others new."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from campaigns import report
from torch_copies import SPLIT, SPLIT_HALVES_EXCHANGED, write_copy

from knapcheck.commands.cli import main
from knapcheck.commands.exit_status import FAILED, OK, USAGE
from knapcheck.fuzz.campaign.events import Found, Replayed, decode, encode
from knapcheck.fuzz.campaign.state import CHANGED, FindingsBook
from knapcheck.fuzz.campaign.store import FailureStore, StoredFailure
from knapcheck.fuzz.campaign.units import REPLAY, Setup, Unit, UnitRun
from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.judging.plain_check import check_from_plain, check_to_plain
from knapcheck.fuzz.judging.verdicts.differential import NOT_RUN, check, check_against, instance_id
from knapcheck.fuzz.judging.verdicts.gate import KNOWN, NEW, REGRESSION, SHARED, VISIBLE
from knapcheck.fuzz.judging.verdicts.signature import Signature
from knapcheck.oracles.verdict import Verdict
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.registry import resolve_one

SLIDING = "dp_knapsack_sliding_hirschberg"
TORCH_SLIDING = f"torch:{SLIDING}"
TORCH_SPLIT_CASE = Instance((0.003, 0.0029), (1.0, 2.0), 0.0058)
"""The corpus's case of torch's own split defect: torch takes both items, one unit over the budget."""


@pytest.fixture
def split_copy(tmp_path):
    """A copy of torch's knapsack.py with a second off-by-one in the Hirschberg split."""
    return f"{write_copy(tmp_path / 'knapsack.py', SPLIT)}:{SLIDING}"


def _in_process(spec: str):
    """The target's entry, run in this process (a unit's checks are the same either way)."""
    return replace(resolve_one(spec), isolate=False)


def _fuzz(tmp_path: Path, out: str, *arguments: str, time: str = "6s") -> list[str]:
    return ["fuzz", "--time", time, "--jobs", "1", "--seed", "0", "--db", str(tmp_path / "db"), "--out", str(tmp_path / out),
            *arguments]


def test_the_split_copy_s_regression_survives_beside_torch_s_own_smaller_defect_and_is_replayed_against_torch(
    tmp_path, split_copy
):
    """Keyed by (solver, verdict), the copy's new OVER_BUDGET finding was stored, then pruned in
    favour of torch's own known 2-item OVER_BUDGET case. Against --baseline torch they are two
    signatures; the regression's instance is one torch passes; it fails the run; and the next run
    replays it against torch."""
    assert main(_fuzz(tmp_path, "out", "--targets", split_copy, "--baseline", "torch", "--families", "tiny")) == FAILED
    groups = FailureStore(tmp_path / "db").groups()
    regression = groups[Signature(split_copy, "OVER_BUDGET", "OPTIMAL")]
    assert check(_in_process(TORCH_SLIDING), regression.instance).verdict is Verdict.OPTIMAL
    assert check(_in_process(split_copy), regression.instance).verdict is Verdict.OVER_BUDGET
    assert regression.baseline == TORCH_SLIDING

    data = report(tmp_path / "out")
    assert data["gate"] == {"solvers": [split_copy], "rule": "differential", "passed": False,
                            "failing": [[split_copy, "OVER_BUDGET", "OPTIMAL"]], "oracle_findings": 0}
    statuses = {tuple(f["signature"]): f["status"] for f in data["findings"]}
    assert statuses[split_copy, "OVER_BUDGET", "OPTIMAL"] == REGRESSION
    assert set(statuses.values()) <= {REGRESSION, SHARED, VISIBLE}
    found = next(f for f in data["findings"] if f["status"] == REGRESSION)
    assert found["instance"]["id"] == instance_id(regression.instance)
    assert found["check"]["baseline"]["verdict"] == "OPTIMAL"
    assert "reproduce(baseline)" in found["check"]["reproduction"]
    assert {s["name"]: s["role"] for s in data["solvers"]} == {split_copy: "target", TORCH_SLIDING: "baseline"}
    assert "**REGRESSION**" in (tmp_path / "out" / "campaign.md").read_text()

    assert main(_fuzz(tmp_path, "next", "--targets", split_copy, "--baseline", "torch", "--families", "tiny",
                      time="3s")) == FAILED
    again = {tuple(f["signature"]): f for f in report(tmp_path / "next")["findings"]}
    replayed = again[split_copy, "OVER_BUDGET", "OPTIMAL"]
    assert (replayed["status"], replayed["stored_before"], replayed["replayed"]) == (REGRESSION, True, "OVER_BUDGET")


def test_a_copy_that_only_moves_torch_s_split_defect_stores_no_regression_and_passes(tmp_path):
    """The two halves exchanged: over budget where torch is optimal, but optimal there with the
    split repaired in the copy's source. Stored as the known defect, moved; the run passes."""
    moved = f"{write_copy(tmp_path / 'knapsack.py', SPLIT_HALVES_EXCHANGED)}:{SLIDING}"
    assert main(_fuzz(tmp_path, "out", "--targets", moved, "--baseline", "torch", "--families", "tiny")) == OK
    groups = FailureStore(tmp_path / "db").groups()
    assert Signature(moved, "OVER_BUDGET", "OPTIMAL", "hirschberg_split") in groups
    data = report(tmp_path / "out")
    assert data["gate"]["passed"] and data["gate"]["failing"] == []
    statuses = {tuple(f["signature"]): f["status"] for f in data["findings"]}
    assert statuses[moved, "OVER_BUDGET", "OPTIMAL", "hirschberg_split"] == VISIBLE
    assert set(statuses.values()) <= {VISIBLE, SHARED}, statuses


def test_without_a_baseline_a_campaign_against_torch_calls_corpus_known_findings_known(tmp_path):
    """A two-minute campaign against torch said "10 failing signatures (10 new)", all ten of them
    in the packaged corpus. torch's greedy_knapsack divides by a zero memory: a corpus case."""
    assert main(_fuzz(tmp_path, "out", "--targets", "torch:greedy_knapsack", "--families", "zero_items",
                      time="4s")) == OK, "no solver of ours failed (its first case fails torch's greedy_knapsack)"
    data = report(tmp_path / "out")
    cases = {case.id: case for case in load_known_failures()}
    rejected = next(f for f in data["findings"] if f["verdict"] == "REJECTED")
    assert rejected["status"] == KNOWN and not rejected["new"]
    assert cases[rejected["known_case"]].solver == "torch:greedy_knapsack"
    assert cases[rejected["known_case"]].verdict == "REJECTED"
    assert data["gate"]["rule"] == "no baseline" and data["gate"]["passed"]
    markdown = (tmp_path / "out" / "campaign.md").read_text()
    assert "known in the known-failure corpus" in markdown and f"case `{rejected['known_case']}`" in markdown


def test_a_finding_is_known_when_a_corpus_case_has_its_solver_verdict_and_cause_and_new_otherwise():
    greedy = _in_process("torch:greedy_knapsack")
    zero_memory = check(greedy, Instance((0.0,), (2.0,), 0.0))
    assert zero_memory.verdict is Verdict.REJECTED
    cases = load_known_failures()
    book = FindingsBook({})
    book.saw(zero_memory)
    groups = {Signature.of(zero_memory): StoredFailure.of(zero_memory)}
    (finding,) = book.findings(groups, {greedy.name}, cases)
    assert finding.status == KNOWN and finding.known_case.startswith("torch_greedy_knapsack-REJECTED")
    (finding,) = book.findings(groups, {greedy.name}, [c for c in cases if c.verdict != "REJECTED"])
    assert finding.status == NEW and finding.known_case is None


def test_a_stored_failure_replayed_under_another_signature_is_changed_and_the_new_one_is_listed(split_copy):
    """A failure stored without a baseline, replayed against torch: the copy still fails there,
    but torch does too, so it is now a failure the baseline shares, not the stored signature."""
    copy, torch_sliding = _in_process(split_copy), _in_process(TORCH_SLIDING)
    alone = check(copy, TORCH_SPLIT_CASE, "tiny")
    against = check_against(copy, torch_sliding, TORCH_SPLIT_CASE, "tiny")
    assert (alone.verdict.value, against.baseline_verdict) == ("OVER_BUDGET", "OVER_BUDGET")
    book = FindingsBook({Signature.of(alone): StoredFailure.of(alone)})
    book.replayed[Signature.of(alone)] = against
    book.saw(against)
    groups = {Signature.of(alone): StoredFailure.of(alone), Signature.of(against): StoredFailure.of(against)}
    found = {f.stored.signature: f for f in book.findings(groups, {copy.name})}
    assert found[Signature.of(alone)].status == CHANGED
    assert (found[Signature.of(against)].status, found[Signature.of(against)].stored_before) == (SHARED, False)


def test_a_differential_check_crosses_as_json_with_its_baseline_and_names_only_campaign_solvers(split_copy):
    copy, torch_sliding = _in_process(split_copy), _in_process(TORCH_SLIDING)
    done = check_against(copy, torch_sliding, TORCH_SPLIT_CASE, "tiny")
    entries = {copy.name: copy, torch_sliding.name: torch_sliding}
    back = check_from_plain(json.loads(json.dumps(check_to_plain(done))), entries)
    assert back.differential_signature == done.differential_signature
    assert back.baseline.outcome.answer == done.baseline.outcome.answer
    event = decode(encode(Found(1, done, False)), entries)
    assert Signature.of(event.check) == Signature.of(done)
    with pytest.raises(ValueError, match="counterpart"):
        check_from_plain(check_to_plain(done), {copy.name: copy})
    plain = check_to_plain(done)
    plain["baseline"]["instance"]["max_memory"] = 0.0002
    with pytest.raises(ValueError, match="baseline"):
        check_from_plain(plain, entries)


def _unit_run(entries, counterparts, unit):
    events = []
    setup = Setup(tuple(entries), float("inf"), None, "events", "stop", 60.0, counterparts)
    UnitRun(setup, unit, events.append, lambda: False).run()
    return events


def test_shrinking_keeps_the_relation_and_replays_judge_against_the_baseline(split_copy):
    """The shrunk regression still fails on the copy and passes on torch; a replay of a stored
    regression carries torch's verdict on the same instance."""
    copy, torch_sliding = _in_process(split_copy), _in_process(TORCH_SLIDING)
    counterparts = {copy.name: torch_sliding.name}
    big = Instance((0.0018, 0.0001, 0.0007, 0.0009), (59.0, 13.0, 3.0, 4.0), 0.0018)
    failure = check_against(copy, torch_sliding, big, "tiny")
    assert (failure.verdict.value, failure.baseline_verdict) == ("OVER_BUDGET", "OPTIMAL")
    events = _unit_run([copy, torch_sliding], counterparts, Unit.shrinking(1, failure))
    (shrunk,) = [e.check for e in events if isinstance(e, Found)]
    assert shrunk.instance.n < big.n
    assert (shrunk.verdict.value, shrunk.baseline_verdict) == ("OVER_BUDGET", "OPTIMAL")

    replay = (Signature(copy.name, "OVER_BUDGET", "OPTIMAL"), "tiny", shrunk.instance.as_dict())
    events = _unit_run([copy, torch_sliding], counterparts, Unit(2, REPLAY, replays=(replay,)))
    (replayed,) = [e for e in events if isinstance(e, Replayed)]
    assert replayed.stored == Signature(copy.name, "OVER_BUDGET", "OPTIMAL")
    assert Signature.of(replayed.check) == replayed.stored


def test_a_baseline_that_does_not_take_the_size_is_not_run_and_says_so(split_copy):
    copy = _in_process(split_copy)
    dp = _in_process("torch:dp_knapsack")
    too_big = replace(dp, max_capacity=0)
    done = check_against(copy, too_big, TORCH_SPLIT_CASE, "tiny")
    assert done.baseline_verdict == NOT_RUN and Signature.of(done).baseline == NOT_RUN


def test_a_target_with_no_single_counterpart_is_one_line_before_any_work(tmp_path, capsys):
    command = _fuzz(tmp_path, "out", "--targets", "full_table", "sliding_hirschberg", "--baseline", "torch")
    assert main(command) == USAGE
    err = capsys.readouterr().err
    assert "--baseline: full_table has no counterpart" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "campaign.json").exists()
