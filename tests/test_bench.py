"""knapcheck bench: the fixed matrix, fresh-process measurements, and the side-by-side table."""

from __future__ import annotations

import json
import statistics

from knapcheck.commands.cli import main
from knapcheck.fuzz.corpus.harvest_records import harvested_record
from knapcheck.fuzz.harvest.models import REAL_SIZE_MODELS
from knapcheck.measure.bench import (
    ROW_GROUPS,
    ROWS,
    BenchResult,
    BenchRow,
    Cell,
    PerCallRow,
    PisingerRow,
    Row,
    instance_for,
    measure_once,
    row_from_dict,
    run_bench,
)
from knapcheck.reports.bench_table import bench_tables, labels, tables_markdown
from knapcheck.solvers import registry
from knapcheck.solvers.full_table import full_table
from knapcheck.solvers.registry import resolve
from knapcheck.solvers.sliding_hirschberg import sliding_hirschberg

SMALL = BenchRow("small", 30, 0.5)


def test_the_matrix_is_the_issue_s():
    partitioner = [r for r in ROWS if r.total_memory == 1.0]
    assert {(r.n, r.max_memory) for r in partitioner} == {(n, b) for n in (100, 500, 2000) for b in (0.1, 0.5, 0.9)}
    assert all(r.capacity <= 10_000 for r in partitioner)
    large = [r for r in ROWS if r not in partitioner and not r.harvested]
    assert {(r.n, r.capacity) for r in large} == {(1000, 10**6), (2000, 10**7)}


def test_harvested_rows_are_the_committed_real_size_instances():
    rows = [r for r in ROWS if r.harvested]
    assert {r.name.split("@")[0] for r in rows} == set(REAL_SIZE_MODELS)
    for row in rows:
        instance = instance_for(row.as_dict())
        assert instance == harvested_record(row.name).instance
        assert (row.n, row.capacity) == (instance.n, instance.quantized()[1])


def test_row_instances_are_reproducible_and_flop_scale():
    first, again = instance_for(SMALL), instance_for(SMALL.as_dict())
    assert first == again and first.n == 30
    assert abs(sum(first.memory) - 1.0) < 1e-9
    assert all(r.is_integer() and 10**6 <= r <= 10**12 for r in first.runtimes)


def test_a_pair_the_registry_refuses_is_not_run():
    (dp_knapsack,) = resolve("torch:dp_knapsack")
    largest = max(ROWS, key=lambda row: row.capacity)
    result = run_bench([dp_knapsack], [largest], repeats=3)
    cell = result.cell("torch:dp_knapsack", largest)
    assert cell.failure == "too big" and not cell.seconds


def test_a_run_past_the_time_limit_is_a_timeout():
    (entry,) = resolve("sliding_hirschberg")
    assert measure_once(entry, SMALL, time_limit=0.05)["status"] == "timeout > 0.05 s"


def test_bench_command_measures_in_a_fresh_process_and_writes_the_raw_medians(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("knapcheck.measure.bench.ROWS", [SMALL])
    path = tmp_path / "bench.json"
    assert main(["bench", "--solvers", "sliding_hirschberg", "--baselines", "--repeats", "2", "--json", str(path)]) == 0
    table = capsys.readouterr().out
    line = next(line for line in table.splitlines() if line.startswith("| small |"))
    seconds, peak = line.strip("| ").split(" | ")[2].split(", ")
    assert seconds.endswith(" ms") or seconds.endswith(" s")
    assert peak.endswith("iB") or peak == "< 4 KiB"
    data = json.loads(path.read_text())
    assert data["schema_version"] == 1 and data["environment"]["torch"]["version"]
    (cell,) = data["cells"]
    assert (cell["solver"], cell["row"], len(cell["seconds"]), cell["failure"]) == ("sliding_hirschberg", "small", 2, None)
    assert cell["median_seconds"] == statistics.median(cell["seconds"])
    assert cell["problem_seconds"] == [[seconds] for seconds in cell["seconds"]], "one problem per repeat"


def test_by_default_our_solvers_are_measured_with_the_dp_only_variant(capsys, monkeypatch):
    """Which solvers a plain run measures (the fresh-process measurement itself is tested above)."""
    measured = []

    def measure_once(entry, row, time_limit, clock="wall"):
        measured.append(entry.name)
        return {"status": "ok", "seconds": 0.01, "problem_seconds": [0.01], "peak_bytes": 0, "value": 0.0}

    monkeypatch.setattr("knapcheck.measure.bench.measure_once", measure_once)
    monkeypatch.setattr("knapcheck.measure.bench.ROWS", [SMALL])
    assert main(["bench", "--baselines", "--repeats", "1"]) == 0
    ours_on_cpu = [e.name for e in registry.ours() if e.device == "cpu"]
    assert set(measured) == {*ours_on_cpu, "knapcheck.solvers.variants:sliding_hirschberg_dp_only"}
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| row |"))
    for solver in ("full_table", "sliding_hirschberg", "sliding_hirschberg_dp_only"):
        assert f"| {solver} |" in header
    assert "sliding_hirschberg_dp_only = knapcheck.solvers.variants:sliding_hirschberg_dp_only" in out


def test_the_clock_reaches_every_child_and_is_named_in_the_outputs(tmp_path, capsys, monkeypatch):
    clocks = []

    def measure_once(entry, row, time_limit, clock="wall"):
        clocks.append(clock)
        return {"status": "ok", "seconds": 0.01, "problem_seconds": [0.01], "peak_bytes": 0, "value": 0.0}

    monkeypatch.setattr("knapcheck.measure.bench.measure_once", measure_once)
    monkeypatch.setattr("knapcheck.measure.bench.ROWS", [SMALL])
    path = tmp_path / "bench.json"
    assert main(["bench", "--solvers", "expanding_core", "--baselines", "--repeats", "2", "--clock", "cpu", "--json", str(path)]) == 0
    assert clocks[1:] == ["cpu", "cpu"], "both repeats (the first run only prepares numba's cache, untimed)"
    assert "Times are the CPU time of the measuring process" in capsys.readouterr().out
    assert json.loads(path.read_text())["clock"] == "cpu"


def test_a_child_on_the_cpu_clock_measures_as_on_the_wall_clock():
    """The clock is the child's, whatever its solver: sliding_hirschberg's child does not wait for the
    run's numba compilation, as expanding_core's does (31 s on a fresh clone)."""
    (entry,) = resolve("sliding_hirschberg")
    result = measure_once(entry, SMALL, time_limit=120, clock="cpu")
    assert result["status"] == "ok" and result["seconds"] >= 0 and result["problem_seconds"] == [result["seconds"]]


def test_the_child_returns_the_solver_s_value():
    (entry,) = resolve("sliding_hirschberg")
    result = measure_once(entry, SMALL, time_limit=120)
    instance = instance_for(SMALL)
    assert result["status"] == "ok"
    assert result["value"] == sliding_hirschberg(list(instance.memory), list(instance.runtimes), instance.max_memory).value


def test_tables_show_medians_and_ratios_that_all_point_the_same_way():
    """Speed-up used to be baseline/ours but memory ours/baseline, and small ratios printed 0.00x."""
    measurements, ratios = bench_tables(_result(), ["torch:base"]).tables
    assert measurements.header == ["row", "C", "ours", "base"] and ratios.header == ["row", "ours"]
    assert [row[2:] for row in measurements.rows] == [
        ["2 s, < 4 KiB", "6 s, < 4 KiB"],
        ["4 s, 1 MiB", "2 s, 2 MiB"],
        ["5 s, 1 MiB", "timeout > 10 s"],
        ["1,000 s, 1 GiB", "1.23 s, 1 MiB"],
    ]
    assert [row[1] for row in ratios.rows] == ["3x, -", "0.5x, 2x", "-", "0.00123x, 0.000977x"]
    text = tables_markdown(bench_tables(_result(), ["torch:base"]))
    assert "Ratios against base: its time / the solver's, its memory / the solver's:" in text
    assert "base = torch:base" in text and "Ratios above 1: the solver is faster, or leaner" in text
    assert "ours vs torch:base: 1.25x as fast on the median of 4 rows; slower on b, d." in text


def test_labels_are_function_names_unless_that_is_ambiguous():
    assert labels(["full_table", "torch:dp_knapsack", "knapcheck.solvers.variants:dp_only"]) == {
        "full_table": "full_table", "torch:dp_knapsack": "dp_knapsack", "knapcheck.solvers.variants:dp_only": "dp_only"}
    assert labels(["/pr/knapsack.py:dp_knapsack", "torch:dp_knapsack"]) == {
        "/pr/knapsack.py:dp_knapsack": "knapsack.py:dp_knapsack", "torch:dp_knapsack": "torch:dp_knapsack"}


def test_the_default_tables_fit_a_page():
    """The README's table had 25 columns: now one per solver, and the ratios in a table of their own."""
    names = ["full_table", "sliding_hirschberg", "knapcheck.solvers.variants:sliding_hirschberg_dp_only",
             "torch:dp_knapsack_sliding_hirschberg", "torch:dp_knapsack"]
    cells = {(name, row.name): Cell(name, row.name, [0.0123], [12 * 2**20]) for name in names for row in ROWS}
    measurements, ratios = bench_tables(BenchResult(ROWS, names, 3, 150.0, cells), names[3:]).tables
    assert len(measurements.header) == 2 + len(names) and len(ratios.header) == 1 + 3
    for table in (measurements, ratios):
        widest_words = sum(max(len(word) for cell in column for word in cell.split()) for column in zip(table.header, *table.rows))
        assert widest_words <= 120, "a rendered table cannot get narrower than its longest words"


def _result() -> BenchResult:
    rows: list[Row] = [BenchRow("a", 10, 0.5), BenchRow("b", 20, 0.5), BenchRow("c", 30, 0.5), BenchRow("d", 40, 0.5)]
    cells = {
        ("ours", "a"): Cell("ours", "a", [1.0, 2.0, 9.0], [100, 200, 300]),
        ("ours", "b"): Cell("ours", "b", [4.0], [2**20]),
        ("ours", "c"): Cell("ours", "c", [5.0], [2**20]),
        ("ours", "d"): Cell("ours", "d", [1000.0], [2**30]),
        ("torch:base", "a"): Cell("torch:base", "a", [4.0, 8.0, 6.0], [100, 100, 100]),
        ("torch:base", "b"): Cell("torch:base", "b", [2.0], [2**21]),
        ("torch:base", "c"): Cell("torch:base", "c", failure="timeout > 10 s"),
        ("torch:base", "d"): Cell("torch:base", "d", [1.23], [2**20]),
    }
    return BenchResult(rows, ["ours", "torch:base"], 3, 10.0, cells)


def test_pisinger_rows_are_the_class_at_pisinger_s_sizes():
    row = PisingerRow("strong", "pisinger_strongly_correlated", 200, 10_000)
    assert row_from_dict(row.as_dict()) == row
    (instance,) = row.instances()
    weights, capacity = instance.quantized()
    assert len(weights) == 200 and all(1 <= w <= 10_000 for w in weights) and row.capacity == capacity
    assert all(r == w + 1000 for w, r in zip(weights, instance.runtimes))
    assert {(r.n, r.data_range) for r in ROW_GROUPS["pisinger"]} == {(1000, 1000), (10_000, 10_000)}


def test_a_per_call_row_times_every_call_in_one_process():
    row = PerCallRow("few", "pisinger_subset_sum,pisinger_uncorrelated", rounds=3, items=12, count=2)
    assert row_from_dict(row.as_dict()) == row and row.n == 12
    instances = row.instances()
    assert len(instances) == 4
    (entry,) = resolve("full_table")
    result = measure_once(entry, row, time_limit=120)
    assert result["status"] == "ok" and 0 < result["seconds"] < 1
    assert result["value"] == sum(full_table(list(i.memory), list(i.runtimes), i.max_memory).value for i in instances)
