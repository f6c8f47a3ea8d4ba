"""The pytest plugin (`pytest --knapcheck-target SPEC`), run as a user runs it: pytest in a fresh
directory, in a subprocess, with the plugin loaded through its entry point."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from torch_copies import ITEM_REUSE, SPLIT_FIX, SPLIT_HALVES_EXCHANGED, write_copy

from knapcheck.commands.solver_log import LOG_LIMIT
from knapcheck.fuzz.corpus.known_failures import load_known_failures
from knapcheck.fuzz.instances import families
from knapcheck.fuzz.judging.verdicts.differential import size_allows
from knapcheck.solvers.registry import resolve_one

pytest_plugins = ["pytester"]

TIME_LIMIT = 600
PLANTED = Path(__file__).parent / "planted"
SMALL = ["--knapcheck-families", "tiny", "--knapcheck-per-family", "3"]
"""A small selection: three tiny instances and the corpus's cases per target."""
CORPUS_CASES = len(load_known_failures())

USER_TEST = """
def test_something_of_the_users():
    assert 1 + 1 == 2
"""


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=TIME_LIMIT)


def nodeids(lines: list[str]) -> list[str]:
    """The knapcheck test ids in pytest's output, in order."""
    return re.findall(r"(knapcheck::\S+\])", "\n".join(lines))


def test_without_a_target_the_plugin_changes_nothing(pytester):
    pytester.makepyfile(test_users=USER_TEST)
    with_plugin = run(pytester, "--collect-only", "-q")
    without = run(pytester, "--collect-only", "-q", "-p", "no:knapcheck")
    assert with_plugin.ret == without.ret == 0
    assert with_plugin.outlines[:-1] == without.outlines[:-1] == ["test_users.py::test_something_of_the_users", ""]
    assert "knapcheck" not in with_plugin.stdout.str()


def test_the_plugin_is_loaded_through_its_entry_point_and_imports_nothing_heavy():
    probe = (
        "import sys, importlib.metadata as m;"
        "found = [e.value for e in m.entry_points(group='pytest11') if e.name == 'knapcheck'];"
        "import knapcheck.pytest_plugin;"
        "heavy = sorted({n.split('.')[0] for n in sys.modules} & {'torch', 'hypothesis', 'ortools', 'numpy', 'scipy'});"
        "print(found, heavy)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "['knapcheck.pytest_plugin'] []", done.stderr


def test_an_unchanged_copy_of_torch_passes_against_torch(pytester):
    write_copy(pytester.path / "knapsack.py")
    result = run(pytester, "--knapcheck-target", "knapsack.py", "--knapcheck-baseline", "torch", *SMALL, "-rx")
    outcomes = result.parseoutcomes()
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert outcomes.get("failed", 0) == 0 and outcomes.get("error", 0) == 0
    # every function of the file, each on 3 tiny instances and the corpus's cases
    assert outcomes["passed"] + outcomes["xfailed"] == 4 * (3 + CORPUS_CASES)
    # torch's own defects are there, as expected failures saying the baseline shares them
    assert outcomes["xfailed"] > 0
    assert "also in baseline torch:dp_knapsack_sliding_hirschberg: OVER_BUDGET" in result.stdout.str()
    assert not (pytester.path / ".hypothesis").exists()


def test_each_function_of_an_unchanged_copy_passes_where_its_size_limits_are_reached(pytester):
    """weight_limits reaches capacities past what torch's dp_knapsack and sliding Hirschberg promise:
    neither the copy nor torch is run there, as knapcheck check and report run neither. The copy's
    functions were run anyway and failed as regressions (OUT_OF_MEMORY, allocating 17 GB to 36 PB)."""
    write_copy(pytester.path / "knapsack.py")
    names = ("dp_knapsack", "dp_knapsack_sliding_hirschberg", "greedy_knapsack", "ilp_knapsack")
    entries = {name: resolve_one(f"{pytester.path / 'knapsack.py'}:{name}") for name in names}
    instances = families.get("weight_limits").draw(1, 0)
    past = {name: sum(not size_allows(entry, instance) for instance in instances) for name, entry in entries.items()}
    assert past["dp_knapsack"] and past["dp_knapsack_sliding_hirschberg"], "the family reaches the size limits"
    result = run(pytester, "--knapcheck-target", "knapsack.py", "--knapcheck-baseline", "torch",
                 "--knapcheck-families", "weight_limits", "-k", "weight_limits", "-rs")
    outcomes = result.parseoutcomes()
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert outcomes.get("failed", 0) == 0 and outcomes["skipped"] == sum(past.values())
    skipped = [line for line in result.outlines if line.startswith("SKIPPED")]
    assert all("not run: knapsack.py:dp_knapsack" in line and "does not promise to solve" in line for line in skipped)


def test_a_planted_bug_fails_with_a_reproduction_that_fails_when_run(pytester):
    write_copy(pytester.path / "knapsack.py", ITEM_REUSE)
    result = run(pytester, "--knapcheck-target", "knapsack.py:dp_knapsack", "--knapcheck-baseline", "torch",
                 "--knapcheck-families", "large_capacity")
    assert result.ret == 1
    text = result.stdout.str()
    assert re.search(r"knapsack\.py:dp_knapsack: WRONG_VALUE on large_capacity\[\d+\] \(instance [0-9a-f]{16}\)", text)
    assert "(a regression)" in text and "baseline torch:dp_knapsack: OPTIMAL on the same instance" in text
    message = text.split("reproduce with this snippet (it fails when run as shown):\n\n", 1)[1]
    snippet = message.split("\n_____", 1)[0].split("\n=====", 1)[0]
    assert snippet.startswith("import math\n")
    script = pytester.path / "reproduce.py"
    script.write_text(snippet)
    # run from the directory pytest ran in: the snippet names the target as typed there
    pasted = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=pytester.path)
    assert pasted.returncode == 1
    assert pasted.stderr.strip().splitlines()[-1].startswith("AssertionError: WRONG_VALUE: reported")
    # the snippet runs torch's dp_knapsack on the instance first, which passes; then the copy, which fails
    assert "reproduce(baseline)" in snippet
    assert "    reproduce(solve)" in pasted.stderr and "reproduce(baseline)" not in pasted.stderr


def test_a_known_defect_of_the_baseline_a_fix_makes_visible_is_an_expected_failure(pytester):
    """The split fix is SUBOPTIMAL on float32_limits where torch is OPTIMAL or OVER_BUDGET: torch's
    float32 defect, no longer hidden behind the split's. Those tests used to fail as regressions."""
    write_copy(pytester.path / "knapsack.py", SPLIT_FIX)
    result = run(pytester, "--knapcheck-target", "knapsack.py:dp_knapsack_sliding_hirschberg", "--knapcheck-baseline",
                 "torch", "--knapcheck-families", "float32_limits", "--knapcheck-per-family", "40", "-rx")
    assert result.ret == 0, result.stdout.str()[-3000:]
    visible = [line for line in result.outlines if "now visible" in line]
    assert len(visible) == 2 and all(
        "known defect of the baseline torch:dp_knapsack_sliding_hirschberg, now visible (float32 arithmetic:" in line
        and "SUBOPTIMAL" in line for line in visible)


def test_a_change_that_moves_torchs_split_defect_passes_and_each_moved_failure_names_its_repair(pytester):
    """The two halves exchanged: over budget where torch is optimal, optimal there with torch's
    split repaired in the copy's source. Expected failures, never failures."""
    write_copy(pytester.path / "knapsack.py", SPLIT_HALVES_EXCHANGED)
    result = run(pytester, "--knapcheck-target", "knapsack.py:dp_knapsack_sliding_hirschberg", "--knapcheck-baseline",
                 "torch", "--knapcheck-families", "tiny", "--knapcheck-per-family", "40", "-rx")
    assert result.ret == 0, result.stdout.str()[-3000:]
    moved = [line for line in result.outlines if "the failure is that known defect, moved" in line]
    assert moved and all("(the Hirschberg split hands" in line and "OVER_BUDGET" in line
                         and "repaired in its source (hirschberg_split" in line for line in moved)


def test_the_collection_is_the_same_with_xdist_workers_and_without(pytester):
    write_copy(pytester.path / "knapsack.py")
    options = ["--knapcheck-target", "knapsack.py:dp_knapsack_sliding_hirschberg", "--knapcheck-baseline", "torch",
               "--knapcheck-families", "tiny", "tight_budget", "--knapcheck-per-family", "4"]
    collected = pytester.runpytest_inprocess("-p", "no:cacheprovider", *options, "--collect-only", "-q")
    assert collected.ret == 0
    listed = nodeids(collected.outlines)
    assert len(listed) == 2 * 4 + CORPUS_CASES
    # (xdist sits out --collect-only.) Two workers each collect on their own, and xdist refuses to
    # run when their collections differ; they run exactly what one process collects.
    distributed = run(pytester, *options, "-n", "2", "-v")
    assert distributed.ret == 0, distributed.stdout.str()[-3000:]
    assert "Different tests were collected" not in distributed.stdout.str()
    assert sorted(set(nodeids(distributed.outlines))) == sorted(listed)


def test_k_selects_a_family_and_without_a_baseline_every_failure_fails(pytester):
    result = run(pytester, "--knapcheck-target", "torch:dp_knapsack_sliding_hirschberg",
                 "--knapcheck-families", "tiny", "large_capacity", "-k", "large_capacity", "-q")
    outcomes = result.parseoutcomes()
    assert result.ret == 1
    assert outcomes["deselected"] == 10 + CORPUS_CASES
    assert outcomes["failed"] + outcomes["passed"] == 144
    assert "xfailed" not in outcomes, "without a baseline nothing is an expected failure"
    assert "FAILED knapcheck::dp_knapsack_sliding_hirschberg::large_capacity[" in result.stdout.str()


@pytest.mark.parametrize("options, error", [
    (["--knapcheck-target", "torch", "--knapcheck-families", "nosuch"], "unknown instance family 'nosuch'"),
    (["--knapcheck-target", "missing.py"], "--knapcheck-target missing.py: no such file"),
    (["--knapcheck-target", "torch", "--knapcheck-per-family", "0"], "--knapcheck-per-family must be at least 1"),
    (["--knapcheck-target", "nosuch"], "unknown solver 'nosuch'"),
])
def test_a_mistake_in_the_options_is_one_line_and_a_usage_error(pytester, options, error):
    result = run(pytester, *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert error in result.stderr.str()
    assert "Traceback" not in result.stderr.str()


def test_a_target_file_that_is_a_fifo_is_refused_without_reading_it(pytester):
    os.mkfifo(pytester.path / "knapsack.py")
    result = run(pytester, "--knapcheck-target", "knapsack.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--knapcheck-target knapsack.py: not a regular file" in result.stderr.str()


def test_a_target_that_cannot_be_loaded_is_one_collection_error(pytester):
    pytester.makepyfile(knapsack="import nosuchmodule\n\ndef dp_knapsack(memory, runtimes, max_memory):\n    pass\n")
    result = run(pytester, "--knapcheck-target", "knapsack.py", *SMALL)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    text = result.stdout.str()
    assert "knapcheck: cannot load" in text and "No module named 'nosuchmodule'" in text
    assert text.count("ERROR knapcheck") == 1


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "two xdist workers"])
def test_what_targets_print_goes_to_one_capped_log_not_into_pytests_output(pytester, workers):
    """A target printing 96 MiB a call (it went into pytest's output, 192 MiB of it for two calls):
    pytest's output stays small, and the run keeps at most LOG_LIMIT bytes in one log, each process
    its share, with the note that says where it was cut."""
    result = run(pytester, "--knapcheck-target", f"{PLANTED / 'chatty.py'}:floods", *SMALL[:2],
                 "--knapcheck-per-family", "2", "-k", "tiny", *workers)
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert len(result.stdout.str()) + len(result.stderr.str()) < 10_000
    (line,) = [line for line in result.outlines if "what the targets printed" in line]
    log = Path(line.split(" is in ", 1)[1].split(" (truncated", 1)[0])
    try:
        text = log.read_bytes()
        assert LOG_LIMIT <= len(text) < LOG_LIMIT + 1000
        assert text.count(b"[knapcheck: log truncated at ") == max(1, len(workers))
    finally:
        log.unlink()
