"""Repairing a known defect in a solver's own source: the smallest edit that removes it.

A ``Repair`` is a few ``Edit``s of one function's source, each written as the code it expects and
the code it puts there (``replace_line``, ``replace_everywhere``, ``insert_before``); spaces between
tokens and a trailing comment may differ. A repair applies to a function only where every one of
its edits matches that function's own source (a top-level ``def``) unambiguously: a line edit
exactly once, an edit of every occurrence at least once. Otherwise it says why it does not apply
(the code was rewritten, or the line is there twice), and the source is left as it was: a repair
never guesses. ``repaired`` applies several repairs to one function at once and gives, for each,
the lines it changed (``Hunk``, by their line in the original file) or why it did not apply.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_SPACES = r"[ \t]*"
_LINE_END = r"(?P<end>[ \t]*(?:#[^\n]*)?)$"


def _tokens(code: str) -> str:
    """A regular expression for ``code`` whose spaces between tokens may be any run of blanks."""
    return _SPACES.join(re.escape(part) for part in code.split())


def _literal(code: str) -> str:
    """``code`` as a replacement template that inserts it as written."""
    return code.replace("\\", "\\\\")


@dataclass(frozen=True)
class Edit:
    expects: str
    """The code the edit expects, as written in torch's source (shown when it does not match)."""
    pattern: str
    """A regular expression (multi-line mode) matching the code to change."""
    replacement: str
    """``re.Match.expand`` template: what replaces each match."""
    every: bool = False
    """Change every match (at least one) instead of exactly one."""
    already: str = ""
    """Code that, in the function, says the repair is there already (then it does not apply)."""


def replace_line(before: str, after: str) -> Edit:
    """A whole statement ``before`` on a line of its own, replaced by ``after`` (one line or
    several) at the same indentation; a trailing comment stays at the end of the last."""
    lines = r"\n\g<indent>".join(_literal(line) for line in after.split("\n"))
    return Edit(before, rf"^(?P<indent>{_SPACES}){_tokens(before)}{_LINE_END}", rf"\g<indent>{lines}\g<end>")


def replace_everywhere(before: str, after: str) -> Edit:
    """Every occurrence of the expression ``before`` (not inside a longer name) replaced by ``after``."""
    return Edit(before, rf"(?<![\w.]){_tokens(before)}(?!\w)", _literal(after), every=True)


def replace_once(before: str, after: str, already: str) -> Edit:
    """The one occurrence of the expression ``before`` (not inside a longer name) replaced by
    ``after``, unless the function holds ``already`` (``after`` may hold ``before``)."""
    return Edit(before, rf"(?<![\w.]){_tokens(before)}(?!\w)", _literal(after), already=already)


def insert_before(statement: str, lines: Sequence[str]) -> Edit:
    """``lines`` inserted above the one line that starts with ``statement``, at its indentation,
    unless the function holds the first of them already."""
    inserted = "".join(rf"\g<indent>{_literal(line)}\n" for line in lines)
    return Edit(statement, rf"^(?P<indent>{_SPACES})(?P<statement>{_tokens(statement)})",
                rf"{inserted}\g<indent>\g<statement>", already=lines[0])


@dataclass(frozen=True)
class Repair:
    what: str
    """What the repair changes, in a few words."""
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Hunk:
    line: int
    """The first changed line, 1-based, in the original file."""
    before: str
    after: str


@dataclass(frozen=True)
class Applied:
    """One repair on one function: the lines it changed, or why it does not apply."""

    cause: str
    function: str
    hunks: tuple[Hunk, ...] = ()
    why_not: str = ""
    """Empty when it applied."""

    @property
    def applied(self) -> bool:
        return not self.why_not


@dataclass(frozen=True)
class RepairedSource:
    source: str
    """The whole file with every repair that applies applied (the original where none does)."""
    results: tuple[Applied, ...]

    @property
    def applied(self) -> tuple[Applied, ...]:
        return tuple(r for r in self.results if r.applied)

    @property
    def not_applied(self) -> tuple[Applied, ...]:
        return tuple(r for r in self.results if not r.applied)


def function_lines(source: str, function: str) -> tuple[int, int] | str:
    """The first and last line of the top-level function ``function`` (decorators included), or why
    it has none."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return f"the file does not parse (line {exc.lineno}: {exc.msg})"
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return first, node.end_lineno
    return f"the file defines no top-level function {function!r}"


def _spans(body: str, edit: Edit) -> list[tuple[int, int, str]] | str:
    if edit.already and re.search(_tokens(edit.already), body):
        return f"`{edit.already}` is in it already (repaired, or changed where the repair would go)"
    matches = list(re.finditer(edit.pattern, body, re.MULTILINE))
    if not matches:
        return f"`{edit.expects}` is not in it"
    if len(matches) > 1 and not edit.every:
        lines = ", ".join(str(body.count("\n", 0, m.start()) + 1) for m in matches)
        return f"`{edit.expects}` is in it {len(matches)} times (its lines {lines}): which one is meant is not clear"
    return [(m.start(), m.end(), m.expand(edit.replacement)) for m in matches]


def _hunks(body: str, first_line: int, spans: list[tuple[int, int, str]]) -> tuple[Hunk, ...]:
    """The lines the spans touch, before and after, one hunk per run of lines (spans sorted)."""
    regions: dict[tuple[int, int], list[tuple[int, int, str]]] = {}
    for start, end, text in spans:
        line_start = body.rfind("\n", 0, start) + 1
        line_end = body.find("\n", end)
        regions.setdefault((line_start, len(body) if line_end < 0 else line_end), []).append((start, end, text))
    hunks = []
    for (line_start, line_end), inside in regions.items():
        after = body[line_start:line_end]
        for start, end, text in reversed(inside):
            after = after[: start - line_start] + text + after[end - line_start:]
        hunks.append(Hunk(first_line + body.count("\n", 0, line_start), body[line_start:line_end], after))
    return tuple(hunks)


def repaired(source: str, function: str, repairs: Iterable[tuple[str, Repair]]) -> RepairedSource:
    """``source`` with each (cause, repair) applied to ``function`` where it applies; two repairs
    that would change the same code are not both applied (the later does not apply)."""
    repairs = list(repairs)
    lines = function_lines(source, function)
    if isinstance(lines, str):
        return RepairedSource(source, tuple(Applied(cause, function, why_not=lines) for cause, _ in repairs))
    first, last = lines
    kept = source.splitlines(keepends=True)
    head, body, tail = "".join(kept[: first - 1]), "".join(kept[first - 1: last]), "".join(kept[last:])
    taken: list[tuple[int, int, str]] = []
    results = []
    for cause, repair in repairs:
        spans, why_not = [], ""
        for edit in repair.edits:
            found = _spans(body, edit)
            if isinstance(found, str):
                why_not = found
                break
            spans += found
        if not why_not and any(s < e2 and s2 < e for s, e, _ in spans for s2, e2, _ in taken):
            why_not = "it would change code another repair changes"
        if why_not:
            results.append(Applied(cause, function, why_not=f"{why_not} ({function}'s source)"))
            continue
        spans.sort()
        taken += spans
        results.append(Applied(cause, function, _hunks(body, first, spans)))
    for start, end, text in sorted(taken, reverse=True):
        body = body[:start] + text + body[end:]
    source = head + body + tail
    try:
        compile(source, "<repaired>", "exec")
    except SyntaxError as exc:
        why = f"the file with the repairs would not compile (line {exc.lineno}: {exc.msg})"
        return RepairedSource(head + "".join(kept[first - 1: last]) + tail,
                              tuple(r if not r.applied else Applied(r.cause, function, why_not=why) for r in results))
    return RepairedSource(source, tuple(results))
