"""`knapcheck export-tests`: the regression corpus's upstream cases as a PyTorch-style test file."""

from __future__ import annotations

import argparse
from pathlib import Path

from knapcheck import exit_status
from knapcheck.output_checks import writable_file
from knapcheck.usage import UsageError

EXAMPLES = """\
examples:
  knapcheck export-tests --out test_ac_knapsack_regressions.py
  python test_ac_knapsack_regressions.py            fails on each defect the installed torch still has
  knapcheck export-tests --regressions my-corpus.json --out test/functorch/test_knapsack_cases.py"""


DESCRIPTION = (
    "Write the regression corpus's upstream cases as a test file in PyTorch's style"
    " (torch.testing._internal.common_utils.TestCase, run_tests()), ready for"
    " test/functorch/test_ac_knapsack.py: each test asserts the partition, the budget, the"
    " reported value and optimality, with the proven optimum inline. It imports nothing of knapcheck."
)


def epilog() -> str:
    return "\n\n".join([EXAMPLES, exit_status.help_text(None)])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, metavar="FILE.py", help="the test file to write")
    parser.add_argument("--regressions", type=Path, metavar="PATH",
                        help="regression corpus to export (default: the corpus packaged with knapcheck)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from knapcheck.fuzz.regression_corpus import REGRESSION_CORPUS, load_regression_corpus
    from knapcheck.reports.environment import knapcheck_version
    from knapcheck.reports.pytorch_tests import render_test_file, upstream_cases

    writable_file(args.out, "--out")
    corpus = args.regressions or REGRESSION_CORPUS
    try:
        cases = load_regression_corpus(corpus)
        source = f"knapcheck {knapcheck_version()}, {len(upstream_cases(cases))} cases of {Path(corpus).name}"
        text = render_test_file(cases, source)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    args.out.write_text(text)
    print(f"{len(upstream_cases(cases))} tests written to {args.out} (from {corpus})")
    return exit_status.OK
