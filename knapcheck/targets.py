"""Turning the command line's solver specs into registry entries, with a clear error for a bad one."""

from __future__ import annotations

import argparse

from solvers.registry import SolverEntry, ours, resolve_all

DEFAULT_TARGETS = ("ours", "torch")


def entries_for(specs: list[str] | None) -> list[SolverEntry]:
    specs = specs or list(DEFAULT_TARGETS)
    expanded: list[str] = []
    for spec in specs:
        expanded += [e.name for e in ours()] if spec == "ours" else [spec]
    try:
        return resolve_all(expanded)
    except ValueError as exc:
        raise SystemExit(f"knapcheck: {exc}") from None


def add_targets_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--targets",
        nargs="+",
        metavar="SPEC",
        help="solvers to check: ours, torch, torch:NAME, FILE.py:NAME, module:NAME or a registered name "
        f"(default: {' '.join(DEFAULT_TARGETS)})",
    )
