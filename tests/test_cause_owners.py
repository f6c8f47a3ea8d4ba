"""A corpus case whose cause its solver cannot have is quarantined, in one line, never trusted: HiGHS'
MIP gap named for torch's dp_knapsack gave dp_knapsack the gap's bound, and a dp regression within
it passed the gate."""

import json
from dataclasses import replace

from torch_copies import write_copy

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main
from knapcheck.fuzz.campaign.promotion import promote
from knapcheck.fuzz.campaign.store import StoredFailure
from knapcheck.fuzz.corpus.cause_owners import OWNERS, function_of, untrusted
from knapcheck.fuzz.corpus.known_failures import KnownFailure, read_known_failures
from knapcheck.fuzz.judging.known.defects import CAUSES
from knapcheck.fuzz.judging.verdicts.differential import check
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry

INSTANCE = Instance((0.0001, 0.0001), (1_000_000.0, 1.0), 0.0002)
"""Both items fit; integer runtimes, float32-exact: outside torch's float32 defect's reach."""
LYING = KnownFailure("lying", "torch:dp_knapsack", False, "SUBOPTIMAL", "tiny", "by hand", "2026-12-06", INSTANCE,
                       cause="mip_gap")
"""HiGHS' MIP gap, named for a solver that calls no HiGHS."""
NEGLIGIBLE_ITEMS = (
    "    max_runtime = dp[n][quantized_max_memory].item()\n",
    """    # An item worth less than 1e-5 of the total is not worth keeping saved
    total = sum(runtime[i] for i in saved_items)
    recomputable_items += [i for i in saved_items if runtime[i] < 1e-5 * total]
    saved_items = [i for i in saved_items if runtime[i] >= 1e-5 * total]
    max_runtime = float(sum(runtime[i] for i in saved_items))
""",
)
"""A dp_knapsack regression: it drops the saved items worth less than 1e-5 of the total. SUBOPTIMAL
where torch is OPTIMAL, always within HiGHS' MIP gap (1e-4 of the optimum) on a few items."""


def _corpus_file(tmp_path, *cases: KnownFailure):
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps({"schema_version": 1, "cases": [case.as_dict() for case in cases]}))
    return path


def test_the_owners_are_the_functions_each_known_defect_is_repaired_in():
    assert OWNERS.keys() == CAUSES.keys()
    for name, cause in CAUSES.items():
        assert OWNERS[name] == set(cause.repairs), name


def test_every_case_of_the_packaged_corpus_is_trusted():
    corpus = read_known_failures()
    assert corpus.quarantined == () and corpus.cases == corpus.stored
    assert all(function_of(case.solver) in OWNERS[case.cause] for case in corpus.cases if case.cause)


def test_a_cause_is_trusted_only_for_the_functions_that_can_have_it():
    assert untrusted("mip_gap", "torch:ilp_knapsack") == ""
    assert untrusted("mip_gap", "pr/knapsack.py:ilp_knapsack") == "", "a copy of ilp_knapsack may have it"
    assert untrusted("mip_gap", "torch:dp_knapsack") == \
        "its cause mip_gap is a defect of ilp_knapsack only, not of 'torch:dp_knapsack'"
    assert untrusted("float32", "full_table"), "none of ours has a torch defect"
    assert untrusted("", "torch:dp_knapsack") == untrusted("a_cause_of_a_newer_knapcheck", "torch:dp_knapsack") == ""


def test_a_lying_case_is_quarantined_named_in_one_line_and_kept_in_the_file(tmp_path):
    path = _corpus_file(tmp_path, LYING, replace(LYING, id="honest", solver="torch:ilp_knapsack"))
    corpus = read_known_failures(path)
    assert [case.id for case in corpus.cases] == ["honest"] and len(corpus.stored) == 2
    (line,) = corpus.notes()
    assert line == (f"known-failure corpus {path}: case 'lying' quarantined (not used): its cause mip_gap is a defect"
                    " of ilp_knapsack only, not of 'torch:dp_knapsack'")
    takes_everything = SolverEntry("takes_everything", "planted.wrong_answers:takes_everything", exact=True, origin="test")
    promote([StoredFailure.of(check(takes_everything, Instance((0.0003,), (1.0,), 0.0001), "tiny"))], path)
    assert [case.id for case in read_known_failures(path).stored][:2] == ["lying", "honest"], \
        "a promotion writes the quarantined case back"


def test_a_dp_regression_fails_the_gate_whatever_a_lying_case_says(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_copy(tmp_path / "knapsack.py", NEGLIGIBLE_ITEMS)
    (tmp_path / "instance.json").write_text(json.dumps(INSTANCE.as_dict()))
    _corpus_file(tmp_path, LYING)
    status = main(["check", "--targets", "knapsack.py:dp_knapsack", "--baseline", "torch:dp_knapsack",
                   "--families", "tiny", "--per-family", "1", "--corpus", "corpus.json",
                   "--instances", "instance.json"])
    out, err = capsys.readouterr()
    assert status == exit_status.FAILED, out[-3000:]
    assert "knapsack.py:dp_knapsack: SUBOPTIMAL, regression" in out
    quarantined = [line for line in err.splitlines() if "quarantined" in line]
    assert quarantined == ["knapcheck: known-failure corpus corpus.json: case 'lying' quarantined (not used): its cause"
                           " mip_gap is a defect of ilp_knapsack only, not of 'torch:dp_knapsack'"]
