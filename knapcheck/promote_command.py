"""`knapcheck promote`: stored campaign failures become permanent regression cases in the corpus."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fuzz.regression_corpus import REGRESSION_CORPUS, promote
from fuzz.store import FailureStore


def add_parser(commands) -> None:
    parser = commands.add_parser("promote", help="turn a campaign's stored failures into regression cases")
    parser.add_argument("--db", type=Path, required=True, metavar="DIR", help="the campaign's failure store")
    parser.add_argument("--corpus", type=Path, default=REGRESSION_CORPUS, help=f"corpus file (default: {REGRESSION_CORPUS})")
    parser.add_argument("--solvers", nargs="+", metavar="NAME", help="promote only these solvers' failures")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not (args.db / "failures").is_dir():
        raise SystemExit(f"knapcheck promote: {args.db} holds no failure store (no {args.db / 'failures'})")
    store = FailureStore(args.db)
    stored = store.groups().values()
    for bad in store.bad_files:
        print(f"knapcheck promote: skipped unreadable {bad.path} ({bad.reason}); moved to {bad.moved_to}", file=sys.stderr)
    if args.solvers:
        stored = [s for s in stored if s.solver in args.solvers]
    added = promote(stored, args.corpus)
    for case in added:
        kind = "ours: must pass" if case.ours else "upstream: strict xfail"
        print(f"added {case.id} ({case.solver} {case.verdict}, family {case.family}, n={case.instance.n}; {kind})")
    print(f"{len(added)} new regression cases in {args.corpus}")
    return 0
