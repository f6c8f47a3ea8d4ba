"""The one duration syntax of every option that takes a time: 30 or 30s (seconds), 10m, 1h, 1.5h."""

from __future__ import annotations

import argparse
import re

UNITS = {"": 1, "s": 1, "m": 60, "h": 3600}
SYNTAX = "30 or 30s (seconds), 10m, 1h"


def seconds(text: str) -> float:
    """Seconds from '30', '30s', '10m', '1h' or '1.5h'; ValueError for anything else or zero."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if not found or float(found[1]) <= 0:
        raise ValueError(f"expected a positive duration such as {SYNTAX}, got {text!r}")
    return float(found[1]) * UNITS[found[2]]


def duration(text: str) -> float:
    """An argparse type: ``seconds``, its error in argparse's terms."""
    try:
        return seconds(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
