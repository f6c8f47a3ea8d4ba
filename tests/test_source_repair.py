"""Repairs of known defects as source edits: applied only where their code matches unambiguously,
said why not otherwise, never twice, and together they repair torch's whole file."""

import difflib

import pytest
from torch_copies import (
    FINFO_TOLERANCE,
    SPLIT_FIX,
    SPLIT_HALVES_EXCHANGED,
    SPLIT_IN_HELPER,
    SPLIT_QUOTED,
    torch_source,
    width_named_split_fix,
    write_copy,
)

from knapcheck.fuzz.judging.known import repaired as repaired_module
from knapcheck.fuzz.judging.known.defects import CAUSES, HIRSCHBERG_SPLIT
from knapcheck.fuzz.judging.known.source_repair import Repair, function_lines, insert_before_call, repaired, replace_line

SLIDING = "dp_knapsack_sliding_hirschberg"
SPLIT_REPAIR = HIRSCHBERG_SPLIT.repairs[SLIDING]


def every_repair_of_torchs_file(source: str):
    """Each torch function's catalogued repairs applied to it, last function first (line numbers stay the original's)."""
    results: list = []
    for function in ("dp_knapsack_sliding_hirschberg", "dp_knapsack", "ilp_knapsack", "greedy_knapsack"):
        done = repaired(source, function, [(c.name, c.repairs[function]) for c in CAUSES.values() if function in c.repairs])
        source, results = done.source, [*done.results, *results]
    return source, results


def test_every_catalogued_repair_applies_to_torchs_file_once_and_not_again():
    source, results = every_repair_of_torchs_file(torch_source())
    assert all(r.applied for r in results), [(r.cause, r.why_not) for r in results if not r.applied]
    assert {r.cause for r in results} == set(CAUSES)
    again, results = every_repair_of_torchs_file(source)
    assert again == source, "a repaired file is repaired no further"
    assert not [r for r in results if r.applied]


def test_a_repair_names_the_lines_it_changed_in_the_original_file():
    original = torch_source()
    (result,) = repaired(original, SLIDING, [("hirschberg_split", SPLIT_REPAIR)]).results
    (hunk,) = result.hunks
    assert original.splitlines()[hunk.line - 1] == hunk.before
    assert hunk.before.strip() == "right_capacity = capacity - best_split"
    assert hunk.after.strip() == "right_capacity = (capacity - 1) - best_split"


def test_the_split_repair_is_the_split_fix_and_applies_where_the_halves_are_exchanged(tmp_path):
    fixed = write_copy(tmp_path / "fixed.py", SPLIT_FIX).read_text()
    done = repaired(torch_source(), SLIDING, [("hirschberg_split", SPLIT_REPAIR)])
    assert done.source == fixed
    exchanged = write_copy(tmp_path / "exchanged.py", SPLIT_HALVES_EXCHANGED).read_text()
    assert repaired(exchanged, SLIDING, [("hirschberg_split", SPLIT_REPAIR)]).results[0].applied


def test_a_repair_does_not_apply_where_its_code_was_rewritten_or_is_there_twice():
    source = torch_source()
    (gone,) = repaired(source.replace("right_capacity = capacity - best_split", "right_capacity = capacity + ~best_split"),
                       SLIDING, [("hirschberg_split", SPLIT_REPAIR)]).results
    assert not gone.applied and "`right_capacity = capacity - best_split` is not in it" in gone.why_not
    line = "        right_capacity = capacity - best_split\n"
    twice = source.replace(line, line + line)
    (ambiguous,) = repaired(twice, SLIDING, [("hirschberg_split", SPLIT_REPAIR)]).results
    assert not ambiguous.applied and "2 times" in ambiguous.why_not and "not clear" in ambiguous.why_not
    assert repaired(twice, SLIDING, [("hirschberg_split", SPLIT_REPAIR)]).source == twice


def test_a_repair_applies_only_inside_its_own_function():
    source = torch_source()
    (elsewhere,) = repaired(source, "dp_knapsack", [("hirschberg_split", SPLIT_REPAIR)]).results
    assert not elsewhere.applied and "(dp_knapsack's source)" in elsewhere.why_not
    (missing,) = repaired(source, "no_such_solver", [("hirschberg_split", SPLIT_REPAIR)]).results
    assert "defines no top-level function 'no_such_solver'" in missing.why_not


def test_spaces_between_tokens_and_a_trailing_comment_may_differ_and_the_comment_stays():
    source = "def f(capacity, best_split):\n    right_capacity  =  capacity-best_split  # the rest\n    return right_capacity\n"
    done = repaired(source, "f", [("hirschberg_split", SPLIT_REPAIR)])
    assert "    right_capacity = (capacity - 1) - best_split  # the rest\n" in done.source


def test_a_repair_that_would_not_compile_is_not_applied():
    source = "def f(x):\n    y = x\n    return y\n"
    broken = Repair("breaks", (replace_line("y = x", "y = (x"),))
    done = repaired(source, "f", [("broken", broken)])
    assert done.source == source and "would not compile" in done.results[0].why_not


def test_an_insertion_keeps_the_indentation_and_is_not_made_twice():
    source = "def f(memory):\n    if memory:\n        res = g(memory)\n    return res\n"
    guard = Repair("guard", (insert_before_call("g", ("if len(memory) == 0:", "    return 0")),))
    once = repaired(source, "f", [("guard", guard)]).source
    assert "        if len(memory) == 0:\n            return 0\n        res = g(memory)\n" in once
    assert repaired(once, "f", [("guard", guard)]).source == once


def test_function_lines_span_the_whole_definition():
    source = torch_source()
    first, last = function_lines(source, SLIDING)
    lines = source.splitlines()
    assert lines[first - 1].startswith(f"def {SLIDING}(") and "return max_runtime" in lines[last - 1]


@pytest.mark.parametrize("cause", sorted(CAUSES))
def test_each_repair_is_a_small_edit(cause):
    """The smallest edit that removes the defect: a few lines of the function, nothing else (the longest,
    ilp_knapsack's rounded read of HiGHS' answer with its branch on a fractional item, is 20 lines)."""
    source = torch_source()
    for function, repair in CAUSES[cause].repairs.items():
        done = repaired(source, function, [(cause, repair)])
        changed = [line for line in difflib.unified_diff(source.splitlines(), done.source.splitlines(), n=0)
                   if line[:1] in "+-" and not line.startswith(("+++", "---"))]
        assert 0 < len(changed) <= 20, changed


def test_a_repaired_source_is_kept_in_the_users_cache_by_its_content(tmp_path, monkeypatch):
    """Every process of a run finds it there (a campaign's workers too), and a killed run leaves no directory behind."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    written = repaired_module._write("x = 1\n")
    assert written.parent == tmp_path / "cache" / "knapcheck" / "repaired"
    assert repaired_module._write("x = 1\n") == written and written.read_text() == "x = 1\n"
    written.write_text("x = 2\n")
    assert repaired_module._write("x = 1\n").read_text() == "x = 1\n", "a copy that changed is written again"
    assert [p.name for p in written.parent.iterdir()] == [written.name]


def test_without_a_usable_cache_a_repaired_source_goes_to_a_temporary_directory(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    written = repaired_module._write("x = 1\n")
    assert written.read_text() == "x = 1\n" and written.parent.name.startswith("knapcheck-repaired-")


def test_a_docstring_or_comment_quoting_the_split_line_is_not_code(tmp_path):
    """Only the statement is found: the split repair applies once, on its line, and a quoted line in
    a docstring or comment neither matches nor makes the match ambiguous."""
    quoted = write_copy(tmp_path / "quoted.py", SPLIT_QUOTED).read_text()
    (result,) = repaired(quoted, SLIDING, [("hirschberg_split", SPLIT_REPAIR)]).results
    (hunk,) = result.hunks
    assert result.applied and hunk.before.strip() == "right_capacity = capacity - best_split"


def test_the_split_repair_does_not_apply_where_capacity_is_the_segments_and_applies_in_a_helper(tmp_path):
    width = width_named_split_fix(torch_source())
    (result,) = repaired(width, SLIDING, [("hirschberg_split", SPLIT_REPAIR)]).results
    assert not result.applied and "is right as it is" in result.why_not
    helper = write_copy(tmp_path / "helper.py", SPLIT_IN_HELPER).read_text()
    (result,) = repaired(helper, SLIDING, [("hirschberg_split", SPLIT_REPAIR)]).results
    assert result.applied and [h.function for h in result.hunks] == ["_split_capacities"]


def test_the_float32_repair_changes_the_tables_dtype_and_no_other_float32(tmp_path):
    source = write_copy(tmp_path / "finfo.py", FINFO_TOLERANCE).read_text()
    done = repaired(source, "dp_knapsack", [("float32", CAUSES["float32"].repairs["dp_knapsack"])])
    assert done.results[0].applied and "torch.finfo(torch.float32).eps" in done.source
    dp = done.source.split("def dp_knapsack(")[1].split("def dp_knapsack_sliding_hirschberg(")[0]
    assert dp.count("dtype=torch.float64") == 2 and "dtype=torch.float32" not in dp


def test_a_guard_of_the_empty_problem_with_another_condition_is_the_repair_already_there():
    guarded = torch_source().replace("    np_memory = np.array(memory)\n",
                                     "    if not memory:\n        return 0.0, [], []\n    np_memory = np.array(memory)\n", 1)
    (result,) = repaired(guarded, "ilp_knapsack", [("empty_problem", CAUSES["empty_problem"].repairs["ilp_knapsack"])]).results
    assert not result.applied and "answers a problem without items (`if not memory:`)" in result.why_not
