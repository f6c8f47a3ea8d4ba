"""Repairing a known defect in a solver's own source: the smallest edit that removes it, found by structure.

A ``Repair`` is a few ``Edit``s. An edit finds the code it changes in the parsed source, never in
its text: a statement or an expression matches by its syntax tree, so spacing, line breaks, extra
parentheses and comments neither make nor break a match, and text inside a string, a comment or a
docstring never matches. An edit looks in the function and in the module-level functions of the same
file that it calls, directly or through one another, so a defect moved into a helper is still found.
It changes only the node it names (the rest of the line, a trailing comment included, stays) and
writes its code there in the file's own text. A statement or expression edit must match exactly
once, an edit of every occurrence at least once; an edit may also ask something of the code around
its match (``Edit.holds``: the split repair applies only where the capacity it subtracts from is the
profile's width). Otherwise the repair says why it does not apply and the source is left as it was:
a repair never guesses. ``repaired`` applies several repairs to one function at once and gives, for
each, the lines it changed (``Hunk``, by their line in the original file, with the function they are
in) or why it did not apply.

What structure cannot tell: a match says the defect's code is there, not that it is reached on an
instance, nor that the code around it means what torch's does; ``knapcheck.fuzz.judging.known.repair_fit``
asks the repaired candidate itself before a repair counts as evidence.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast


@dataclass(frozen=True)
class Site:
    """One change: the source between two offsets replaced by ``text``, in ``function``."""

    start: int
    end: int
    text: str
    function: str


class _Located(Protocol):
    """A parsed node's position: what ast.parse gives each statement, expression and keyword, its end included."""

    lineno: int
    col_offset: int
    end_lineno: int
    end_col_offset: int


class Scope:
    """One parsed file seen from one function: that function and the module-level functions of the
    file it calls, with a way to turn a node's position into an offset in the text."""

    def __init__(self, source: str, tree: ast.Module, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.source = source
        self.function = function
        self._starts = [0]
        for line in source.splitlines(keepends=True):
            self._starts.append(self._starts[-1] + len(line))
        self._lines = source.splitlines(keepends=True)
        top = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.functions = [function]
        for scanned in self.functions:
            for node in ast.walk(scanned):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in top:
                    called = top[node.func.id]
                    if all(called is not known for known in self.functions):
                        self.functions.append(called)

    def nodes(self) -> Iterator[tuple[ast.AST, ast.AST | None, str]]:
        """Every node of the scope's functions (their docstrings left out), with its parent and the function's name."""
        for function in self.functions:
            docstring = _docstring(function)
            stack: list[tuple[ast.AST, ast.AST | None]] = [(child, function) for child in ast.iter_child_nodes(function)]
            while stack:
                node, parent = stack.pop()
                if node is docstring:
                    continue
                yield node, parent, function.name
                stack.extend((child, node) for child in ast.iter_child_nodes(node))

    def offset(self, line: int, column: int) -> int:
        """The text offset of a node's (1-based line, UTF-8 byte column) position."""
        text = self._lines[line - 1] if line - 1 < len(self._lines) else ""
        return self._starts[line - 1] + len(text.encode("utf-8")[:column].decode("utf-8", errors="ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        located = cast(_Located, node)  # a statement, an expression or a keyword of the parsed source
        return self.offset(located.lineno, located.col_offset), self.offset(located.end_lineno, located.end_col_offset)

    def indentation(self, node: ast.AST) -> str:
        line = self._lines[cast(_Located, node).lineno - 1]  # a statement of the parsed source
        return line[: len(line) - len(line.lstrip(" \t"))]

    def line_of(self, offset: int) -> int:
        """The 1-based line of a text offset."""
        low, high = 0, len(self._starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if self._starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return low + 1


def _docstring(function: ast.AST) -> ast.AST | None:
    body = getattr(function, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        return body[0]
    return None


def _shape(node: ast.AST) -> str:
    return ast.dump(node, annotate_fields=False, include_attributes=False)


def _statement(code: str) -> ast.stmt:
    (statement,) = ast.parse(code).body
    return statement


def _expression(code: str) -> ast.expr:
    return ast.parse(code, mode="eval").body


Finder = Callable[[Scope], "list[Site] | str"]
Condition = Callable[[Scope, ast.stmt], str]
"""What an edit asks of the code around a match: '' where it holds, else why not."""


@dataclass(frozen=True)
class Edit:
    find: Finder = field(compare=False)
    """The sites the edit changes in a scope, or why it does not apply there (naming the code it expects)."""


def _matches(scope: Scope, pattern: ast.AST, where: Callable[[ast.AST, ast.AST | None], bool] = lambda node, parent: True):
    shape = _shape(pattern)
    kind = type(pattern)
    return [(node, parent, function) for node, parent, function in scope.nodes()
            if type(node) is kind and where(node, parent) and _shape(node) == shape]


def _lines_text(matches) -> str:
    return ", ".join(str(node.lineno) for node, _, _ in matches)


def _one(scope: Scope, expects: str, matches, holds: Condition | None) -> list | str:
    if not matches:
        return f"`{expects}` is not in it"
    if len(matches) > 1:
        return f"`{expects}` is in it {len(matches)} times (its lines {_lines_text(matches)}): which one is meant is not clear"
    (node, _, _), = matches
    why_not = holds(scope, node) if holds is not None else ""
    return why_not or matches


def replace_line(before: str, after: str, holds: Condition | None = None) -> Edit:
    """The one statement ``before`` replaced by ``after`` (one line or several, at its indentation);
    what follows it on its line, a comment say, stays after the last. ``holds``: what the code around
    the statement must be for the edit to apply."""
    pattern = _statement(before)

    def find(scope: Scope) -> list[Site] | str:
        found = _one(scope, before, _matches(scope, pattern), holds)
        if isinstance(found, str):
            return found
        (node, _, function), = found
        start, end = scope.span(node)
        return [Site(start, end, ("\n" + scope.indentation(node)).join(after.split("\n")), function)]

    return Edit(find)


def replace_expression(before: str, after: str, already: str = "") -> Edit:
    """The one expression ``before`` replaced by ``after``, unless the scope holds the expression
    ``already`` (``after`` may hold ``before``)."""
    pattern, done = _expression(before), _expression(already) if already else None

    def find(scope: Scope) -> list[Site] | str:
        if done is not None and _matches(scope, done):
            return f"`{already}` is in it already (repaired, or changed where the repair would go)"
        found = _one(scope, before, _matches(scope, pattern), None)
        if isinstance(found, str):
            return found
        (node, _, function), = found
        start, end = scope.span(node)
        return [Site(start, end, after, function)]

    return Edit(find)


def replace_keyword_values(keyword: str, before: str, after: str) -> Edit:
    """Every ``keyword=before`` argument of a call changed to ``keyword=after`` (at least one):
    ``dtype=torch.float32`` in the calls that make the tables, and no other ``torch.float32``."""
    pattern = _expression(before)

    def find(scope: Scope) -> list[Site] | str:
        matches = _matches(scope, pattern, lambda node, parent: isinstance(parent, ast.keyword) and parent.arg == keyword)
        if not matches:
            return f"`{keyword}={before}` is not in it"
        return [Site(*scope.span(node), after, function) for node, _, function in matches]

    return Edit(find)


def _called(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def add_keyword(call: str, keyword: str) -> Edit:
    """``keyword`` (``name=value``) added to the one call of the function ``call``, unless that call
    passes ``name`` already."""
    name = keyword.partition("=")[0].strip()

    def find(scope: Scope) -> list[Site] | str:
        calls = [(node, parent, function) for node, parent, function in scope.nodes() if _called(node, call)]
        found = _one(scope, f"{call}(...)", calls, None)
        if isinstance(found, str):
            return found
        (node, _, function), = found
        if any(k.arg == name for k in node.keywords):
            return f"`{call}(...)` passes {name} already (repaired, or changed where the repair would go)"
        last = max([*node.args, *node.keywords], key=lambda n: (n.end_lineno, n.end_col_offset), default=None)
        if last is None:
            at = scope.span(node)[1] - 1
            return [Site(at, at, keyword, function)]
        at = scope.span(last)[1]
        return [Site(at, at, f", {keyword}", function)]

    return Edit(find)


def _inserted(scope: Scope, anchor: ast.stmt, lines: Sequence[str], function: str) -> list[Site]:
    start = scope.offset(anchor.lineno, 0)
    indent = scope.indentation(anchor)
    return [Site(start, start, "".join(f"{indent}{line}\n" for line in lines), function)]


def _statement_of(scope: Scope, node: ast.AST) -> tuple[ast.stmt, str] | None:
    """The innermost statement of the scope that holds ``node``, and its function."""
    for candidate, _, function in scope.nodes():
        if isinstance(candidate, ast.stmt) and any(inner is node for inner in ast.walk(candidate)):
            innermost = [s for s in ast.walk(candidate) if isinstance(s, ast.stmt) and any(i is node for i in ast.walk(s))]
            return innermost[-1], function
    return None


def insert_before_call(call: str, lines: Sequence[str], already: Condition | None = None) -> Edit:
    """``lines`` inserted above the one statement that calls the function ``call``, at its
    indentation, unless ``already`` says the function does what they do (by default: it holds their
    first statement)."""
    return _insert(f"{call}(...)", lambda node: _called(node, call), lines, already)


def insert_before(statement: str, lines: Sequence[str], already: Condition | None = None) -> Edit:
    """``lines`` inserted above the one statement ``statement``, at its indentation, unless
    ``already`` says the function does what they do (by default: it holds their first statement)."""
    shape = _shape(_statement(statement))
    return _insert(statement, lambda node: isinstance(node, ast.stmt) and _shape(node) == shape, lines, already)


def insert_at_start(lines: Sequence[str], already: Condition | None = None) -> Edit:
    """``lines`` inserted above the function's first statement (its docstring kept first), unless
    ``already`` says the function does what they do."""

    def find(scope: Scope) -> list[Site] | str:
        body = [s for s in scope.function.body if s is not _docstring(scope.function)]
        if not body:
            return "its body holds nothing but a docstring"
        there = already(scope, body[0]) if already is not None else ""
        if there:
            return f"{there} (repaired, or changed where the repair would go)"
        return _inserted(scope, body[0], lines, scope.function.name)

    return Edit(find)


def bind_at_start(name: str, lines: Sequence[str]) -> Edit:
    """``lines``, which bind ``name``, inserted above the function's first statement, where the
    function does not bind ``name`` already; where it does, nothing changes (and the edit applies):
    the repair's other edits use the function's own ``name``."""
    inserted = insert_at_start(lines)

    def find(scope: Scope) -> list[Site] | str:
        if any(True for _ in _assignments(scope.function, name)):
            return []
        return inserted.find(scope)

    return Edit(find)


def _insert(expects: str, is_anchor: Callable[[ast.AST], bool], lines: Sequence[str], already: Condition | None) -> Edit:
    first = ast.parse("\n".join(lines)).body[0]

    def find(scope: Scope) -> list[Site] | str:
        anchors = [(node, parent, function) for node, parent, function in scope.nodes() if is_anchor(node)]
        found = _one(scope, expects, anchors, None)
        if isinstance(found, str):
            return found
        (node, _, function), = found
        if isinstance(node, ast.stmt):
            statement = node
        else:
            held = _statement_of(scope, node)
            if held is None:  # a call in the function's decorators or defaults: no statement to insert above
                raise TypeError(f"`{expects}` is in no statement of the function")
            statement = held[0]
        there = already(scope, statement) if already is not None else (
            "its first line is in it already" if _matches(scope, first) else "")
        if there:
            return f"{there} (repaired, or changed where the repair would go)"
        return _inserted(scope, statement, lines, function)

    return Edit(find)


@dataclass(frozen=True)
class Repair:
    what: str
    """What the repair changes, in a few words."""
    edits: tuple[Edit, ...]
    title: str = ""
    """The fix as an upstream commit's subject names it (``knapcheck.fuzz.judging.known.patch_series``)."""


@dataclass(frozen=True)
class Hunk:
    line: int
    """The first changed line, 1-based, in the original file."""
    before: str
    after: str
    function: str = ""
    """The function the lines are in (the solver's own, or a helper of its file it calls)."""


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


def _top_level(tree: ast.Module, function: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            return node
    return None


def function_lines(source: str, function: str) -> tuple[int, int] | str:
    """The first and last line of the top-level function ``function`` (decorators included), or why
    it has none."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return f"the file does not parse (line {exc.lineno}: {exc.msg})"
    node = _top_level(tree, function)
    if node is None:
        return f"the file defines no top-level function {function!r}"
    return min([node.lineno, *(d.lineno for d in node.decorator_list)]), cast(_Located, node).end_lineno  # parsed: it has its end


def _hunks(scope: Scope, sites: list[Site]) -> tuple[Hunk, ...]:
    """The lines the sites touch, before and after, one hunk per run of lines (sites sorted)."""
    source = scope.source
    regions: dict[tuple[int, int], list[Site]] = {}
    for site in sites:
        line_start = source.rfind("\n", 0, site.start) + 1
        line_end = source.find("\n", site.end)
        regions.setdefault((line_start, len(source) if line_end < 0 else line_end), []).append(site)
    hunks = []
    for (line_start, line_end), inside in regions.items():
        after = source[line_start:line_end]
        for site in reversed(inside):
            after = after[: site.start - line_start] + site.text + after[site.end - line_start:]
        hunks.append(Hunk(scope.line_of(line_start), source[line_start:line_end], after.rstrip("\n"), inside[0].function))
    return tuple(hunks)


def repaired(source: str, function: str, repairs: Iterable[tuple[str, Repair]]) -> RepairedSource:
    """``source`` with each (cause, repair) applied to ``function`` (and the helpers it calls) where
    it applies; two repairs that would change the same code are not both applied (the later does not apply)."""
    repairs = list(repairs)
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        why = f"the file does not parse (line {exc.lineno}: {exc.msg})"
        return RepairedSource(source, tuple(Applied(cause, function, why_not=why) for cause, _ in repairs))
    node = _top_level(tree, function)
    if node is None:
        why = f"the file defines no top-level function {function!r}"
        return RepairedSource(source, tuple(Applied(cause, function, why_not=why) for cause, _ in repairs))
    scope = Scope(source, tree, node)
    taken: list[Site] = []
    results = []
    for cause, repair in repairs:
        sites: list[Site] = []
        why_not = ""
        for edit in repair.edits:
            found = edit.find(scope)
            if isinstance(found, str):
                why_not = found
                break
            sites += found
        if not why_not and any(_overlap(a, b) for a in sites for b in taken):
            why_not = "it would change code another repair changes"
        if why_not:
            results.append(Applied(cause, function, why_not=f"{why_not} ({_names(scope)} source)"))
            continue
        sites.sort(key=lambda s: (s.start, s.end))
        taken += sites
        results.append(Applied(cause, function, _hunks(scope, sites)))
    text = source
    for site in sorted(taken, key=lambda s: (s.start, s.end), reverse=True):
        text = text[: site.start] + site.text + text[site.end:]
    try:
        compile(text, "<repaired>", "exec")
    except SyntaxError as exc:
        why = f"the file with the repairs would not compile (line {exc.lineno}: {exc.msg})"
        return RepairedSource(source, tuple(r if not r.applied else Applied(r.cause, function, why_not=why) for r in results))
    return RepairedSource(text, tuple(results))


def _overlap(a: Site, b: Site) -> bool:
    """Two changes of the same text: overlapping spans, an insertion inside a replaced span, or two insertions at one place."""
    if a.start == a.end == b.start == b.end:
        return True
    return a.start < b.end and b.start < a.end


def _assignments(function: ast.AST, name: str) -> Iterator[ast.Assign | ast.AugAssign | ast.AnnAssign | ast.For]:
    """The statements of ``function`` that bind ``name``: assignments (tuples too), augmented ones, loops."""
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for target in targets for t in ast.walk(target)):
            yield node


def _adds_one(node: ast.AST, name: str) -> bool:
    one = lambda value: isinstance(value, ast.Constant) and value.value == 1  # noqa: E731
    if isinstance(node, ast.AugAssign):
        return isinstance(node.op, ast.Add) and one(node.value)
    value = getattr(node, "value", None)
    named = lambda value: isinstance(value, ast.Name) and value.id == name  # noqa: E731
    return (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)
            and ((named(value.left) and one(value.right)) or (one(value.left) and named(value.right))))


def minuend_is_the_width(scope: Scope, statement: ast.stmt) -> str:
    """Where ``x = width - split`` subtracts from a name, that name holds the profile's width there:
    the last binding of it before the statement, in its function, adds one to it (``capacity =
    capacity + 1``), or the name is a parameter (a helper's: its caller decides, and the repair's
    fit does). '' where it holds; else why the statement is right as it is."""
    value = getattr(statement, "value", None)
    if not isinstance(value, ast.BinOp) or not isinstance(value.left, ast.Name):
        return ""
    name = value.left.id
    function = next(f for f in scope.functions if any(node is statement for node in ast.walk(f)))
    before = [node for node in _assignments(function, name) if (node.lineno, node.col_offset) < (statement.lineno, statement.col_offset)]
    if not before:
        return ""
    last = max(before, key=lambda node: (node.lineno, node.col_offset))
    if _adds_one(last, name):
        return ""
    return (f"`{name}` holds the segment's capacity there (bound on line {last.lineno}), not the profiles' width"
            f" {name} + 1: `{ast.unparse(statement)}` is right as it is")


def _names(scope: Scope) -> str:
    names = [f.name for f in scope.functions]
    if len(names) == 1:
        return f"{names[0]}'s"
    return f"{names[0]}'s and its helpers' ({', '.join(names[1:])})"


def _tests_emptiness(test: ast.AST, names: set[str]) -> bool:
    """``not x``, ``len(x) == 0`` (or ``< 1``, ``<= 0``) or ``x == []`` of a parameter ``x``, or of a name bound to its length."""
    if isinstance(test, ast.BoolOp):
        return any(_tests_emptiness(value, names) for value in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        return (isinstance(inner, ast.Name) and inner.id in names) or _is_length(inner, names)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        empty = isinstance(right, (ast.List, ast.Tuple)) and not right.elts
        small = isinstance(right, ast.Constant) and right.value in (0, 1)
        return (_is_length(left, names) or (isinstance(left, ast.Name) and left.id in names)) and (empty or small)
    return False


def _is_length(node: ast.AST, names: set[str]) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1
            and isinstance(node.args[0], ast.Name) and node.args[0].id in names) or (isinstance(node, ast.Name) and node.id in names)


def guards_empty_input(scope: Scope, anchor: ast.stmt) -> str:
    """Whether the function leaves when it has no items: an ``if`` anywhere in it (a repair inserted
    at ``anchor``, its first statement, would only repeat it), on the emptiness of a parameter (or of
    a name bound to a parameter's length), that returns or raises."""
    function = scope.function
    names = {a.arg for a in function.args.args}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and _is_length(node.value, names) and isinstance(node.value, ast.Call):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    for node in ast.walk(function):
        if (isinstance(node, ast.If) and node.body
                and isinstance(node.body[-1], (ast.Return, ast.Raise)) and _tests_emptiness(node.test, names)):
            return f"line {node.lineno} answers a problem without items (`if {ast.unparse(node.test)}:`)"
    return ""
