"""Counts in prose: "1 case", "2 cases"."""

from __future__ import annotations


def counted(count: int, one: str, many: str | None = None) -> str:
    """``count`` with its noun in the right number; ``many`` is ``one`` + "s" unless given."""
    return f"{count} {one if count == 1 else many or one + 's'}"
