"""`knapcheck fuzz`: a long fuzz campaign over the registry; exit 1 if any of our solvers failed."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from fuzz.campaign import NEW, run_campaign
from fuzz.store import write_atomically
from fuzz import families
from knapcheck.durations import duration_parser
from knapcheck.targets import add_targets_argument, entries_for
from reports.campaign_report import progress_line, render_json, render_markdown

duration = duration_parser("--time", bare_seconds=False)


def add_parser(commands) -> None:
    parser = commands.add_parser("fuzz", help="run a fuzz campaign, storing every failure as it is found")
    parser.add_argument("--time", type=duration, required=True, metavar="DURATION", help="how long: 30s, 10m, 8h")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: one per CPU)")
    parser.add_argument("--db", type=Path, required=True, metavar="DIR", help="failure store and Hypothesis example database")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="where campaign.md and campaign.json go")
    add_targets_argument(parser)
    parser.add_argument("--families", nargs="+", choices=families.names(), default=families.names())
    parser.add_argument(
        "--seed", type=int, help="reproducible generation (Hypothesis then uses no example database); default: random"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        raise SystemExit("knapcheck fuzz: --jobs must be at least 1")
    entries = entries_for(args.targets)
    live = sys.stderr.isatty()

    def show(progress) -> None:
        line = progress_line(progress)
        if live:
            print("\r\033[K" + line, end="", file=sys.stderr, flush=True)
        else:
            print(line, file=sys.stderr, flush=True)

    def say(message: str) -> None:
        print(("\r\033[K" if live else "") + message, file=sys.stderr, flush=True)

    result = run_campaign(
        entries,
        args.families,
        args.time,
        args.jobs,
        args.db,
        seed_value=args.seed,
        on_progress=show,
        on_message=say,
        progress_every=1.0 if live else 10.0,
    )
    if live:
        print(file=sys.stderr)
    markdown, report = args.out / "campaign.md", args.out / "campaign.json"
    write_atomically(markdown, render_markdown(result))
    write_atomically(report, json.dumps(render_json(result), indent=2))
    failing = result.failing()
    print(
        f"{result.tally.instances} cases in {result.elapsed:.0f} s ({result.rate:.1f}/s), "
        f"{len(failing)} failing signatures ({sum(f.status == NEW for f in failing)} new), "
        f"{len(result.our_failures())} in our solvers; report: {markdown} and {report}"
    )
    return 1 if result.our_failures() else 0
