"""The candidates' source files as the run read them: one version judged, repaired and reported.

A run reads the digest of each file target's source when it starts (``read_at_start``); the
workers have loaded the file just before. The intervention repairs the text it reads then, only
where that text has the same digest (``knapcheck.fuzz.judging.known.by_cause``), and the run checks
every digest again when it ends (``changed_since``). A file that changed in between (a checkout
switching branches, an editor saving) makes the run incomplete: the commands write the partial
report, naming the change, and exit 3; they never pass a mix of two versions.

What it cannot see: a file changed before the run's start but after its workers loaded it (the
milliseconds between them), or changed and changed back while the run went on, with a worker
restarted in between.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ....solvers.entry import SolverEntry
from .repaired import source_digest


def read_at_start(entries: Iterable[SolverEntry]) -> dict[str, str]:
    """Each file target's name -> the sha256 of its source now (targets without a file are left out)."""
    digests = {entry.name: source_digest(entry.spec) for entry in entries}
    return {name: digest for name, digest in digests.items() if digest}


def changed_since(read: Mapping[str, str], entries: Iterable[SolverEntry]) -> dict[str, str]:
    """The targets whose source no longer has the digest read at the start -> what happened, in words."""
    changes = {}
    for entry in entries:
        if entry.name in read:
            now = source_digest(entry.spec)
            if now != read[entry.name]:
                changes[entry.name] = change_note(read[entry.name], now)
    return changes


def change_note(loaded: str, now: str) -> str:
    """How a file changed, in words: its digest when its workers loaded it, and now ('' where it
    cannot be read any more)."""
    gone = "cannot be read any more" if not now else f"has sha256 {now[:12]} now"
    return f"its file changed during the run (sha256 {loaded[:12]} when its workers loaded it; it {gone})"
