"""The campaign's live display keeps to the terminal's width; its plain line names only failures;
its exit status ranks what happened."""

from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console

from knapcheck.commands.exit_status import FAILED, INCOMPLETE, INTERRUPTED, OK
from knapcheck.commands.fuzz_command import exit_status
from knapcheck.fuzz.campaign.run import CampaignResult, Progress
from knapcheck.fuzz.campaign.state import Finding
from knapcheck.fuzz.campaign.store import StoredFailure
from knapcheck.fuzz.campaign.unit_ledger import LostUnit
from knapcheck.fuzz.judging.verdicts import gate
from knapcheck.fuzz.judging.verdicts.differential import CheckResult, check, instance_id, with_baseline
from knapcheck.oracles.verdict import Verdict
from knapcheck.reports.campaign_report import progress_line, progress_view, render_json
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry

SOLVERS = ["full_table", "sliding_hirschberg", "/a/very/long/path/to/a/pull/request/checkout/torch/knapsack.py:dp_knapsack"]
PROGRESS = Progress(
    elapsed=3725.0,
    remaining=25075.0,
    cases=123456,
    verified=123000,
    counts={name: Counter({v.value: 1000 + i for i, v in enumerate(Verdict)}) for name in SOLVERS},
    workers=16,
    stored=12,
    troubles=1,
)


def test_the_live_display_fits_a_narrow_terminal():
    console = Console(width=60, record=True, color_system=None)
    console.print(progress_view(PROGRESS))
    lines = console.export_text().splitlines()
    assert len(lines) == 1 + 1 + len(SOLVERS), "a headline, a header, one row per solver"
    assert max(len(line) for line in lines) <= 60
    assert lines[0].startswith("1:02:05 elapsed, 6:57:55 left, 123456 cases")


def test_the_plain_line_counts_only_failing_verdicts():
    line = progress_line(PROGRESS)
    assert "16 workers" in line and "1 lost or retried" in line
    assert "full_table SUBOPTIMAL=1001" in line
    assert "OPTIMAL=1000" not in line and "UNVERIFIED" not in line


def _result(cases: int = 10, **fields) -> CampaignResult:
    return CampaignResult(CheckResult([], instances=cases), ["tiny"], "local cluster of 1 worker", 1.0, 1.0, 0, 0, 1.0, 1.0,
                          **fields)


INSTANCE = Instance((0.0003,), (1.0,), 0.0001)
"""Taking its one item overshoots the budget: OVER_BUDGET for takes_everything, OPTIMAL for full_table."""
OURS = SolverEntry("ours_takes_everything", "planted.wrong_answers:takes_everything", exact=True, origin="ours")
THEIRS = SolverEntry("pr.py:takes_everything", "planted.wrong_answers:takes_everything", exact=True, origin="pr.py")
ALSO_WRONG = SolverEntry("torch:takes_everything", "planted.wrong_answers:takes_everything", exact=True, origin="torch")
RIGHT = SolverEntry("torch:full_table", "knapcheck.solvers.full_table:full_table", exact=True, origin="torch")


def _finding(entry: SolverEntry, baseline: SolverEntry | None = None) -> Finding:
    done = check(entry, INSTANCE, "tiny")
    if baseline is not None:
        done = with_baseline(done, baseline, check(baseline, INSTANCE, "tiny"))
    return Finding(gate.status(done, gate.CANDIDATE), StoredFailure.of(done), check=done)


OUR_FAILURE = _finding(OURS)
LOST = LostUnit("fuzz tiny", 3, "killed its worker 3 times; not retried")
AGAINST = {"counterparts": {THEIRS.name: "torch"}, "gated": [THEIRS.name]}


@pytest.mark.parametrize(
    "fields, status",
    [
        ({}, OK),
        ({"findings": [_finding(THEIRS)], "gated": []}, OK),
        ({"findings": [OUR_FAILURE], "gated": [OURS.name]}, FAILED),
        ({"oracle_disagreements": [Path("oracle-disagreements/1.json")]}, FAILED),
        ({"units_lost": [LOST]}, INCOMPLETE),
        ({"workers_lost": ["tcp://127.0.0.1:1"]}, INCOMPLETE),
        ({"store_errors": ["ours CRASH: disk full"]}, INCOMPLETE),
        ({"findings": [OUR_FAILURE], "gated": [OURS.name], "units_retried": [LOST]}, FAILED),
        ({"findings": [OUR_FAILURE], "gated": [OURS.name], "interrupted": True}, INTERRUPTED),
        ({"findings": [_finding(THEIRS, RIGHT)], **AGAINST}, FAILED),
        ({"findings": [_finding(THEIRS, ALSO_WRONG)], **AGAINST}, OK),
        ({"cases": 0}, INCOMPLETE),
        ({"cases": 0, "interrupted": True}, INTERRUPTED),
    ],
    ids=["nothing", "upstream without a baseline", "ours", "oracle", "unit lost", "worker lost", "store error",
         "ours and a retry", "interrupted", "a regression against the baseline", "a failure the baseline shares",
         "no case judged", "interrupted before a case"],
)
def test_exit_status(fields, status):
    """The gate's rule (knapcheck.fuzz.judging.verdicts.gate.decide): a regression of a target against its baseline
    fails the run, a failure the baseline shares does not; without a baseline, ours fail it."""
    assert exit_status(_result(**fields)) == status


def test_every_instance_in_campaign_json_carries_its_id():
    lost = LostUnit("fuzz tiny", 3, "killed its worker 3 times; not retried", INSTANCE.as_dict())
    data = render_json(_result(findings=[OUR_FAILURE], gated=[OURS.name], units_lost=[lost]))
    (finding,) = data["findings"]
    assert finding["instance"]["id"] == finding["check"]["instance"]["id"] == instance_id(INSTANCE)
    assert data["units_lost"][0]["instance"] == {"id": instance_id(INSTANCE), **INSTANCE.as_dict()}
