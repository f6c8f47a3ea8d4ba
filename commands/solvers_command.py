"""`knapcheck solvers`: the registry, with what each entry promises."""

from __future__ import annotations

import argparse

from . import exit_status

DESCRIPTION = (
    "List our registered solvers and the installed torch's: exact or heuristic, device,"
    " origin, size limits and memory model."
)


def epilog() -> str:
    return exit_status.help_text(None)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..solvers.registry import registered, torch_entries

    for entry in registered() + torch_entries():
        kind = "exact" if entry.exact else "heuristic"
        limits = [f"n*(C+1) <= {entry.max_cells:,}"] if entry.max_cells else []
        limits += [f"C <= {entry.max_capacity:,}"] if entry.max_capacity is not None else []
        limit = ", ".join(limits) or "no size limit"
        print(f"{entry.name:40} {kind:9} {entry.device:5} {entry.origin:18} {limit}")
        if entry.memory_model:
            print(f"{'':40} memory: {entry.memory_model}")
        reason = entry.unavailable()
        if reason:
            print(f"{'':40} unavailable here: {reason}")
    return exit_status.OK
