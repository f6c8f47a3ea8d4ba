"""Command-line mistakes: one line on stderr and exit status 2, never a traceback.

A command raises ``UsageError`` for a mistake in its arguments or inputs; ``knapcheck.commands.cli`` prints
it as one line. ``ArgumentParser`` makes argparse's own errors one line too; ``positive_int`` and
``non_negative_int`` are argparse types for counts. Outputs are checked before any work by
``knapcheck.commands.output_checks``.
"""

from __future__ import annotations

import argparse
import sys

from . import exit_status


class UsageError(Exception):
    """A mistake in a command's arguments or inputs; ``knapcheck.commands.cli`` prints it as one line."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse, with its errors as one line (and where to read more) instead of usage and error."""

    def error(self, message: str):
        print(f"{self.prog}: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(exit_status.USAGE)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    return _whole_number(text, 1)


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    return _whole_number(text, 0)


def _whole_number(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
    return value
