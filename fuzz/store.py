"""The campaign's failure store: every failure on disk the moment it is found, grouped by signature.

Layout under the store's root::

    failures/<group>/<n>-<chars>-<digest>.json
    unreadable/<group>--<file>          files set aside because they could not be read

A group is one signature (solver, verdict kind). Each file is one failing instance, written
atomically (a temporary file, fsync, ``os.replace``, fsync of the directory), so a ``kill -9``
leaves either the whole file or none. File names sort by instance size, so the smallest instance
of a group is its first readable file. ``prune`` keeps only that one.

Nothing on disk is trusted: a file that is not a complete, valid record (truncated, empty, not
UTF-8, not a JSON object, a missing or mistyped field, an instance the contract rejects, a record
filed under another signature's group) is moved to ``unreadable/``, reported in ``bad_files``, and
never read again, and it never counts as a group's smallest instance, so it is never the reason a
valid file is deleted. Readers skip the hidden temporary files of a writer at work and files
another process has just removed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from knapcheck.fuzz.differential import Check
from knapcheck.oracles.verdict import Verdict
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.specs import current_name

SCHEMA_VERSION = 1
STALE_TEMPORARY_SECONDS = 3600
"""A temporary file this old belongs to no live writer and may be removed."""

Signature = tuple[str, str]

_FIELDS = {
    "solver": str,
    "verdict": str,
    "family": str,
    "ours": bool,
    "exact": bool,
    "origin": str,
    "detail": str,
    "found_at": str,
    "instance": dict,
}


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a crash at any moment leaves the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(descriptor, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


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

    @property
    def signature(self) -> Signature:
        return self.solver, self.verdict

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
            "instance": self.instance.as_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict, path: Path | None = None) -> "StoredFailure":
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
        )


def _no_constants(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_record(data: bytes, path: Path | None = None) -> StoredFailure:
    """A stored file's bytes as a StoredFailure; UnreadableRecord saying what is wrong otherwise."""
    if not data.strip():
        raise UnreadableRecord("empty file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableRecord(f"not UTF-8 text (byte {exc.start})") from None
    try:
        record = json.loads(text, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise UnreadableRecord(f"not a complete JSON document (truncated?): {exc}") from None
    except ValueError as exc:
        raise UnreadableRecord(str(exc)) from None
    if not isinstance(record, dict):
        raise UnreadableRecord(f"expected a JSON object, got {json.dumps(record)[:40]}")
    version = record.get("schema_version")
    if version != SCHEMA_VERSION:
        raise UnreadableRecord(f"schema_version {version!r}, expected {SCHEMA_VERSION}")
    for key, kind in _FIELDS.items():
        if key not in record:
            raise UnreadableRecord(f"missing key {key!r}")
        if not isinstance(record[key], kind):
            raise UnreadableRecord(f"{key!r} must be a JSON {kind.__name__}, got {json.dumps(record[key])[:40]}")
    if record["verdict"] not in {v.value for v in Verdict}:
        raise UnreadableRecord(f"unknown verdict {record['verdict']!r}")
    try:
        return StoredFailure.from_dict(record, path)
    except ValueError as exc:
        raise UnreadableRecord(f"invalid instance: {exc}") from None


@dataclass(frozen=True)
class BadFile:
    """A stored file that could not be read, and where it was moved."""

    path: Path
    moved_to: Path
    reason: str


def group_name(signature: Signature) -> str:
    """A directory name for a signature: readable, and unique even when two names slug alike."""
    solver, verdict = signature
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", solver.rpartition("/")[2])[-60:]
    digest = hashlib.sha1(f"{solver}\0{verdict}".encode()).hexdigest()[:10]
    return f"{slug}--{verdict}--{digest}"


def record_name(instance: Instance) -> str:
    """The file name of an instance's record; names sort smallest instance first."""
    text = json.dumps(instance.as_dict(), sort_keys=True)
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    return f"{instance.n:05d}-{len(text):09d}-{digest}.json"


def _listing(directory: Path) -> list[Path]:
    """The entries of a directory, sorted; none if it has vanished."""
    try:
        return sorted(directory.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []


class FailureStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.failures = self.root / "failures"
        self.unreadable = self.root / "unreadable"
        self.bad_files: list[BadFile] = []
        """Files this store object has found unreadable and set aside."""

    def _records(self, directory: Path) -> list[Path]:
        return [p for p in _listing(directory) if p.suffix == ".json" and not p.name.startswith(".")]

    def _read(self, path: Path) -> StoredFailure | None:
        """The record at ``path``; None when it has just vanished, or when it is unreadable (then set aside)."""
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._set_aside(path, f"cannot be read: {exc.strerror or exc}")
            return None
        try:
            stored = parse_record(data, path)
        except UnreadableRecord as exc:
            self._set_aside(path, str(exc))
            return None
        if group_name(stored.signature) != path.parent.name:
            self._set_aside(path, f"records {stored.solver} {stored.verdict}, not this group's signature")
            return None
        return replace(stored, solver=current_name(stored.solver))

    def _set_aside(self, path: Path, reason: str) -> None:
        """Move an unreadable file to ``unreadable/`` and remember why (unless it has just vanished)."""
        self.unreadable.mkdir(parents=True, exist_ok=True)
        base = f"{path.parent.name}--{path.name}"
        target = self.unreadable / base
        copy = 1
        while target.exists():
            target = self.unreadable / f"{base}.{copy}"
            copy += 1
        try:
            os.rename(path, target)
        except FileNotFoundError:
            return
        self.bad_files.append(BadFile(path, target, reason))

    def _smallest(self, directory: Path) -> tuple[StoredFailure | None, list[Path]]:
        """A group's smallest readable record, and the files after it."""
        files = self._records(directory)
        for index, path in enumerate(files):
            stored = self._read(path)
            if stored is not None:
                return stored, files[index + 1 :]
        return None, []

    def _groups(self) -> list[Path]:
        return [d for d in _listing(self.failures) if d.is_dir()]

    def record(self, failure: Check) -> Path | None:
        """Store a failure unless its group already holds a readable instance at least as small.

        Returns the file written, or None when the group already had a smaller (or the same) one.
        """
        stored = StoredFailure.of(failure)
        name = record_name(stored.instance)
        directory = self.failures / group_name(stored.signature)
        smallest, _ = self._smallest(directory)
        if smallest is not None and smallest.path.name <= name:
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
        temporary files no live writer can still own."""
        now = time.time()
        for directory in self._groups():
            _, larger = self._smallest(directory)
            for path in larger:
                if self._read(path) is not None:
                    path.unlink(missing_ok=True)
            for temporary in _listing(directory):
                if not temporary.name.startswith(".tmp-"):
                    continue
                try:
                    if now - temporary.stat().st_mtime > STALE_TEMPORARY_SECONDS:
                        temporary.unlink(missing_ok=True)
                except FileNotFoundError:
                    pass
