"""`knapcheck export-tests`: a PyTorch test file for torch's knapsack solvers, its marks decided on the installed torch."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..reports.words import counted
from . import exit_status
from .inputs import add_corpus_argument
from .output_checks import EXPORTED_TESTS, writable_file, write_output
from .usage import UsageError

EXAMPLES = """\
examples:
  knapcheck export-tests --out test_ac_knapsack_solvers.py
  python test_ac_knapsack_solvers.py                passes on the torch it was exported against
  pytest test_ac_knapsack_solvers.py                the same tests under pytest
  knapcheck export-tests --corpus my-corpus.json --out test/functorch/test_ac_knapsack_solvers.py"""


DESCRIPTION = (
    "Write a test file in PyTorch's style (# Owner(s), TestCase, parametrize,"
    " instantiate_parametrized_tests, run_tests) for every solver of the installed torch: one test per"
    " cause of the known-failure corpus's upstream cases and one per enumerated family (exhaustive_small,"
    " large_capacity, scale_extremes), each parametrized over the solvers and checked against optima"
    " written inline (those of scale_extremes' 2 000 items among them) or a brute force in the file."
    " Each solver is run on every case here first: a test it fails is"
    " marked as an expected failure for that solver, so the file passes on this torch, a new defect"
    " fails it, and a fixed one shows as an unexpected success. The file imports nothing of knapcheck."
)


def epilog() -> str:
    return "\n\n".join([EXAMPLES, exit_status.help_text(None)])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, metavar="FILE.py", help="the test file to write")
    add_corpus_argument(parser, "known-failure corpus to export (default: the corpus packaged with knapcheck)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..fuzz.corpus.known_failures import KNOWN_FAILURES
    from ..fuzz.runs.export_plan import build_plan, upstream_cases
    from ..reports.environment import knapcheck_version
    from ..reports.pytorch_tests import render_test_file
    from .inputs import trusted_cases

    writable_file(args.out, "--out", EXPORTED_TESTS)
    corpus = Path(args.corpus or KNOWN_FAILURES)
    try:
        selected = upstream_cases(trusted_cases(corpus))
        source = f"knapcheck {knapcheck_version()}, {len(selected.cases)} cases of {corpus.name}"
        plan = build_plan(selected.cases, source, progress=lambda line: print(line, file=sys.stderr))
        text = render_test_file(plan)
    except ValueError as exc:
        raise UsageError(f"{corpus}: {exc}") from None
    write_output(args.out, text, EXPORTED_TESTS)
    expected = sum(len(cause.failing) for cause in plan.causes)
    expected += sum(len(kinds) for test in plan.enumerated for kinds in test.known.values())
    left_out = f"; {counted(selected.left_out, 'case')} of other solvers left out" if selected.left_out else ""
    print(f"{len(plan.causes)} causes ({len(selected.cases)} cases) and {len(plan.enumerated)} enumerated families"
          f" written to {args.out}, for {len(plan.solvers)} solvers of {plan.exported_against};"
          f" {expected} tests marked as expected failures{left_out}")
    return exit_status.OK
