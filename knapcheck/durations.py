"""Reading durations such as 30s, 10m, 8h or 1.5h from the command line."""

from __future__ import annotations

import argparse
import re
from typing import Callable

UNITS = {"": 1, "s": 1, "m": 60, "h": 3600}


def duration_parser(option: str, *, bare_seconds: bool) -> Callable[[str], float]:
    """An argparse type for ``option``: seconds from '30s', '10m', '8h' (and '90' if ``bare_seconds``)."""
    units = "smh]?" if bare_seconds else "smh]"
    examples = "300, 90s, 10m or 1h" if bare_seconds else "30s, 10m or 8h"

    def duration(text: str) -> float:
        found = re.fullmatch(rf"\s*(\d+(?:\.\d+)?)\s*([{units})\s*", text)
        if not found or float(found[1]) <= 0:
            raise argparse.ArgumentTypeError(f"{option} must be a positive duration such as {examples}, got {text!r}")
        return float(found[1]) * UNITS[found[2]]

    return duration
