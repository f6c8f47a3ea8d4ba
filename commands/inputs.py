"""What `check` and `report` check besides the families' samples: the known-failure corpus, instance files.

The corpus packaged with knapcheck (``fuzz/corpus/known_failures.json``, inside the installed package)
is checked by default, from any directory; ``--corpus PATH`` names another, which must exist.
``--instances FILE ...`` adds instance files and files ``knapcheck harvest`` wrote. Every file is
read before any work: a missing or malformed one is a usage error.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .usage import UsageError

if TYPE_CHECKING:
    from ..solvers.contract import Instance

CORPUS_SOURCE = "regression corpus"
"""The family name the known-failure corpus's instances have in every output (check's table and
--json, report.json): the corpus's name before it was renamed, kept because scripts and reports
read it (docs/check.md, "The known-failure corpus")."""


def family_list() -> str:
    """The family names, once, for a help epilog (argparse would repeat choices in every usage line),
    and which of them are enumerated."""
    from ..fuzz.instances import families

    names = textwrap.fill(", ".join(families.names()), width=96, initial_indent="  ", subsequent_indent="  ")
    listed = ", ".join(families.names(enumerated=True))
    fixed = textwrap.fill(f"fixed lists, taken in full: {listed}",
                          width=96, initial_indent="  ", subsequent_indent="  ")
    return f"instance families (--families NAME ...; default: all):\n{names}\n{fixed}"


def checked_families(names: list[str] | None) -> list[str]:
    """The families asked for (all by default); UsageError naming an unknown one."""
    from ..fuzz.instances import families

    known = families.names()
    if names is None:
        return known
    unknown = [name for name in names if name not in known]
    if unknown:
        raise UsageError(f"--families: unknown {', '.join(map(repr, unknown))}; known: {', '.join(known)}")
    return list(dict.fromkeys(names))


def add_corpus_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """``--corpus PATH``, the known-failure corpus to read; ``--regressions``, its name until the
    corpus was renamed, still works and is no longer listed (docs/check.md)."""
    parser.add_argument("--corpus", type=Path, metavar="PATH", help=help)
    parser.add_argument("--regressions", dest="corpus", type=Path, help=argparse.SUPPRESS)


def add_instance_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--families", nargs="+", metavar="NAME", help="instance families to sample (default: all; listed below)")
    add_corpus_argument(parser, "known-failure corpus whose instances are checked too (default: the corpus packaged with knapcheck)")
    parser.add_argument("--instances", type=Path, nargs="+", default=[], metavar="FILE",
                        help="instance files, or files knapcheck harvest wrote, whose instances are checked too")


@dataclass
class StoredInstances:
    """Instances to check besides the families' samples, by source name."""

    instances: dict[str, list[Instance]] = field(default_factory=dict)
    corpus: Path | None = None
    cases: list = field(default_factory=list)
    """The corpus's cases (``knapcheck.fuzz.corpus.known_failures.KnownFailure``): what tells known failures from new ones."""

    @property
    def counts(self) -> dict[str, int]:
        return {name: len(found) for name, found in self.instances.items()}

    def description(self, family_names: list[str], per_family: int) -> str:
        """Where the instances came from, in one line."""
        from ..fuzz.instances import families

        listed = [name for name in family_names if families.get(name).enumerated]
        parts = [f"{len(family_names) - len(listed)} families x {per_family} sampled"]
        if listed:
            parts.append(f"{', '.join(listed)} in full")
        for name, count in self.counts.items():
            parts.append(f"{count} cases of the known-failure corpus at {self.corpus}" if name == CORPUS_SOURCE
                         else f"{count} from {name}")
        return ", ".join(parts)


def trusted_cases(corpus: Path) -> list:
    """The corpus's cases that can be trusted; one line on stderr for each one quarantined
    (``knapcheck.fuzz.corpus.known_failures.KnownFailureCorpus``). ValueError when it cannot be read."""
    from ..fuzz.corpus.known_failures import read_known_failures

    read = read_known_failures(corpus)
    for line in read.notes():
        print(f"knapcheck: {line}", file=sys.stderr)
    return list(read.cases)


def stored_instances(corpus: Path | None, files: list[Path]) -> StoredInstances:
    """The corpus's instances (the packaged corpus when ``corpus`` is None) and the files'. A
    corpus case whose cause cannot be trusted is left out, one line on stderr for each."""
    from ..fuzz.corpus.instance_files import read_instances
    from ..fuzz.corpus.known_failures import KNOWN_FAILURES

    corpus = KNOWN_FAILURES if corpus is None else corpus
    try:
        cases = trusted_cases(corpus)
        stored = StoredInstances({CORPUS_SOURCE: [case.instance for case in cases]}, corpus=Path(corpus), cases=cases)
        for path in files:
            stored.instances[str(path)] = [found.instance for found in read_instances(path)]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return stored
