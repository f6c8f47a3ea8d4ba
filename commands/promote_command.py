"""`knapcheck promote`: stored campaign failures become permanent known-failure cases in a corpus.

It writes to the corpus named by ``--corpus``, or, run inside a knapcheck repository, to that
repository's ``fuzz/corpus/known_failures.json`` (the one the package ships); and says which. Outside
a repository without ``--corpus`` it refuses: the installed package's copy is not the place.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..reports.words import counted
from . import exit_status
from .output_checks import KNOWN_FAILURES, writable_file
from .usage import UsageError

CORPUS_IN_REPOSITORY = Path("fuzz") / "corpus" / "known_failures.json"

EXAMPLES = """\
examples:
  knapcheck promote --db campaign-db                   inside a knapcheck checkout: its corpus
  knapcheck promote --db campaign-db --corpus my-corpus.json --solvers torch:dp_knapsack
  knapcheck report --candidate ... --corpus my-corpus.json --out report"""


DESCRIPTION = (
    "Add a campaign's stored failures to a known-failure corpus: our solvers' cases must pass from"
    " then on, upstream's are expected failures. A failure whose signature (solver, verdict, cause)"
    " the corpus already holds is skipped, or replaces that case when it is smaller; every skip is"
    " named with its reason. Writes to --corpus, or, run inside a knapcheck repository, to its"
    " fuzz/corpus/known_failures.json; says which."
)


def epilog() -> str:
    return "\n\n".join([EXAMPLES, exit_status.help_text(None)])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, required=True, metavar="DIR", help="the campaign's failure store")
    parser.add_argument("--corpus", type=Path, metavar="PATH",
                        help="corpus file to add to (default: the repository's, when run inside a knapcheck repository)")
    parser.add_argument("--solvers", nargs="+", metavar="NAME", help="promote only these solvers' failures")
    parser.set_defaults(run=run)


def repository_corpus(start: Path) -> Path | None:
    """The corpus of the knapcheck repository that holds ``start``, if it is inside one."""
    from ..fuzz.corpus.reader import UnreadableFile, read_bytes

    for directory in [start, *start.parents]:
        corpus = directory / CORPUS_IN_REPOSITORY
        if not corpus.is_file():
            continue
        try:
            pyproject = read_bytes(directory / "pyproject.toml", limit=2**20).decode("utf-8", "replace")
        except UnreadableFile:
            continue
        if re.search(r'^name\s*=\s*"knapcheck"', pyproject, re.M):
            return corpus
    return None


def target_corpus(named: Path | None) -> tuple[Path, str]:
    """The corpus to write, and why that one."""
    if named is not None:
        return named, "named by --corpus"
    found = repository_corpus(Path.cwd().resolve())
    if found is None:
        raise UsageError(
            "not inside a knapcheck repository, so name the corpus to write with --corpus"
            " (the installed package's corpus is not written to)"
        )
    return found, "the repository's corpus, found from the current directory"


def run(args: argparse.Namespace) -> int:
    from ..fuzz.campaign.promotion import false_claim, promote
    from ..fuzz.campaign.store import FailureStore
    from ..fuzz.corpus.known_failures import load_known_failures

    if not (args.db / "failures").is_dir():
        raise UsageError(f"--db {args.db} holds no failure store (no {args.db / 'failures'})")
    corpus, why = target_corpus(args.corpus)
    try:
        load_known_failures(corpus, missing_ok=True)
    except ValueError as exc:
        raise UsageError(f"--corpus: {exc}") from None
    writable_file(corpus, "--corpus", KNOWN_FAILURES)
    store = FailureStore(args.db)
    stored = list(store.groups().values())
    for bad in store.bad_files:
        where = f"moved to {bad.moved_to}" if bad.moved_to else "left in place: the store cannot be changed"
        print(f"knapcheck promote: skipped unreadable {bad.path} ({bad.reason}); {where}", file=sys.stderr)
    others = 0
    if args.solvers:
        others = sum(s.solver not in args.solvers for s in stored)
        stored = [s for s in stored if s.solver in args.solvers]
    refused = [(s, false_claim(s)) for s in stored if false_claim(s)]
    for record, problem in refused:
        print(f"knapcheck promote: refused {record.path}: {problem}", file=sys.stderr)
    try:
        done = promote([s for s in stored if not false_claim(s)], corpus)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    for case in done.added:
        print(f"added {case.id} ({_what(case)}; {_kind(case)})")
    for old, new in done.replaced:
        print(f"replaced {old.id} (n={old.instance.n}) by the smaller {new.id} ({_what(new)}; {_kind(new)})")
    for skipped in done.skipped:
        print(f"skipped {skipped.stored.path}: {skipped.reason}")
    refusals = f"; {len(refused)} stored {'record' if len(refused) == 1 else 'records'} refused (above)" if refused else ""
    if others:
        refusals += f"; {others} of other solvers left out (--solvers)"
    print(f"{counted(len(done.added), 'case')} added to {corpus} ({why}); {len(done.replaced)} replaced by a smaller one;"
          f" {len(done.skipped)} skipped{' (above)' if done.skipped else ''}{refusals}")
    return exit_status.OK




def _what(case) -> str:
    return f"{case.solver} {case.verdict}, family {case.family}, n={case.instance.n}"


def _kind(case) -> str:
    return "ours: must pass" if case.ours else "upstream: strict xfail"
