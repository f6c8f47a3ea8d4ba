"""The campaign's failure store: every failure on disk the moment it is found, grouped by signature.

Layout under the store's root::

    failures/<group>/<n>-<chars>-<digest>.json
    unreadable/<group>--<file>          files set aside because they could not be trusted

A group is one signature (``knapcheck.fuzz.judging.verdicts.signature``): in a campaign against a baseline, the
baseline's verdict on the instance is part of it, so a regression (the baseline passes) and a
failure the baseline shares are two groups, each with its own smallest instance, and neither is
pruned in favour of the other. Each file is one failing instance, written
atomically (a temporary file, fsync, ``os.replace``, fsync of the directory), so a ``kill -9``
leaves either the whole file or none. A file's name is derived from its instance
(``record_name``) and sorts smallest instance first, so the smallest instance of a group is its
first readable file. ``prune`` keeps only that one.

Nothing on disk is trusted, names included. Every file is read by ``knapcheck.fuzz.corpus.reader``
(regular files only: a FIFO, a device or a symbolic link is refused unread; a size and a nesting
limit; NaN refused) and checked against the record's schema; a file that is not a complete, valid
record (truncated, empty, not UTF-8, not a JSON object, a missing or mistyped field, an instance
the contract rejects, a record filed under another signature's group, or a name that is not the
one its instance gives) is moved to ``unreadable/``, reported in ``bad_files``, and never read again,
and it never counts as a group's smallest instance, so it is never the reason a valid file is
deleted. Readers skip the hidden temporary files of a writer at work and files another process has
just removed. A store that cannot be changed (a read-only directory) is read all the same: what
could not be moved or removed is said in ``errors``, never raised, so a campaign still writes its
report.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from ...oracles.verdict import Verdict
from ...solvers.contract import Instance
from ...solvers.specs import current_name
from ..corpus.atomic_write import write_atomically
from ..corpus.reader import InvalidJson, UnreadableFile, parse_json, read_bytes
from ..corpus.schema import INSTANCE, boolean, obj, one_of, string
from ..judging.verdicts.differential import NOT_RUN, Check, instance_id
from ..judging.verdicts.signature import Signature

SCHEMA_VERSION = 1
STALE_TEMPORARY_SECONDS = 3600
"""A temporary file this old belongs to no live writer and may be removed."""

RECORD = obj(
    {
        "schema_version": one_of(SCHEMA_VERSION),
        "solver": string,
        "verdict": one_of(*(v.value for v in Verdict)),
        "family": string,
        "ours": boolean,
        "exact": boolean,
        "origin": string,
        "detail": string,
        "found_at": string,
        "instance": INSTANCE,
    },
    {"baseline": string, "baseline_verdict": one_of(*(v.value for v in Verdict), NOT_RUN), "instance_id": string,
     "known": string},
)
"""A stored failure; keys it does not name are allowed (a newer knapcheck may add optional ones).
``baseline`` and ``baseline_verdict``: the counterpart baseline and its verdict on the instance, in
records of a campaign run against one (older records have neither); ``known``: the known defects of
the baseline that explain the failure, comma-separated, in such records (absent for a regression);
``instance_id``: the instance's id (``knapcheck.fuzz.judging.verdicts.differential.instance_id``), checked
against the instance."""
KNOWN_NAMES = re.compile(r"[a-z][a-z0-9_]{0,63}(,[a-z][a-z0-9_]{0,63}){0,15}")
"""What a record's ``known`` may hold: defect names, comma-separated."""


class UnreadableRecord(ValueError):
    """A stored file that is not a complete, valid failure record; the message says why."""


@dataclass(frozen=True)
class StoredFailure:
    """One failing instance as the store keeps it."""

    solver: str
    verdict: str
    family: str
    instance: Instance
    ours: bool
    exact: bool
    origin: str
    detail: str
    found_at: str
    path: Path | None = None
    baseline: str = ""
    """The counterpart baseline it was judged against; empty when none."""
    baseline_verdict: str = ""
    """The baseline's verdict on the same instance (NOT_RUN when not run there); empty without a baseline."""
    known: str = ""
    """The known defects of the baseline that explain it (``Signature.known``); empty when none does."""

    @property
    def signature(self) -> Signature:
        return Signature(self.solver, self.verdict, self.baseline_verdict, self.known)

    @property
    def instance_id(self) -> str:
        return instance_id(self.instance)

    @classmethod
    def of(cls, failure: Check) -> "StoredFailure":
        return cls(
            solver=failure.solver.name,
            verdict=failure.verdict.value,
            family=failure.family,
            instance=failure.instance,
            ours=failure.solver.ours,
            exact=failure.solver.exact,
            origin=failure.solver.origin,
            detail=failure.judgement.detail,
            found_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            baseline=failure.counterpart.name if failure.counterpart is not None else "",
            baseline_verdict=failure.baseline_verdict or "",
            known=Signature.of(failure).known,
        )

    def as_dict(self) -> dict:
        return {
            "schema_version": SCHEMA_VERSION,
            "solver": self.solver,
            "verdict": self.verdict,
            "family": self.family,
            "ours": self.ours,
            "exact": self.exact,
            "origin": self.origin,
            "detail": self.detail,
            "found_at": self.found_at,
            **({"baseline": self.baseline, "baseline_verdict": self.baseline_verdict} if self.baseline_verdict else {}),
            **({"known": self.known} if self.known else {}),
            "instance_id": self.instance_id,
            "instance": self.instance.as_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict, path: Path | None = None) -> "StoredFailure":
        """A record that ``RECORD`` accepts; ValueError when its instance breaks the contract."""
        return cls(
            solver=data["solver"],
            verdict=data["verdict"],
            family=data["family"],
            instance=Instance.from_dict(data["instance"]),
            ours=data["ours"],
            exact=data["exact"],
            origin=data["origin"],
            detail=data["detail"],
            found_at=data["found_at"],
            path=path,
            baseline=data.get("baseline", ""),
            baseline_verdict=data.get("baseline_verdict", ""),
            known=data.get("known", ""),
        )


def parse_record(data: bytes, path: Path | None = None) -> StoredFailure:
    """A stored file's bytes as a StoredFailure; UnreadableRecord saying what is wrong otherwise."""
    try:
        record = cast(dict[str, Any], parse_json(data, RECORD))  # RECORD is an object's schema
    except InvalidJson as exc:
        raise UnreadableRecord(str(exc)) from None
    try:
        stored = StoredFailure.from_dict(record, path)
    except ValueError as exc:
        raise UnreadableRecord(f"invalid instance: {exc}") from None
    if "instance_id" in record and record["instance_id"] != stored.instance_id:
        raise UnreadableRecord(f"its instance_id is not its instance's ({stored.instance_id})")
    if bool(stored.baseline) != bool(stored.baseline_verdict):
        raise UnreadableRecord("baseline and baseline_verdict come together")
    if stored.known and not (stored.baseline and KNOWN_NAMES.fullmatch(stored.known)):
        raise UnreadableRecord("known names defects of a baseline, comma-separated, in a record against one")
    return stored


@dataclass(frozen=True)
class BadFile:
    """A stored file that could not be trusted, and where it was moved (None: it could not be)."""

    path: Path
    moved_to: Path | None
    reason: str


def group_name(signature: Signature) -> str:
    """A directory name for a signature: readable, and unique even when two names slug alike
    (``SOLVER--VERDICT--DIGEST``, or ``SOLVER--VERDICT--vs-BASELINE_VERDICT--DIGEST`` against a baseline)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", signature.solver.rpartition("/")[2])[-60:]
    digest = hashlib.sha1("\0".join(signature.parts()).encode()).hexdigest()[:10]
    against = f"--vs-{signature.baseline}" if signature.baseline else ""
    known = "--known" if signature.known else ""
    return f"{slug}--{signature.verdict}{against}{known}--{digest}"


def record_name(instance: Instance) -> str:
    """The file name of an instance's record; names sort smallest instance first."""
    text = json.dumps(instance.as_dict(), sort_keys=True)
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    return f"{instance.n:05d}-{len(text):09d}-{digest}.json"


def _listing(directory: Path) -> list[Path]:
    """The entries of a directory, sorted; none if it has vanished or cannot be listed."""
    try:
        return sorted(directory.iterdir())
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []


class FailureStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.failures = self.root / "failures"
        self.unreadable = self.root / "unreadable"
        self.bad_files: list[BadFile] = []
        """Files this store object has found untrustworthy, set aside (or not, when it could not be)."""
        self.errors: list[str] = []
        """What this store object could not do to the directory (move or remove a file), each once."""
        self._refused: set[Path] = set()

    def _records(self, directory: Path) -> list[Path]:
        return [p for p in _listing(directory) if p.suffix == ".json" and not p.name.startswith(".") and p not in self._refused]

    def _read(self, path: Path) -> StoredFailure | None:
        """The record at ``path``; None when it has just vanished, or when it cannot be trusted (then set aside)."""
        try:
            stored = parse_record(read_bytes(path, follow_symlinks=False), path)
        except UnreadableFile as exc:
            if exc.reason != "does not exist":
                self._set_aside(path, exc.reason)
            return None
        except UnreadableRecord as exc:
            self._set_aside(path, str(exc))
            return None
        if group_name(stored.signature) != path.parent.name:
            self._set_aside(path, f"records {stored.solver} {stored.verdict}, not this group's signature")
            return None
        expected = record_name(stored.instance)
        if path.name != expected:
            self._set_aside(path, f"its instance's record is named {expected}: a file's name is not trusted")
            return None
        return replace(stored, solver=current_name(stored.solver))

    def _error(self, text: str) -> None:
        if text not in self.errors:
            self.errors.append(text)

    def _set_aside(self, path: Path, reason: str) -> None:
        """Move an untrustworthy file to ``unreadable/`` and remember why (unless it has just vanished);
        a file that cannot be moved is never read again by this store object, and said in ``errors``."""
        self._refused.add(path)
        base = f"{path.parent.name}--{path.name}"
        target = self.unreadable / base
        copy = 1
        try:
            self.unreadable.mkdir(parents=True, exist_ok=True)
            while target.exists():
                target = self.unreadable / f"{base}.{copy}"
                copy += 1
            os.rename(path, target)
        except FileNotFoundError:
            if not os.path.lexists(path):
                return
            self._cannot(f"set aside {path}", "unreadable/ vanished")
            self.bad_files.append(BadFile(path, None, reason))
            return
        except OSError as exc:
            self._cannot(f"set aside {path}", exc.strerror or str(exc))
            self.bad_files.append(BadFile(path, None, reason))
            return
        self.bad_files.append(BadFile(path, target, reason))

    def _cannot(self, action: str, why: str) -> None:
        self._error(f"the failure store cannot {action}: {why}")

    def _smallest(self, directory: Path) -> tuple[StoredFailure | None, list[Path]]:
        """A group's smallest readable record, and the files after it."""
        files = self._records(directory)
        for index, path in enumerate(files):
            stored = self._read(path)
            if stored is not None:
                return stored, files[index + 1 :]
        return None, []

    def _groups(self) -> list[Path]:
        return [d for d in _listing(self.failures) if d.is_dir() and not d.is_symlink()]

    def record(self, failure: Check) -> Path | None:
        """Store a failure unless its group already holds a readable instance at least as small.

        Returns the file written, or None when the group already had a smaller (or the same) one.
        OSError when the store cannot take it (the caller keeps the finding).
        """
        stored = StoredFailure.of(failure)
        name = record_name(stored.instance)
        directory = self.failures / group_name(stored.signature)
        smallest, _ = self._smallest(directory)
        if smallest is not None and record_name(smallest.instance) <= name:
            return None
        path = directory / name
        write_atomically(path, json.dumps(stored.as_dict(), indent=1))
        return path

    def groups(self) -> dict[Signature, StoredFailure]:
        """The smallest readable stored failure of every group."""
        found: dict[Signature, StoredFailure] = {}
        for directory in self._groups():
            smallest, _ = self._smallest(directory)
            if smallest is not None:
                found[smallest.signature] = smallest
        return found

    def prune(self) -> None:
        """Keep the smallest readable instance of each group; set aside unreadable files; remove
        temporary files no live writer can still own. What cannot be done is said in ``errors``."""
        now = time.time()
        for directory in self._groups():
            _, larger = self._smallest(directory)
            for path in larger:
                if self._read(path) is not None:
                    self._remove(path)
            for temporary in _listing(directory):
                if not temporary.name.startswith(".tmp-"):
                    continue
                try:
                    stale = now - temporary.lstat().st_mtime > STALE_TEMPORARY_SECONDS
                except FileNotFoundError:
                    continue
                if stale:
                    self._remove(temporary)

    def _remove(self, path: Path) -> None:
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            self._cannot(f"remove {path}", exc.strerror or str(exc))
