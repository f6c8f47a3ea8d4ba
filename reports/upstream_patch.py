"""A patch of the series as ``git format-patch`` writes it: a commit message naming the defect, its
upstream issue where there is one, and its reproduction; the change of torch's file; and the test
that shows it, added to upstream's ``test/functorch/test_ac_knapsack.py``
(``knapcheck.fuzz.judging.known.patch_series`` decides what each holds).

The test is a method of upstream's last test class, ``TestActivationCheckpointingKnapsack``, in its
style (a list of cases, one ``subTest`` each), added at the class's end: its hunk is placed by the
file's last lines alone (the two blank lines and ``if __name__ == "__main__":``), so every patch
of the series applies to upstream's file alone or after the others, whatever that file's length.
Its line numbers count from ``TESTS_END``, a nominal end of upstream's file; ``git apply`` and
``git am`` place a hunk by its context wherever the file has it.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Sequence

from ..fuzz.judging.known.defects import CAUSES
from ..fuzz.judging.known.patch_series import (
    CAVEATS,
    UPSTREAM_PATH,
    UPSTREAM_TESTS,
    DefectPatch,
    Hunk,
    ShownCase,
    formatted,
)
from .pytorch_tests import comment_lines

AUTHOR = "knapcheck <knapcheck@users.noreply.github.com>"
"""The patches' author: ``git am`` takes it; docs/gate.md shows how to make the commits your own."""
START = f"From {'0' * 40} Mon Sep 17 00:00:00 2001\nFrom: {AUTHOR}\n"
"""How every patch of a series begins (a file beginning so is knapcheck's, and may be written over)."""
TESTS_CLASS = "TestActivationCheckpointingKnapsack"
TESTS_IMPORT = frozenset({"dp_knapsack", "dp_knapsack_sliding_hirschberg"})
"""The solvers upstream's test file imports at its top; a test of another imports it in its body."""
TESTS_TAIL = ("\n", "\n", 'if __name__ == "__main__":\n')
"""The lines the tests are inserted above: the end of upstream's file."""
TESTS_END = 400
"""A nominal line of upstream's file's end (``TESTS_TAIL``), for the test hunks' headers."""


def _number(value: float) -> str:
    if not math.isfinite(value):
        raise ValueError(f"{value!r} is not finite")
    return repr(value)


def _numbers(values: Sequence[float]) -> str:
    return "[" + ", ".join(_number(v) for v in values) + "]"


def test_name(patch: DefectPatch) -> str:
    return f"test_{patch.function}_{patch.cause}"


def test_method(patch: DefectPatch) -> list[str]:
    """The test's lines, as PyTorch's formatter leaves them, indented for the class."""
    cause = CAUSES[patch.cause]
    exact = all(case.atol == 0 for case in patch.cases)
    issue = f" (#{patch.issue})" if patch.issue else ""
    families = ", ".join(sorted({case.family for case in patch.cases}))
    lines = [f"    def {test_name(patch)}(self):"]
    lines += comment_lines(f"{cause.what}{issue}. Found by knapcheck (families: {families}).", " " * 8, width=80)
    if patch.function not in TESTS_IMPORT:
        lines += [f"        from torch._functorch._activation_checkpointing.knapsack import {patch.function}", ""]
    fields = "memory, runtime, max_memory, expected_runtime, expected_saved" + ("" if exact else ", atol")
    lines.append(f"        for {fields} in [")
    for case in patch.cases:
        row = [_numbers(case.memory), _numbers(case.runtimes), _number(case.max_memory), _number(case.value),
               "[" + ", ".join(str(i) for i in case.saved) + "]"]
        lines.append(f"            ({', '.join(row + ([] if exact else [_number(case.atol)]))}),")
    tolerance = "atol=0, rtol=0" if exact else "atol=atol, rtol=0"
    lines += [
        "        ]:",
        "            with self.subTest(memory=memory, runtime=runtime, max_memory=max_memory):",
        f"                result_runtime, result_saved, result_recomputable = {patch.function}(memory, runtime, max_memory)",
        "                self.assertEqual(sorted(result_saved), expected_saved)",
        "                self.assertEqual(sorted(result_recomputable), [i for i in range(len(memory)) if i not in expected_saved])",
        f"                self.assertEqual(result_runtime, expected_runtime, {tolerance})",
    ]
    text = formatted(f"class {TESTS_CLASS}:\n" + "\n".join(lines) + "\n", UPSTREAM_TESTS)
    return text.splitlines(keepends=True)[1:]


def test_hunk(patch: DefectPatch, added_before: int) -> Hunk:
    """The test inserted at the end of upstream's last class; ``added_before``: the lines the
    patches before it in the series added to the file."""
    body = ["+\n", *("+" + line for line in test_method(patch)), *(" " + line for line in TESTS_TAIL)]
    start = TESTS_END - 3 + added_before
    return Hunk(start, start, tuple(body))


def _diff(path: str, hunks: Sequence[Hunk]) -> list[str]:
    lines = [f"diff --git a/{path} b/{path}\n", f"--- a/{path}\n", f"+++ b/{path}\n"]
    for hunk in hunks:
        lines.append(f"@@ -{hunk.old_start},{hunk.old_count} +{hunk.new_start},{hunk.new_count} @@\n")
        lines += hunk.lines
    return lines


def _stat(path: str, hunks: Sequence[Hunk]) -> tuple[str, int, int]:
    added = sum(1 for h in hunks for line in h.lines if line[0] == "+")
    removed = sum(1 for h in hunks for line in h.lines if line[0] == "-")
    return path, added, removed


def _case_call(patch: DefectPatch, case: ShownCase) -> list[str]:
    return [
        f"    from torch._functorch._activation_checkpointing.knapsack import {patch.function}",
        "",
        f"    {patch.function}({_numbers(case.memory)}, {_numbers(case.runtimes)}, {_number(case.max_memory)})",
        f"    # {case.torch_answer}",
        f"    # {_ascii(case.torch_wrong)}",
        f"    # with this patch: ({_number(case.value)}, {list(case.saved)}, ...)",
    ]


def _ascii(text: str) -> str:
    return re.sub(r"[^\x20-\x7e]+", " ", text)


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(_ascii(text), width=72)


def message(patch: DefectPatch) -> list[str]:
    """The commit message's body: the defect, the fix, the issue, the reproduction, the test."""
    cause = CAUSES[patch.cause]
    repair = cause.repairs[patch.function]
    paragraphs = [
        _wrapped(f"{patch.function}: {cause.what}. The defect reaches {cause.reach}."),
        _wrapped(f"This patch: {repair.what}."),
    ]
    if patch.cause in CAVEATS:
        paragraphs.append(_wrapped(f"What it leaves: {CAVEATS[patch.cause]}"))
    if patch.issue:
        paragraphs.append([f"Fixes #{patch.issue}"])
    if patch.cases:
        first = patch.cases[0]
        paragraphs.append([f"Reproduction (found by knapcheck, family {first.family}):", "", *_case_call(patch, first)])
        more = len(patch.cases) - 1
        paragraphs.append(_wrapped(
            f"{test_name(patch)}, added to {UPSTREAM_TESTS}, holds this case{f' and {more} more' if more else ''}:"
            " it fails without this patch and passes with it."))
    else:
        paragraphs.append(_wrapped(f"No corpus case of this defect is both solved by the patched function and shown"
                                   f" wrong on torch's: {patch.left_out} left out, no test added."))
    paragraphs.append(_wrapped(
        "Checked with knapcheck (`knapcheck repair torch --series DIR` wrote this patch): torch's file with only"
        " this patch applied passes the differential gate against the installed torch on the regression"
        " corpus, with exactly this defect counted as fixed (docs/gate.md shows the commands)."))
    return [line for paragraph in paragraphs for line in [*paragraph, ""]]


def render(patch: DefectPatch, number: int, total: int, source_hunks: Sequence[Hunk], tests_added_before: int,
           version: str) -> str:
    """The patch file's text."""
    tests = [test_hunk(patch, tests_added_before)] if patch.cases else []
    files = [(UPSTREAM_PATH, source_hunks)] + ([(UPSTREAM_TESTS, tests)] if tests else [])
    stats = [_stat(path, hunks) for path, hunks in files]
    width = max(len(path) for path, _, _ in stats)
    added, removed = sum(a for _, a, _ in stats), sum(r for _, _, r in stats)
    lines = [
        START,
        f"Subject: [PATCH {number:02d}/{total:02d}] [knapsack] {patch.function}: {patch.title}\n",
        "\n",
        *(line + "\n" if line else "\n" for line in message(patch)),
        "---\n",
        *(f" {path:<{width}} | {added + removed} {'+' * added}{'-' * removed}\n" for path, added, removed in stats),
        f" {len(stats)} file{'s' if len(stats) > 1 else ''} changed, {_counted(added, 'insertion')}(+),"
        f" {_counted(removed, 'deletion')}(-)\n",
        "\n",
    ]
    for path, hunks in files:
        lines += _diff(path, hunks)
    lines += ["-- \n", f"knapcheck {version}\n", "\n"]
    return "".join(lines)


def _counted(count: int, what: str) -> str:
    return f"{count} {what}{'' if count == 1 else 's'}"


def file_name(patch: DefectPatch, number: int) -> str:
    """``0001-dp_knapsack-float32.patch``: the number, the function and the cause."""
    return f"{number:04d}-{patch.function}-{patch.cause}.patch"
