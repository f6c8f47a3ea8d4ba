"""The compiled search of several revisions side by side in one process, on chosen Pisinger instances.

    python studies/core_revisions.py REVISION [REVISION ...] --cells CLASS:N:R[:SEEDS] ... [--budget 0.3]

e.g. ``python studies/core_revisions.py main HEAD --cells subset_sum:10000:1e4:0 circle:50:1e6``.
Each revision's search (``core.search.compiled_select``) is copied by ``studies/core_before.py``
(HEAD too, so a worktree's uncommitted edits are never measured by mistake) and called on the same
int64 arrays, the revisions in turn, round after round, until each instance has had ``--budget``
seconds (at least 3 rounds, at most 100); each figure is the median call in thread CPU time (ms).
Only the search is timed, warm, without the contract's reading of the lists, so that a change to
the search shows however small the instance. A line says when the revisions' optima differ.
SEEDS is a comma-separated list (default 0-4), as in the pisinger-classes rows.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from core_before import git, materialize  # noqa: E402

from knapcheck.fuzz.instances.pisinger import ITEMS, generate  # noqa: E402

MAX_ROUNDS = 100


def search_of(revision: str):
    """The revision's ``compiled_select``, from its copy under the system's temporary folder."""
    commit = git("rev-parse", "--short", f"{revision}^{{commit}}")
    if commit.returncode != 0:
        raise SystemExit(f"core_revisions.py: unknown revision {revision!r}")
    short = commit.stdout.strip()
    directory = Path(tempfile.gettempdir()) / f"knapcheck-core-{short}"
    materialize(revision, directory)
    sys.path.insert(0, str(directory))
    return importlib.import_module(f"knapcheck_core_{short}.core.search").compiled_select


def cell(text: str) -> tuple[str, int, int, list[int]]:
    parts = text.split(":")
    if len(parts) not in (3, 4) or f"pisinger_{parts[0]}" not in ITEMS:
        classes = ", ".join(name.removeprefix("pisinger_") for name in ITEMS)
        raise argparse.ArgumentTypeError(f"--cells takes CLASS:N:R[:SEEDS] with CLASS one of {classes}: {text!r}")
    try:
        seeds = [int(seed) for seed in parts[3].split(",")] if len(parts) == 4 else list(range(5))
        return parts[0], int(parts[1]), int(float(parts[2])), seeds
    except ValueError:
        raise argparse.ArgumentTypeError(f"--cells: N, R and SEEDS are integers: {text!r}") from None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("revisions", nargs="+", help="git revisions whose search to compare")
    parser.add_argument("--cells", nargs="+", type=cell, required=True, help="CLASS:N:R[:SEEDS] instances to run")
    parser.add_argument("--budget", type=float, default=0.3, help="seconds of calls per instance (default 0.3)")
    args = parser.parse_args(argv)
    searches = [search_of(revision) for revision in args.revisions]
    print("ms per call (median), thread CPU time: " + " | ".join(args.revisions))
    for family, n, data_range, seeds in args.cells:
        for seed in seeds:
            weights, profits, capacity = generate(f"pisinger_{family}", n, data_range, seed, integral=True)
            w = np.array(weights, dtype=np.int64)
            p = np.array(profits, dtype=np.int64)
            times: list[list[float]] = [[] for _ in searches]
            optima = set()
            spent = 0.0
            while len(times[0]) < 3 or (spent < args.budget and len(times[0]) < MAX_ROUNDS):
                for search, measured in zip(searches, times):
                    start = time.thread_time()
                    saved, _ = search(w, p, capacity)
                    measured.append(time.thread_time() - start)
                    spent += measured[-1]
                    optima.add(int(p[saved].sum()))
            figures = " | ".join(f"{statistics.median(measured) * 1e3:.3f}" for measured in times)
            differ = "" if len(optima) == 1 else f"  OPTIMA DIFFER: {sorted(optima)}"
            print(f"{family} n={n} R={data_range} seed {seed}: {figures}{differ}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
