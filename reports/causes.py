"""Known defects by their short names, each explained once.

A report names a cause (a known defect of the baseline: ``knapcheck.fuzz.judging.known.defects``) by its
short name, ``float32`` or ``hirschberg_split``, linked to the one place where its text is: the
report's "Causes" section, which says what the defect is and how far it reaches. A cause's text is
never repeated beside each count or combination of causes it explains.

A name this knapcheck does not know (none reaches a report today: causes come from the catalogue)
is shown as it is, quoted as text.
"""

from __future__ import annotations

import re
from html import escape

from ..fuzz.judging.known.defects import CAUSES
from ..fuzz.judging.verdicts.differential import CheckResult
from .markdown import code, prose

_NOT_AN_ID = re.compile(r"[^a-z0-9_-]+")


def anchor(name: str) -> str:
    """The fragment the cause's explanation carries: ``cause-float32``."""
    return "cause-" + _NOT_AN_ID.sub("-", name.lower())


def markdown_link(name: str) -> str:
    return f"[{prose(name)}](#{anchor(name)})"


def html_link(name: str) -> str:
    return f'<a href="#{anchor(name)}">{escape(name)}</a>'


def named(result: CheckResult) -> list[str]:
    """Every cause the report names, in the catalogue's order: what the candidates fix or make
    visible, and what explains a failure, the baseline's own included."""
    found = {c for comparison in result.comparisons.values() for _, causes in comparison.fixed_causes for c in causes}
    found |= {c for comparison in result.comparisons.values() for *_, causes in comparison.visible for c in causes}
    found |= {c for finding in result.findings for c in finding.causes}
    return [name for name in CAUSES if name in found] + sorted(found - set(CAUSES))


def _explanation(name: str) -> tuple[str, str]:
    cause = CAUSES.get(name)
    if cause is None:
        return "not a defect this knapcheck knows", ""
    return cause.what, cause.reach


def markdown_lines(names: list[str]) -> list[str]:
    """The "Causes" section's list: each cause's anchor, short name, what it is and how far it reaches."""
    lines = []
    for name in names:
        what, reach = _explanation(name)
        reaches = f" Reaches: {prose(reach)}." if reach else ""
        lines.append(f'- <a id="{anchor(name)}"></a>{code(name)}: {prose(what)}.{reaches}')
    return lines


def html_parts(names: list[str]) -> list[str]:
    items = []
    for name in names:
        what, reach = _explanation(name)
        reaches = f" Reaches: {escape(reach)}." if reach else ""
        items.append(f'<li id="{anchor(name)}"><code>{escape(name)}</code>: {escape(what)}.{reaches}</li>')
    return ["<ul>", *items, "</ul>"]
