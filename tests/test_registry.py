"""The registry is data: entries name their solver by spec, one parser reads every spec."""

from pathlib import Path

import pytest

from knapcheck.reports.reproduction import import_lines
from knapcheck.solvers import catalog, registry, specs
from knapcheck.solvers.contract import Instance, ProblemTooLarge
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.isolation.running import run
from knapcheck.solvers.sliding_hirschberg import MAX_PROFILE_BYTES, sliding_hirschberg

PLANTED = Path(__file__).parent / "planted"
INSTANCE = Instance((0.0001, 0.0002), (1.0, 2.0), 0.0003)


@pytest.mark.parametrize(
    "text, kind, where, name",
    [
        ("torch", "torch_all", "", ""),
        ("torch:dp_knapsack", "torch", "torch", "dp_knapsack"),
        ("knapcheck.solvers.full_table:full_table", "module", "knapcheck.solvers.full_table", "full_table"),
        ("full_table", "name", "", "full_table"),
    ],
)
def test_one_parser_reads_every_form(text, kind, where, name):
    spec = specs.parse(text)
    assert (spec.kind, spec.where, spec.name) == (kind, where, name)
    assert str(spec) == text


def test_a_file_spec_is_resolved_to_an_absolute_path():
    spec = specs.parse("tests/planted/wrong_answers.py:takes_nothing")
    assert spec.kind == "file" and Path(spec.where).is_absolute()


@pytest.mark.parametrize("text", ["", "x.py:", "not a module:f", ":f"])
def test_a_malformed_spec_is_a_value_error_naming_it(text):
    with pytest.raises(ValueError, match="spec"):
        specs.parse(text)


@pytest.mark.parametrize(
    "spec, words",
    [
        (f"{PLANTED}/missing.py:solve", "does not exist"),
        (f"{PLANTED}/wrong_answers.py:no_such_function", "defines no 'no_such_function'"),
        ("os:getcwd", "cannot be called as solve(memory, runtimes, max_memory)"),
        ("os:sep", "not a function"),
        ("no_such_module_here:solve", "cannot import no_such_module_here"),
    ],
)
def test_loading_something_that_is_not_a_solver_says_what_is_wrong(spec, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        specs.load(spec)


def test_our_solvers_are_data_and_load_by_spec():
    for entry in catalog.OURS:
        assert entry.ours and specs.parse(entry.spec).kind == "module"
    assert registry.get("full_table") is registry.get("knapcheck.solvers.full_table:full_table")


def test_unregister_really_removes_a_built_in():
    entry = registry.resolve_one("full_table")
    registry.unregister("full_table")
    try:
        assert "full_table" not in {e.name for e in registry.registered()}
        with pytest.raises(ValueError, match="unknown solver 'full_table'"):
            registry.resolve("full_table")
    finally:
        registry.register(entry)
    assert registry.resolve_one("full_table") == entry


def test_entries_with_one_name_and_different_specs_run_their_own_solver():
    everything = SolverEntry("planted", "planted.wrong_answers:takes_everything", exact=True, origin="ours")
    nothing = SolverEntry("planted", "planted.wrong_answers:takes_nothing", exact=True, origin="ours")
    assert tuple(run(everything, INSTANCE).answer) == (3.0, [0, 1], [])
    assert tuple(run(nothing, INSTANCE).answer) == (0.0, [], [0, 1])


def test_every_solver_that_is_not_ours_is_isolated():
    for spec in ["torch", f"{PLANTED}/wrong_answers.py:takes_nothing", "planted.wrong_answers:takes_nothing"]:
        assert all(entry.isolate for entry in registry.resolve(spec))
    assert [entry.name for entry in registry.ours() if entry.isolate] == ["cuda"]


def test_a_spec_naming_our_solver_is_our_entry():
    assert registry.resolve("knapcheck.solvers.sliding_hirschberg:sliding_hirschberg") == [registry.resolve_one("sliding_hirschberg")]


def test_reproductions_import_what_the_spec_names():
    assert import_lines("knapcheck.solvers.full_table:full_table") == ["from knapcheck.solvers.full_table import full_table as solve"]
    assert import_lines("torch:dp_knapsack") == [
        "from torch._functorch._activation_checkpointing.knapsack import dp_knapsack as solve"
    ]


def test_sliding_hirschberg_refuses_a_huge_capacity_before_allocating_its_rows():
    """12 items of equal efficiency (the bound test decides none) and a capacity of 1e9 units after
    the gcd: two int32 rows would take 8 GB. Refused with the figure, before any allocation."""
    weights = [150_000_000 + 2_718_281 * k for k in range(12)]
    memory = [w / 10_000 for w in weights]
    with pytest.raises(ProblemTooLarge, match=r"needs 8000000064 bytes .* over MAX_PROFILE_BYTES"):
        sliding_hirschberg(memory, [float(w) for w in weights], (10**9 + 7) / 10_000)
    entry = registry.resolve_one("sliding_hirschberg")
    assert not entry.accepts(12, 10**9 + 7), "its entry declares it does not promise this size"
    assert entry.accepts(12, catalog.SLIDING_MAX_CAPACITY)
    assert 2 * (catalog.SLIDING_MAX_CAPACITY + 1) * 8 <= MAX_PROFILE_BYTES
