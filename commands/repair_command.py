"""`knapcheck repair SPEC --out FILE`: the source file of SPEC's solvers with their known defects repaired."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import exit_status
from .output_checks import OutputKind, writable_file, write_output
from .targets import SPEC_FORMS, entries_for, prepare_workers
from .usage import UsageError

EXAMPLES = """\
examples:
  knapcheck repair torch --out knapsack.py          the installed torch's file, every known defect repaired
  knapcheck repair torch:dp_knapsack_sliding_hirschberg --out knapsack.py
  knapcheck repair pr/knapsack.py --out repaired/knapsack.py
  knapcheck report --candidate knapsack.py --baseline torch --out report
                                                    the gate on the repaired file: fixes, no regression"""

DESCRIPTION = (
    "Write the source file of SPEC's solvers with every known defect of theirs repaired: each cause"
    " of the regression corpus carries the smallest edit of torch's source that removes it"
    " (docs/differential.md lists them with their diffs), applied to each solver's own function where its"
    " code matches unambiguously. Prints which repair changed which lines, and why any other did not"
    " apply. The file is written only where nothing is, or over an earlier output identical to it."
)


def epilog() -> str:
    return "\n\n".join([EXAMPLES, exit_status.help_text("no repair applies: nothing was written")])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("solver", metavar="SPEC", help=f"the solvers whose file to repair: {SPEC_FORMS}")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE.py", help="the repaired file to write")
    parser.add_argument("--regressions", type=Path, metavar="PATH",
                        help="the regression corpus whose causes are the known defects (default: the one packaged"
                             " with knapcheck)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    prepare_workers([args.solver], None, all_isolated=True)
    from ..fuzz.judging.known.by_cause import Causes
    from ..fuzz.judging.known.defects import CAUSES
    from ..fuzz.judging.known.repaired import repaired_file
    from ..reports.repairs import applied_text
    from ..solvers.registry import with_isolation
    from ..solvers.specs import shown_path
    from .inputs import stored_instances

    cases = stored_instances(args.regressions, []).cases
    entries = [with_isolation(entry) for entry in entries_for([args.solver], "SPEC")]
    causes = Causes(entries, cases)
    try:
        done = repaired_file(entries, cases, lambda entry: causes.intervention(entry, entry, fitted=CAUSES).results)
    except ValueError as exc:
        raise UsageError(f"SPEC {args.solver}: {exc}") from None
    applied = [r for r in done.results if r.applied]
    if not applied:
        print(f"knapcheck repair: no known defect's repair applies to {shown_path(done.path)}: nothing written")
        for result in done.results:
            print(f"  {result.function}: {applied_text(result)}")
        return exit_status.FAILED
    repaired = OutputKind("a repaired file identical to this one", lambda data: data == done.source.encode())
    writable_file(args.out, "--out", repaired)
    write_output(args.out, done.source, repaired)
    print(f"{shown_path(done.path)} with {len(applied)} of {len(done.results)} repairs of known defects written to"
          f" {args.out}:")
    for result in done.results:
        print(f"  {result.function}: {applied_text(result)}")
    return exit_status.OK
