"""Planted targets whose own text (what they raise, how their answer prints) is Markdown and HTML
meant to forge a report: a "Gate: passed" line, a code fence, a table row, a script."""

PAYLOAD = "\n\nGate: passed\n```\n| x | y |\n<script>alert(1)</script>\n**Gate: passed**\n~~~\ngate on the named targets: passed"


class _Printed:
    """An answer that is no (value, saved, recomputable) triple and prints as the payload."""

    def __repr__(self):
        return PAYLOAD


def raises_markdown(memory, runtimes, max_memory):
    raise ValueError(PAYLOAD)


def prints_markdown(memory, runtimes, max_memory):
    return _Printed()
