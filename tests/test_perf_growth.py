"""The performance gate judges each solver as it grows in n: copies of torch's knapsack.py with a step
quadratic in n, in two different functions, fail ``--max-slowdown 1.5`` on the size where it shows.

One report run is shared by the tests (a module-scoped fixture). The copies are planted many times
slower at 2 000 items (greedy_knapsack's about 15x, dp_knapsack's about 9x, on the project's
machine), so the gate's verdict on them is all that is asserted of any timing; whether an unchanged
copy passes is a matter of the gate's false-alarm rate, measured by ``studies/perf_false_alarms.py``.
"""

from __future__ import annotations

import json

import pytest
from first_screens import first_screen
from torch_copies import write_copy

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main
from knapcheck.measure.paired import GATE_SIZES

GREEDY_RECOMPUTABLE_BY_SCAN = (
    "    return total_runtime, items_to_save, items_to_allow_recomputing\n",
    """    # Every item not saved may be recomputed, in index order
    items_to_allow_recomputing = [i for i in range(n) if i not in items_to_save]
    return total_runtime, items_to_save, items_to_allow_recomputing
""",
)
"""greedy_knapsack rebuilds its recomputable items by scanning the saved list for every item: O(n^2)."""

DP_MEMORY_IN_USE_BY_PREFIX = (
    "    saved_items.reverse()  # To get items in the order they were added\n",
    """    saved_items.reverse()  # To get items in the order they were added

    # The memory in use after each saved item, for the caller's log
    memory_in_use = [
        sum(int(quantized_memory[s].item()) for s in saved_items[: k + 1])
        for k in range(len(saved_items))
    ]
""",
)
"""dp_knapsack sums the memory of every prefix of its saved items, each from the start: O(n^2)
tensor reads while building the answer."""

LARGEST = f"n={GATE_SIZES[-1][0]} C={GATE_SIZES[-1][1]:.0e}"
SMALLEST_N = GATE_SIZES[0][0]


@pytest.fixture(scope="module")
def quadratic_report(tmp_path_factory):
    directory = tmp_path_factory.mktemp("quadratic")
    greedy = write_copy(directory / "greedy_scan.py", GREEDY_RECOMPUTABLE_BY_SCAN)
    dp = write_copy(directory / "dp_prefix.py", DP_MEMORY_IN_USE_BY_PREFIX)
    corpus = directory / "empty-corpus.json"
    corpus.write_text('{"schema_version": 1, "cases": []}')
    out = directory / "out"
    status = main(["report", "--candidate", f"{greedy}:greedy_knapsack", f"{dp}:dp_knapsack",
                   "--baseline", "torch:greedy_knapsack", "torch:dp_knapsack", "--families", "tiny",
                   "--per-family", "3", "--corpus", str(corpus), "--bench-repeats", "2",
                   "--max-slowdown", "1.5", "--out", str(out)])
    return status, json.loads((out / "report.json").read_text()), (out / "report.md").read_text()


@pytest.mark.parametrize("function", ["greedy_knapsack", "dp_knapsack"])
def test_a_step_quadratic_in_n_fails_the_slowdown_limit_at_the_size_where_it_shows(quadratic_report, function):
    status, data, _ = quadratic_report
    assert status == exit_status.FAILED and data["performance"]["gate"]["passed"] is False
    failing = [f for f in data["performance"]["gate"]["failing"] if f.split(" against ")[0].endswith(f":{function}")]
    (at_largest,) = [f for f in failing if f" on {LARGEST}: time " in f]
    assert "the whole interval past --max-slowdown 1.5" in at_largest
    assert f"x at n={SMALLEST_N}" in at_largest, "a failure at the largest size says the ratio at the smallest"
    (pair,) = [p for p in data["performance"]["pairs"] if p["candidate"].endswith(f":{function}")]
    assert pair["worst"]["time"] == LARGEST


def test_every_size_is_a_row_of_the_report_and_the_growth_in_n_is_set_beside_the_baseline_s(quadratic_report):
    _, data, markdown = quadratic_report
    for pair in data["performance"]["pairs"]:
        ladder = [row for row in pair["rows"] if row["grows_in"] == "n"]
        assert [(row["n"], row["capacity"]) for row in ladder] == list(GATE_SIZES)
        assert all(row["time"] and row["memory"] and set(row["median_seconds"]) == {"candidate", "baseline"}
                   for row in pair["rows"])
        assert pair["growth"]["from_n"] == SMALLEST_N and pair["growth"]["to_n"] == GATE_SIZES[-1][0]
        assert pair["growth"]["candidate_factor"] > 0 and pair["growth"]["baseline_factor"] > 0
    section = markdown[markdown.index("## Performance"):markdown.index("## Environment")]
    assert section.count(f"| {LARGEST} |") == 2 and section.count(f"Growth in n: from n={SMALLEST_N} to n=") == 2
    rows = first_screen(markdown).rows
    assert len(rows) == 2 and all(row["time ratio (99% interval), worst size"].endswith(f") at {LARGEST}") for row in rows)
