"""`knapcheck fuzz`: a fuzz campaign on a Dask cluster, every failure stored as it is found.

Exit status (``knapcheck.commands.exit_status``), decided by the one gate rule (``knapcheck.fuzz.judging.verdicts.gate``): 0
ran as asked and the gate passed; 1 the gate failed: with ``--baseline``, a regression of a target
(a failure its baseline does not share on the same instance); without, a failure of one of our
solvers; or an oracle was shown wrong (then no verdict of the run can be trusted); 2 a bad
option (an unwritable --db, --store or --out, an unreachable Redis or scheduler, a target that
cannot be loaded, a TLS file that is not a regular file), said in one line before any work; 3
workers or units were lost, a finding could not be stored, an event was refused or the scheduler
was lost (the report, written all the same, says which); 130 interrupted by Ctrl-C, 143 terminated
by SIGTERM (the report, marked partial, is written first: ``knapcheck.commands.stop_signals``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..solvers.isolation.worker import DEFAULT_TIME_LIMIT as DEFAULT_CALL_LIMIT
from . import exit_status as statuses
from .durations import duration
from .exit_status import FAILED, INCOMPLETE, INTERRUPTED, OK, TERMINATED
from .inputs import add_corpus_argument, checked_families, family_list, stored_instances
from .output_checks import CAMPAIGN_JSON, CAMPAIGN_MARKDOWN, writable_directory, write_output
from .stop_signals import stop_requests, stopped_by
from .targets import SPEC_FORMS, add_targets_argument, load_targets, promise_help, targets_and_baselines
from .usage import UsageError, positive_int

if TYPE_CHECKING:
    from ..fuzz.campaign.cluster import TlsFiles
    from ..fuzz.campaign.run import CampaignPlan, CampaignResult
    from ..solvers.entry import SolverEntry

LOG = "campaign.log"
"""In --out: what the campaign's processes print besides the progress (solver chatter, Dask's log)."""
PLAIN_PROGRESS_SECONDS = 10.0


EXAMPLES = """\
examples:
  knapcheck fuzz --time 8h --db nightly --out nightly/report             a local cluster, one worker per CPU
  knapcheck fuzz --time 30m --jobs 2 --db db --out out --targets ours torch:dp_knapsack
  knapcheck fuzz --time 1h --db db --out out --targets pr/knapsack.py:dp_knapsack --baseline torch
                                                                        only regressions against torch fail the run
  knapcheck fuzz --time 8h --scheduler tls://HOST:8786 --tls-ca-file ca.pem --tls-cert client.pem --tls-key client-key.pem \
      --db /shared/db --out out                                         an existing cluster (docs/campaigns-cluster.md)
  knapcheck fuzz --time 8h --db redis://HOST:6379/0 --store /shared/store --out out"""


DESCRIPTION = (
    "Fuzz the targets on every sampled family for --time, on a local Dask cluster of --jobs"
    " worker processes or on an existing cluster (--scheduler); with --baseline, side by side with"
    " each target's baseline on every instance. Every failure is stored the moment it is found,"
    " the smallest instance of each signature (solver, verdict, baseline verdict) kept;"
    " campaign.md and campaign.json summarize the run."
)

GATE = """\
gate:
  without --baseline, a failure of one of our solvers fails the run (exit 1); failures a case of the
  known-failure corpus explains (same solver, verdict and cause) are reported as known, the others as
  new. With --baseline, each target is compared with the baseline of the same function name (else
  the only baseline) on every instance, and a regression of any target fails the run: a failure the
  baseline, on the same instance, does not share. Failures the baseline shares are reported apart.

enumerated families:
  the fixed lists (listed below) are taken in full by check and report; a campaign samples only the
  other families, unless one is named with --families: then its whole list is checked once, each
  instance once, before the sampled families' time slices."""


def epilog() -> str:
    families = family_list().replace("default: all", "default: all but the enumerated ones")
    return "\n\n".join([EXAMPLES, GATE, promise_help(), families, statuses.help_text(
        "the gate failed: with --baseline a regression of a target, without one a failure of our"
        " solvers; or an oracle was shown wrong (then no verdict can be trusted)"
    )])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--time", type=duration, required=True, metavar="DURATION", help="how long: 30 or 30s, 10m, 8h")
    parser.add_argument("--jobs", type=positive_int, default=os.cpu_count() or 1, metavar="N",
                        help="worker processes of the local cluster (default: one per CPU)")
    parser.add_argument(
        "--scheduler", metavar="tls://HOST:PORT",
        help="run on an existing Dask cluster instead of a local one (--jobs is then ignored); see docs/campaigns-cluster.md",
    )
    parser.add_argument("--tls-ca-file", type=Path, metavar="PEM",
                        help="with --scheduler tls://...: the CA that signed the cluster's certificates"
                             " (default: the Dask configuration's distributed.comm.tls.ca-file)")
    parser.add_argument("--tls-cert", type=Path, metavar="PEM", help="with --scheduler tls://...: this client's certificate")
    parser.add_argument("--tls-key", type=Path, metavar="PEM", help="with --scheduler tls://...: this client's private key")
    parser.add_argument(
        "--db", required=True, metavar="DIR|redis://HOST:PORT/N",
        help="Hypothesis's shared example database: a directory (DIR/hypothesis) or a Redis URL",
    )
    parser.add_argument(
        "--store", type=Path, metavar="DIR", help="the failure store (default: the --db directory; required with a Redis --db)"
    )
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help=f"where campaign.md, campaign.json and {LOG} go")
    add_targets_argument(parser)
    parser.add_argument("--baseline", nargs="+", default=[], metavar="SPEC",
                        help=f"judge each target against a baseline, instance by instance: {SPEC_FORMS}")
    parser.add_argument("--families", nargs="+", metavar="NAME",
                        help="instance families to fuzz (default: every sampled one; listed below)")
    add_corpus_argument(parser, "known-failure corpus that tells known failures from new ones (default: the corpus packaged with knapcheck)")
    parser.add_argument(
        "--seed", type=int, help="reproducible generation (Hypothesis then uses no example database); default: random"
    )
    parser.add_argument(
        "--call-limit", type=duration, default=DEFAULT_CALL_LIMIT, metavar="DURATION",
        help=f"longest one call of an isolated target may take (default: {DEFAULT_CALL_LIMIT:g}s)",
    )
    parser.set_defaults(run=run)


def _plan(args: argparse.Namespace) -> CampaignPlan:
    """The campaign the arguments ask for, every target loaded and every output checked before any work
    (UsageError otherwise); no directory is created for a campaign whose targets cannot run."""
    from ..fuzz.campaign.example_database import check_redis, directory_of, is_redis
    from ..fuzz.campaign.run import CampaignPlan
    from ..fuzz.instances import families

    family_names = checked_families(args.families) if args.families else families.names(enumerated=False)
    cases = stored_instances(args.corpus, []).cases
    tls = _tls(args)
    entries, paired = targets_and_baselines(args.targets, args.baseline, "--targets")
    _load_isolated(entries + paired)
    out = writable_directory(args.out, "--out", {"campaign.md": CAMPAIGN_MARKDOWN, "campaign.json": CAMPAIGN_JSON, LOG: None})
    if is_redis(args.db):
        if args.store is None:
            raise UsageError("--store DIR is required when --db is a Redis URL (the failure store is a directory)")
        try:
            check_redis(args.db)
        except ValueError as exc:
            raise UsageError(f"--db: {exc}") from None
        database = args.db
        store = writable_directory(args.store, "--store")
    else:
        db = writable_directory(Path(args.db), "--db").resolve()
        writable_directory(directory_of(str(db)), "--db")
        database = str(db)
        store = writable_directory(args.store, "--store") if args.store is not None else db
    writable_directory(store / "failures", "--store" if args.store is not None else "--db")
    return CampaignPlan(
        entries=entries,
        baselines=tuple(paired),
        corpus_cases=tuple(cases),
        families=family_names,
        duration=args.time,
        store=store,
        database=None if args.seed is not None else database,
        jobs=args.jobs,
        scheduler=args.scheduler,
        seed=args.seed,
        call_limit=args.call_limit,
        worker_output=out / LOG,
        tls=tls,
    )


def _tls(args: argparse.Namespace) -> TlsFiles:
    """The scheduler's TLS files, checked; UsageError in one line for a bad address or file."""
    from ..fuzz.campaign.cluster import TlsFiles

    tls = TlsFiles(args.tls_ca_file, args.tls_cert, args.tls_key)
    if args.scheduler is not None and "://" not in args.scheduler:
        raise UsageError(f"--scheduler must be an address such as tls://HOST:8786, got {args.scheduler!r}")
    if tls.given and (args.scheduler is None or not args.scheduler.startswith("tls://")):
        raise UsageError("--tls-ca-file, --tls-cert and --tls-key are for --scheduler tls://HOST:PORT (the local cluster makes its own)")
    problems = tls.problems()
    if problems:
        raise UsageError("; ".join(problems))
    return tls


def _load_isolated(entries: list[SolverEntry]) -> None:
    """Load every target named by a file or a module (``nosuch.py:f``), in its isolated worker,
    before any work: one that cannot be loaded is a usage error, not a campaign of verdicts about
    code that never ran. (Ours and torch's are known to the registry already.) The workers are
    stopped again (a pool of their own): the campaign's workers start their own."""
    from ..solvers import specs
    from ..solvers.isolation.worker import WorkerPool
    from ..solvers.registry import with_isolation

    named = [with_isolation(e) for e in entries if not e.ours and specs.parse(e.spec).kind in ("file", "module")]
    with WorkerPool():
        load_targets(named)


def run(args: argparse.Namespace) -> int:
    from ..fuzz.campaign.cluster import CampaignCannotStart
    from ..fuzz.campaign.run import run_campaign
    from ..reports.campaign_report import progress_line, progress_view
    from ..reports.progress_display import ProgressDisplay
    from ..solvers.isolation.output_capture import STDERR, STDOUT, captured

    plan = _plan(args)
    terminal = os.fdopen(os.dup(sys.stderr.fileno()), "w", buffering=1)
    try:
        with stop_requests() as stop, captured(args.out / LOG, (STDOUT, STDERR)), ProgressDisplay(terminal) as display:
            result = run_campaign(
                plan,
                on_progress=lambda progress: display.update(progress_view(progress), progress_line(progress)),
                on_message=display.message,
                stop_requested=stop.requested,
                progress_every=1.0 if display.live else PLAIN_PROGRESS_SECONDS,
            )
    except CampaignCannotStart as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt as interrupt:
        reason = stopped_by(interrupt)
        print(f"knapcheck fuzz: {reason} twice: stopped without a report", file=sys.stderr)
        return TERMINATED if reason == "terminated" else INTERRUPTED
    finally:
        terminal.close()
    return _report(args.out, result)


def _report(out: Path, result: CampaignResult) -> int:
    from ..reports.campaign_report import failing_summary, render_json, render_markdown

    markdown, report = out / "campaign.md", out / "campaign.json"
    written = True
    try:
        write_output(markdown, render_markdown(result), CAMPAIGN_MARKDOWN)
        write_output(report, json.dumps(render_json(result), indent=2), CAMPAIGN_JSON)
    except OSError as exc:
        print(f"knapcheck fuzz: cannot write the report: {exc}", file=sys.stderr)
        written = False
    print(
        f"{f'PARTIAL ({result.stopped_by}): ' if result.interrupted else ''}{result.tally.instances} cases in {result.elapsed:.0f} s "
        f"({result.rate:.1f}/s), {failing_summary(result)}; gate: {'passed' if result.gate().passed else 'FAILED'}"
        + ("" if result.as_asked else f"; NOT as asked: {', '.join(result.problems())}")
        + f"; report: {markdown} and {report}; log: {out / LOG}"
    )
    return exit_status(result, written)


def exit_status(result: CampaignResult, report_written: bool = True) -> int:
    """Interrupted or terminated first, then the gate (``knapcheck.fuzz.judging.verdicts.gate.decide``: a
    regression against a baseline, without one a failure of ours, or an oracle shown wrong), then
    anything not as asked."""
    if result.interrupted:
        return TERMINATED if result.stopped_by == "terminated" else INTERRUPTED
    if not result.gate().passed:
        return FAILED
    return OK if result.as_asked and report_written else INCOMPLETE
