"""``SPEC<SOURCE.py``: SOURCE.py's code is what runs, in every form that accepts it, and every other
form is refused in one line. SOURCE.py here is a planted wrong solver: its verdict, never that of
the code the spec names, proves which code ran."""

from pathlib import Path

import pytest
from torch_copies import write_copy

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main
from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.judging.known.by_cause import Causes
from knapcheck.fuzz.judging.known.known import same_solver
from knapcheck.fuzz.judging.verdicts.differential import check
from knapcheck.oracles.verdict import Verdict
from knapcheck.reports.reproduction import import_lines
from knapcheck.solvers import registry, specs
from knapcheck.solvers.contract import Instance

INSTANCE = Instance((0.0001, 0.0002), (1.0, 2.0), 0.0003)
"""Both items fit: the optimum saves both, 3.0."""
SAVES_NOTHING = '''
def dp_knapsack(memory, runtimes, max_memory):
    """Planted: saves nothing, SUBOPTIMAL wherever something fits."""
    return 0.0, [], list(range(len(memory)))
'''
BESIDE_TORCHS = '''
from .knapsack import greedy_knapsack


def dp_knapsack(memory, runtimes, max_memory):
    """Planted: torch's greedy_knapsack, imported relatively from the module beside this one, with
    its saved items dropped."""
    value, saved, recomputable = greedy_knapsack(memory, runtimes, max_memory)
    return 0.0, [], sorted(saved + recomputable)
'''


@pytest.fixture
def source(tmp_path) -> Path:
    path = tmp_path / "planted.py"
    path.write_text(SAVES_NOTHING)
    return path


@pytest.fixture
def copy(tmp_path) -> Path:
    """An unchanged copy of torch's knapsack.py: OPTIMAL on INSTANCE, were its own code run."""
    return write_copy(tmp_path / "knapsack.py")


def forms(copy: Path) -> dict[str, str]:
    """Every form that takes ``<SOURCE.py``, naming code that is OPTIMAL on INSTANCE."""
    return {
        "file": f"{copy}:dp_knapsack",
        "torch": "torch:dp_knapsack",
        "module": "knapcheck.solvers.full_table:dp_knapsack",
    }


@pytest.mark.parametrize("form", ["file", "torch", "module"])
def test_the_code_read_from_source_is_what_runs(form, copy, source):
    named = forms(copy)[form]
    if form != "module":  # knapcheck.solvers.full_table defines no dp_knapsack: only SOURCE.py does
        assert check(registry.resolve_one(named), INSTANCE).verdict is Verdict.OPTIMAL
    entry = registry.resolve_one(f"{named}<{source}")
    assert entry.isolate and entry.name == f"{named}<{source}" and entry.origin == f"file {source}"
    done = check(entry, INSTANCE)
    assert done.verdict is Verdict.SUBOPTIMAL and tuple(done.outcome.answer) == (0.0, [], [0, 1])


def test_torch_read_from_source_keeps_torchs_promise_but_not_its_name(source):
    entry = registry.resolve_one(f"torch:dp_knapsack<{source}")
    torchs = registry.resolve_one("torch:dp_knapsack")
    assert (entry.exact, entry.max_cells) == (torchs.exact, torchs.max_cells)
    assert registry.promise_basis(entry) == "named like torch's dp_knapsack"
    greedy = registry.resolve_one(f"torch:greedy_knapsack<{source}")
    assert not greedy.exact, "judged on the promise of torch's greedy_knapsack: a heuristic"


def test_torch_read_from_source_is_a_sibling_of_torchs_module(tmp_path):
    """Its relative imports load the installed torch's modules."""
    path = tmp_path / "beside.py"
    path.write_text(BESIDE_TORCHS)
    done = check(registry.resolve_one(f"torch:dp_knapsack<{path}"), INSTANCE)
    assert done.verdict is Verdict.SUBOPTIMAL and tuple(done.outcome.answer) == (0.0, [], [0, 1])


@pytest.mark.parametrize("form", ["file", "torch", "module"])
def test_the_reproduction_loads_the_code_read_from_source(form, copy, source, monkeypatch):
    monkeypatch.chdir(source.parent)
    lines = import_lines(f"{forms(copy)[form]}<{source}")
    assert lines[-1] == f"solve = load({specs.shown(f'{forms(copy)[form]}<{source}')!r})"
    namespace: dict = {}
    exec("\n".join(lines), namespace)
    assert namespace["solve"](list(INSTANCE.memory), list(INSTANCE.runtimes), INSTANCE.max_memory) == (0.0, [], [0, 1])


def test_a_case_of_torch_read_from_source_is_not_torchs(source):
    assert same_solver("torch:dp_knapsack", "torch:dp_knapsack")
    assert not same_solver("torch:dp_knapsack", f"torch:dp_knapsack<{source}")
    assert same_solver(f"torch:dp_knapsack<{source}", "torch:dp_knapsack"), "a copy still has torch's known defects"


@pytest.mark.parametrize("named", ["torch", "full_table", "ours", "knapsack.py"])
def test_a_form_that_cannot_read_from_source_is_one_line_and_exit_2(named, copy, source, capsys, monkeypatch):
    monkeypatch.chdir(copy.parent)
    assert main(["check", "--targets", f"{named}<{source}", "--families", "tiny", "--per-family", "1"]) == exit_status.USAGE
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert "only FILE.py:NAME, torch:NAME and module:NAME can be read from another file (<SOURCE.py)" in err
    with pytest.raises(ValueError, match="can be read from another file"):
        registry.resolve(f"{named}<{source}")


def test_a_missing_source_is_one_line_and_exit_2(tmp_path, capsys):
    missing = tmp_path / "missing.py"
    assert main(["check", "--targets", f"torch:dp_knapsack<{missing}", "--families", "tiny", "--per-family", "1"]) \
        == exit_status.USAGE
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and f"source file {missing} does not exist" in err


def test_the_intervention_repairs_the_code_read_from_source(copy, source):
    """Torch's known defects are repaired in SOURCE.py, the code that ran, never in the file or
    module the spec names: repairing torch's own dp_knapsack would make it OPTIMAL wherever torch is,
    and the planted solver's failures there would read as torch's defects, moved."""
    baseline = registry.resolve_one("torch:dp_knapsack")
    causes = Causes([baseline], load_known_failures())
    assert causes.intervention(registry.resolve_one(f"{copy}:dp_knapsack"), baseline).applied
    for named in (f"{copy}:dp_knapsack<{source}", f"torch:dp_knapsack<{source}"):
        done = causes.intervention(registry.resolve_one(named), baseline)
        assert not done.applied and done.not_applied, named
