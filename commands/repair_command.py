"""`knapcheck repair SPEC --out FILE`: the source file of SPEC's solvers with their known defects repaired;
`knapcheck repair torch --series DIR`: the same repairs as upstream pull requests, one patch per defect."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import exit_status
from .inputs import add_corpus_argument
from .output_checks import OutputKind, begins_with, writable_directory, writable_file, write_output
from .targets import SPEC_FORMS, entries_for, prepare_workers
from .usage import UsageError

EXAMPLES = """\
examples:
  knapcheck repair torch --out knapsack.py          the installed torch's file, every known defect repaired
  knapcheck repair torch:dp_knapsack_sliding_hirschberg --out knapsack.py
  knapcheck repair pr/knapsack.py --out repaired/knapsack.py
  knapcheck report --candidate knapsack.py --baseline torch --out report
                                                    the gate on the repaired file: fixes, no regression
  knapcheck repair torch --series patches           one git format-patch file per defect, with its test
  git am patches/0003-*.patch                        in a PyTorch checkout: one defect's pull request"""

DESCRIPTION = (
    "Write the source file of SPEC's solvers with every known defect of theirs repaired: each cause"
    " of the known-failure corpus carries the smallest edit of torch's source that removes it"
    " (docs/differential.md lists them with their diffs), applied to each solver's own function where its"
    " code matches unambiguously. Prints which repair changed which lines, and why any other did not"
    " apply. The file is written only where nothing is, or over an earlier output identical to it. With"
    " --series, for torch's own file: one patch per repair instead, in git format-patch form against"
    " torch/_functorch/_activation_checkpointing/knapsack.py, formatted by ruff under PyTorch's settings, each with"
    " a test of the defect's corpus cases added to test/functorch/test_ac_knapsack.py; each applies alone to"
    " torch's file, and all of them in order."
)


def epilog() -> str:
    return "\n\n".join([EXAMPLES, exit_status.help_text("no repair applies: nothing was written")])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("solver", metavar="SPEC", help=f"the solvers whose file to repair: {SPEC_FORMS}")
    written = parser.add_mutually_exclusive_group(required=True)
    written.add_argument("--out", type=Path, metavar="FILE.py", help="the repaired file to write")
    written.add_argument("--series", type=Path, metavar="DIR",
                         help="the directory to write one patch per repair into (SPEC: torch, or torch:NAME)")
    add_corpus_argument(parser, "the known-failure corpus whose causes are the known defects (default: the one packaged"
                             " with knapcheck)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.series is not None:
        _check_series_arguments(args)
    from ..solvers.registry import with_isolation
    from .inputs import stored_instances

    cases = stored_instances(args.corpus, []).cases
    entries = [with_isolation(entry) for entry in entries_for([args.solver], "SPEC")]
    prepare_workers([args.solver], None, all_isolated=True)
    from ..fuzz.judging.known.by_cause import Causes
    from ..fuzz.judging.known.defects import CAUSES
    from ..fuzz.judging.known.repaired import repaired_file
    from ..reports.repairs import applied_text
    from ..solvers.specs import shown_path

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
    if args.series is not None:
        return _write_series(args.series, done, entries, cases)
    repaired = OutputKind("a repaired file identical to this one", lambda data: data == done.source.encode())
    writable_file(args.out, "--out", repaired)
    write_output(args.out, done.source, repaired)
    print(f"{shown_path(done.path)} with {len(applied)} of {len(done.results)} repairs of known defects written to"
          f" {args.out}:")
    for result in done.results:
        print(f"  {result.function}: {applied_text(result)}")
    return exit_status.OK


def _check_series_arguments(args: argparse.Namespace) -> None:
    """One line, before any work, for a SPEC that is not torch's or a DIR that cannot take the patches."""
    from ..solvers import specs

    try:
        spec = specs.parse(args.solver)
    except ValueError as exc:
        raise UsageError(f"SPEC {args.solver}: {exc}") from None
    if spec.kind not in ("torch", "torch_all") or spec.source:
        raise UsageError(f"--series writes patches against torch's own file: SPEC {args.solver} is not torch's"
                         " (give torch or torch:NAME)")
    if args.series.exists() and not args.series.is_dir():
        raise UsageError(f"--series {args.series}: is not a directory")
    writable_directory(args.series, "--series")


def _write_series(directory: Path, done, entries, cases) -> int:
    """One patch per applied repair of ``done`` into ``directory``, numbered in the series' order."""
    from ..fuzz.judging.known.patch_series import FormatError, hunks, patched_entry, series, shown_cases, torch_function
    from ..reports.environment import knapcheck_version
    from ..reports.upstream_patch import START, file_name, render, test_method

    patch_kind = OutputKind("a patch of knapcheck's series", begins_with(START))
    torch_entries = {torch_function(entry): entry for entry in entries}

    def shown(function: str, cause: str, source: str):
        entry = torch_entries[function]
        patched = patched_entry(entry, source, cause)
        if isinstance(patched, str):
            raise ValueError(f"{function} with the {cause} patch cannot be loaded: {patched}")
        of_cause = [case for case in cases if case.cause == cause and case.solver == f"torch:{function}"]
        return shown_cases(entry, patched, of_cause)

    try:
        patches = series(done.original, done.results, shown)
        texts, tests_added = [], 0
        for number, patch in enumerate(patches, 1):
            texts.append(render(patch, number, len(patches), hunks(done.original, patches, number - 1), tests_added,
                                knapcheck_version()))
            tests_added += len(test_method(patch)) + 1 if patch.cases else 0
    except FormatError as exc:
        raise UsageError(f"--series: {exc}") from None
    except ValueError as exc:
        print(f"knapcheck repair: no series written: {exc}")
        return exit_status.FAILED
    names = [file_name(patch, number) for number, patch in enumerate(patches, 1)]
    for name in names:
        writable_file(directory / name, "--series", patch_kind)
    for name, text in zip(names, texts):
        write_output(directory / name, text, patch_kind)
    print(f"{len(patches)} patches, one per repaired defect of torch's file, written to {directory}"
          " (each applies alone to torch's file, and all of them in order):")
    for name, patch in zip(names, patches):
        tests = f"{len(patch.cases)} case{'' if len(patch.cases) == 1 else 's'} in its test" if patch.cases else "no test"
        print(f"  {name}: {patch.function}: {patch.title} ({tests})")
    return exit_status.OK
