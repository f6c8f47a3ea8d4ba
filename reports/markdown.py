"""Putting text a target supplied into Markdown so that it stays text.

A target's exception message, the way its answer prints, a path as the user typed it: any of them
can hold a line break, a backtick fence, a ``|``, ``<script>`` or a line that reads
``**Gate: passed**``. Inline, such text goes into a code span (``code``), or, inside our own
sentences, is escaped (``prose``); both put it on one line, so it never starts a line of the
body. A block of it goes into a fenced block whose fence is longer than any run of backticks in
it (``fenced``).
"""

from __future__ import annotations

import re

LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""A line ending as CommonMark (and a terminal) reads one."""
_BACKTICKS = re.compile(r"`+")
_MARKUP = re.compile(
    r"[\\`*~]"  # a backslash escape, a code span, emphasis, strikethrough
    r"|(?<![^\W_])_|_(?![^\W_])"  # emphasis (an underscore between two letters or digits opens none)
    r"|<(?=[A-Za-z/!?])"  # an HTML tag or an autolink
    r"|&(?=[A-Za-z#])"  # an entity
    r"|\](?=[(\[])"  # the end of a link's text
)


def one_line(text: str) -> str:
    """``text`` with each line break written as the two characters ``\\n``."""
    return LINE_BREAK.sub(r"\\n", text)


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def code(text: str) -> str:
    """An inline code span that shows ``text`` literally, on one line."""
    text = one_line(text)
    if not text:
        return "` `"
    ticks = "`" * (_longest_backtick_run(text) + 1)
    padded = f" {text} " if text[0] in "` " or text[-1] in "` " else text
    return f"{ticks}{padded}{ticks}"


def prose(text: str) -> str:
    """``text`` as part of a Markdown sentence: on one line, and each character that could open
    markup (emphasis, a link, HTML, an entity, a code span) backslash-escaped. Text without such a
    character is unchanged (``dp_knapsack``, ``value 4.5 < optimum 5.5``); a ``|`` is left to
    ``knapcheck.reports.tables``, the one place where it means something."""
    return _MARKUP.sub(lambda found: "\\" + found.group(), one_line(text))


def fenced(text: str, info: str = "") -> list[str]:
    """The lines of a fenced code block holding ``text``: no line of it can close the fence."""
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    return [fence + info, *LINE_BREAK.split(text), fence]
