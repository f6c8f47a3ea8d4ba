"""The real-budget table: overshoots collected per solver and family, aggregated and shown by check."""

import json
import math

from knapcheck.fuzz.judging.verdicts.overshoot import Overshoots, OvershootSample, never_over, relative_overshoot
from knapcheck.fuzz.runs.check import run_check
from knapcheck.reports import real_budget
from knapcheck.reports.check_report import render_json, render_text
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.registry import resolve_all

SMALL = Instance((0.1,), (1.0,), 0.5)
LARGE = Instance((0.1, 0.2), (1.0, 2.0), 0.5)


def sample_of(*overshoots: float) -> OvershootSample:
    sample = OvershootSample()
    for index, overshoot in enumerate(overshoots):
        sample.add(overshoot, LARGE if index == len(overshoots) - 1 else SMALL)
    return sample


def test_relative_overshoot_of_a_zero_budget_is_infinite():
    assert relative_overshoot(0.0, 0.0) == 0.0
    assert relative_overshoot(0.01, 0.5) == 0.02
    assert math.isinf(relative_overshoot(1e-5, 0.0))


def test_median_counts_answers_within_the_budget_as_zero():
    assert sample_of(0.0, 0.0, 0.3).median == 0.0
    assert sample_of(0.0, 0.1, 0.3).median == 0.1
    assert sample_of(0.0, 0.0, 0.1, 0.3).median == 0.05
    assert sample_of(0.25, 0.5, 0.75, 0.0).median == 0.375


def test_the_worst_keeps_its_instance_through_a_merge():
    first, second = sample_of(0.0, 0.02), OvershootSample()
    second.add(0.5, LARGE)
    second.add(0.1, SMALL)
    first.merge(second)
    assert (first.answers, len(first.over), first.worst, first.worst_instance) == (4, 3, 0.5, LARGE)


def test_the_summary_keeps_solvers_in_the_order_seen_and_sorts_families():
    overshoots = Overshoots()
    overshoots.add("sliding_hirschberg", "tiny", SMALL, 0.0)
    overshoots.add("budget_safe", "tiny", SMALL, 0.0)
    overshoots.add("sliding_hirschberg", "harvested", LARGE, 0.05)
    overshoots.add("sliding_hirschberg", "harvested", SMALL, None)
    summary = overshoots.summary()
    assert [(row.solver, row.family) for row in summary] == [
        ("sliding_hirschberg", "harvested"), ("sliding_hirschberg", "tiny"), ("budget_safe", "tiny")
    ]
    harvested = summary[0]
    assert (harvested.answers, harvested.over, harvested.median, harvested.worst) == (1, 1, 0.1, 0.1)
    assert harvested.worst_instance == LARGE
    assert never_over(summary) == {"budget_safe": 1}


def test_rows_name_the_worst_instance_and_skip_solvers_that_never_overshoot():
    overshoots = Overshoots()
    overshoots.samples[("torch:dp_knapsack", "harvested_large")] = sample_of(0.0, 0.001, 0.0071)
    overshoots.samples[("budget_safe", "harvested_large")] = sample_of(0.0, 0.0)
    table, line = real_budget.table(overshoots)
    assert table.rows == [["torch:dp_knapsack", "harvested_large", "3", "2", "0.1%", "0.71%", "n=2, max_memory=0.5"]]
    assert line == "Never over max_memory: budget_safe (2 answers)."
    assert json.loads(json.dumps(real_budget.to_json(overshoots)))[1]["over"] == 0


def test_check_shows_the_table_and_budget_safe_never_appears_in_it():
    result = run_check(resolve_all(["sliding_hirschberg", "budget_safe"]), ["quantization_edges", "zero_items"], 30)
    solvers = {solver for solver, _ in result.overshoots.samples}
    assert solvers == {"sliding_hirschberg", "budget_safe"}
    assert sum(s.answers for s in result.overshoots.samples.values()) == 2 * result.instances
    text = render_text(result)
    assert real_budget.TITLE in text and "Never over max_memory: budget_safe" in text
    rows = render_json(result)["real_budget"]
    assert all(row["over"] == 0 for row in rows if row["solver"] == "budget_safe")
    assert any(row["over"] for row in rows if row["solver"] == "sliding_hirschberg"), "the families should show an overshoot"
    json.dumps(rows, allow_nan=False)
