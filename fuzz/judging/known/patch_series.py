"""The upstream pull requests for torch's known defects: one patch per catalogued defect, as a series.

Each defect's repair (``knapcheck.fuzz.judging.known.defects``) is applied alone to torch's file and the
result formatted by ruff under PyTorch's own settings (``pytorch_ruff.toml``); what changed is the
patch's lines, taken as line changes of torch's file (``LineChange``). The repairs change lines
apart from one another, so any set of them is torch's file with those changes: the series in order
is the file with the first k patches' changes, and each patch applies alone to torch's file too.
For that, a hunk's context stops short of any line another patch changes (``hunks``): it then
matches both torch's file and the file the earlier patches made.

Each patch carries the tests that show its defect (``ShownCase``): the known-failure corpus's cases of
that defect in that function, each with the answer of torch's function with only that patch
applied (valid, and optimal for the solvers that promise it, or the case is left out) and torch's
own answer, which the test must reject (or the case is left out too: it would not show the defect).
``knapcheck.reports.upstream_patch`` writes them as a ``git format-patch`` file.
"""

from __future__ import annotations

import difflib
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ....solvers import specs
from ....solvers.contract import float_tolerance
from ....solvers.contract.answer import Answer, plain_answer
from ....solvers.entry import SolverEntry
from ...corpus.known_failures import KnownFailure
from ..verdicts.differential import Check, check
from .defects import CAUSES
from .repaired import Intervention, variant
from .source_repair import Applied, repaired

UPSTREAM_PATH = "torch/_functorch/_activation_checkpointing/knapsack.py"
"""Where torch's file sits in a PyTorch checkout."""
UPSTREAM_TESTS = "test/functorch/test_ac_knapsack.py"
"""Upstream's tests of the solvers, in a PyTorch checkout (not in torch's wheel)."""
RUFF_SETTINGS = Path(__file__).with_name("pytorch_ruff.toml")
CONTEXT = 3
"""Lines of context of a hunk, as git format-patch writes them, where no other patch's change is nearer."""
UPSTREAM_ISSUES = {"hirschberg_split": 197871}
"""PyTorch's issue for a defect, where one is filed."""
CAVEATS = {
    "solution_read": (
        "HiGHS still takes an x within 1e-6 of 1 as integral, so where that is a whole unit of an item's"
        " quantized weight, the rounded answer over-fills the budget by a unit; there the patch reads x as"
        " before (== 1), torch's answer. On memory=[104.8577, 100.0, 0.0002, 0.0001], runtimes=[8.0, 6.0, 2.0,"
        " 1.0], max_memory=104.8579 (weights 1048577, 1000000, 2 and 1 units, a capacity of 1048579) rounding"
        " would save [0, 2, 3], 1048580 units; the whole series returns torch's (3.0, [2, 3], [0, 1]), where"
        " the optimum is 10.0 (items 0 and 2). Finding that optimum needs a branch on item 0, a solver of its"
        " own inside ilp_knapsack, which this patch leaves out."
    ),
}
"""What a patch leaves as it was, in words, with the instance that shows it."""


class FormatError(ValueError):
    """ruff could not be run, or refused the source."""


def formatted(source: str, path: str = UPSTREAM_PATH) -> str:
    """``source`` as PyTorch's formatter leaves it: ``ruff format`` under ``pytorch_ruff.toml``."""
    try:
        done = subprocess.run([sys.executable, "-m", "ruff", "format", "--config", str(RUFF_SETTINGS),
                               "--stdin-filename", path, "-"], input=source, capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FormatError(f"ruff cannot be run ({exc})") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise FormatError(f"ruff format failed: {last} (is ruff installed? pip install ruff)")
    return done.stdout


@dataclass(frozen=True)
class LineChange:
    """Lines ``start`` to ``end`` (0-based, end excluded) of torch's file replaced by ``lines``; an
    insertion above line ``start`` where ``end == start``."""

    start: int
    end: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class ShownCase:
    """A corpus case of the defect, as the patch's test holds it."""

    memory: tuple[float, ...]
    runtimes: tuple[float, ...]
    max_memory: float
    value: float
    """What torch's function returns with the patch: its saved runtimes' total."""
    saved: tuple[int, ...]
    atol: float
    """How far the value may be off (0 where the runtimes add up exactly in float64)."""
    family: str
    torch_answer: str
    """What torch's function does on it, in words (its answer, or what it raised)."""
    torch_wrong: str
    """What is wrong with that, as knapcheck's judge says."""


@dataclass(frozen=True)
class DefectPatch:
    cause: str
    function: str
    title: str
    """The fix, as the commit's subject says it."""
    changes: tuple[LineChange, ...]
    cases: tuple[ShownCase, ...]
    left_out: int = 0
    """Corpus cases of the defect that show nothing on torch, or that the patched function does not solve."""

    @property
    def issue(self) -> int | None:
        return UPSTREAM_ISSUES.get(self.cause)


def line_changes(before: str, after: str) -> tuple[LineChange, ...]:
    lines, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, lines, new, autojunk=False)
    return tuple(LineChange(i1, i2, tuple(new[j1:j2])) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")


def with_changes(source: str, patches: Iterable[DefectPatch]) -> str:
    """torch's file with the changes of ``patches`` (any of the series, in any order)."""
    lines = source.splitlines(keepends=True)
    for change in sorted((c for p in patches for c in p.changes), key=lambda c: (c.start, c.end), reverse=True):
        lines[change.start:change.end] = change.lines
    return "".join(lines)


def _clash(patches: Sequence[DefectPatch]) -> str:
    """Two patches that change the same lines of torch's file (or insert at one place), in words; ''."""
    spans = sorted((c.start, c.end, p.cause, p.function) for p in patches for c in p.changes)
    for (start, end, *one), (next_start, next_end, *other) in zip(spans, spans[1:]):
        if next_start < end or (next_start == start and (start == end or next_start == next_end)):
            return f"{one[1]} ({one[0]}) and {other[1]} ({other[0]}) change line {next_start + 1}"
    return ""


Shown = Callable[[str, str, str], tuple[tuple[ShownCase, ...], int]]
"""(function, cause, torch's file with that patch alone) -> the patch's cases, and how many were left out."""


def series(source: str, results: Iterable[Applied], shown: Shown) -> list[DefectPatch]:
    """One patch per applied repair of ``results`` on torch's file ``source``, in the order of the
    lines they change, each with the cases ``shown`` finds. ValueError where two patches would
    change the same lines, or where ruff fails (FormatError)."""
    patches = []
    for result in results:
        if not result.applied:
            continue
        repair = CAUSES[result.cause].repairs[result.function]
        alone = repaired(source, result.function, [(result.cause, repair)])
        if alone.not_applied:
            raise ValueError(f"{result.function}: {result.cause}'s repair does not apply alone: {alone.not_applied[0].why_not}")
        patched = formatted(alone.source)
        changes = line_changes(source, patched)
        cases, left_out = shown(result.function, result.cause, patched)
        patches.append(DefectPatch(result.cause, result.function, repair.title or repair.what, changes, cases, left_out))
    patches.sort(key=lambda p: (p.changes[0].start if p.changes else 0))
    clash = _clash(patches)
    if clash:
        raise ValueError(f"the patches cannot each apply alone: {clash}")
    return patches


@dataclass(frozen=True)
class Hunk:
    old_start: int
    """1-based, in the file the earlier patches of the series made (0 for an insertion into an empty file)."""
    new_start: int
    lines: tuple[str, ...]
    """Each line with its prefix: ' ' context, '-' removed, '+' added (each ends in a newline)."""

    @property
    def old_count(self) -> int:
        return sum(1 for line in self.lines if line[0] in " -")

    @property
    def new_count(self) -> int:
        return sum(1 for line in self.lines if line[0] in " +")


def hunks(source: str, patches: Sequence[DefectPatch], index: int) -> list[Hunk]:
    """The hunks of ``patches[index]`` against the file the patches before it in the series made.
    A hunk's context is the unchanged lines of torch's file around its change, up to CONTEXT on each
    side, stopping at a line another patch changes or a place it inserts at: so the hunk matches
    torch's file and the series' file alike. ValueError where a change would keep no line after it
    (git apply would then take the hunk for the file's end)."""
    lines = source.splitlines(keepends=True)
    patch = patches[index]
    others = [c for k, p in enumerate(patches) if k != index for c in p.changes]
    earlier = [c for p in patches[:index] for c in p.changes]

    def free(line: int) -> bool:
        return 0 <= line < len(lines) and not any(c.start <= line < c.end for c in others)

    def joined(line: int) -> bool:
        """No other patch inserts between ``line`` and the one after it."""
        return not any(c.start == c.end == line + 1 for c in others)

    groups: list[list[LineChange]] = []
    for change in patch.changes:
        end = groups[-1][-1].end if groups else 0
        if groups and change.start - end <= 2 * CONTEXT and all(free(line) for line in range(end, change.start)) \
                and all(joined(line) for line in range(end - 1, change.start)):
            groups[-1].append(change)
        else:
            groups.append([change])
    found = []
    for group in groups:
        first, last = group[0].start, group[-1].end
        before = 0
        while before < CONTEXT and free(first - before - 1) and joined(first - before - 1):
            before += 1
        after = 0
        while after < CONTEXT and free(last + after) and joined(last + after - 1):
            after += 1
        if after == 0 and last < len(lines):
            raise ValueError(f"{patch.function} ({patch.cause}): line {last + 1} is changed by another patch, right"
                             " after this one's change: the hunk would keep no line after its change")
        body = [" " + line for line in lines[first - before:first]]
        position = first
        for change in group:
            body += [" " + line for line in lines[position:change.start]]
            body += ["-" + line for line in lines[change.start:change.end]]
            body += ["+" + line for line in change.lines]
            position = change.end
        body += [" " + line for line in lines[last:last + after]]
        shift = sum(len(c.lines) - (c.end - c.start) for c in earlier if c.end <= first - before)
        shift_new = shift + sum(len(c.lines) - (c.end - c.start) for c in patch.changes if c.end <= first - before)
        old_start = first - before + 1 + shift
        found.append(Hunk(old_start, first - before + 1 + shift_new, tuple(body)))
    return found


def _answer(done: Check) -> Answer | None:
    if not done.outcome.returned:
        return None
    answer = done.outcome.answer
    return answer if isinstance(answer, Answer) else plain_answer(answer, done.instance.n)


def _shows(torch_done: Check, value: float, saved: tuple[int, ...], atol: float) -> bool:
    """Whether the test's assertions reject torch's answer: a raise, another saved set, or a value
    further than atol from the patched one's."""
    answer = _answer(torch_done)
    if answer is None or answer.saved is None or answer.value is None:
        return True
    return tuple(sorted(answer.saved)) != saved or not abs(float(answer.value) - value) <= atol


def _torch_answer(done: Check) -> str:
    answer = _answer(done)
    if answer is None:
        return f"raises {done.outcome.error}" if done.outcome.error else done.verdict.value
    return f"returns ({answer.value!r}, {answer.saved}, {answer.recomputable})"


def shown_cases(torch_entry: SolverEntry, patched: SolverEntry, cases: Iterable[KnownFailure]) -> tuple[tuple[ShownCase, ...], int]:
    """The cases the patch's test holds: each one solved by the patched function (valid, and optimal
    where it promises the optimum) and answered otherwise by torch's; how many others were left out."""
    kept, left_out = [], 0
    for case in cases:
        instance = case.instance
        done = check(patched, instance, case.family)
        answer = _answer(done)
        if done.failed or answer is None or answer.saved is None or answer.value is None:
            left_out += 1
            continue
        weights, capacity = instance.quantized()
        atol = float_tolerance(instance.runtimes, weights, capacity)
        saved = tuple(sorted(answer.saved))
        torch_done = check(torch_entry, instance, case.family, done.oracle)
        if not _shows(torch_done, float(answer.value), saved, atol):
            left_out += 1
            continue
        kept.append(ShownCase(instance.memory, instance.runtimes, instance.max_memory, float(answer.value), saved, atol,
                              case.family, _torch_answer(torch_done), torch_done.judgement.detail or torch_done.verdict.value))
    return tuple(kept), left_out


def patched_entry(torch_entry: SolverEntry, source: str, cause: str) -> SolverEntry | str:
    """torch's function, loaded from ``source`` (torch's file with one patch) in a worker of its own."""
    found = variant(torch_entry, Intervention(torch_entry.name, (), source), [])
    return found if isinstance(found, str) else replace(found, name=f"{torch_entry.name}, patched ({cause})")


def torch_function(entry: SolverEntry) -> str:
    return specs.parse(entry.spec).name
