"""The campaign's failure store: every failure on disk the moment it is found, grouped by signature.

Layout under the store's root::

    failures/<group>/<n>-<chars>-<digest>.json

A group is one signature (solver, verdict kind). Each file is one failing instance, written
atomically (a temporary file, fsync, ``os.replace``, fsync of the directory), so a ``kill -9``
leaves either the whole file or none. File names sort by instance size, so the smallest instance
of a group is its first file; concurrent writers never clobber each other because distinct
instances have distinct names. ``prune`` keeps only the smallest file of each group.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from fuzz.differential import Check
from solvers.contract import Instance

SCHEMA_VERSION = 1
STALE_TEMPORARY_SECONDS = 3600
"""A temporary file this old belongs to no live writer and may be removed."""

Signature = tuple[str, str]


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


def group_name(signature: Signature) -> str:
    """A directory name for a signature: readable, and unique even when two names slug alike."""
    solver, verdict = signature
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", solver.rpartition("/")[2])[-60:]
    digest = hashlib.sha1(f"{solver}\0{verdict}".encode()).hexdigest()[:10]
    return f"{slug}--{verdict}--{digest}"


def _file_name(instance: Instance) -> str:
    text = json.dumps(instance.as_dict(), sort_keys=True)
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    return f"{instance.n:05d}-{len(text):09d}-{digest}.json"


class FailureStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.failures = self.root / "failures"

    def _group_files(self, signature: Signature) -> list[Path]:
        directory = self.failures / group_name(signature)
        if not directory.is_dir():
            return []
        return sorted(p for p in directory.iterdir() if p.suffix == ".json" and not p.name.startswith("."))

    def record(self, failure: Check) -> Path | None:
        """Store a failure unless its group already holds an instance at least as small.

        Returns the file written, or None when the group already had a smaller (or the same) one.
        """
        stored = StoredFailure.of(failure)
        name = _file_name(stored.instance)
        existing = self._group_files(stored.signature)
        if existing and existing[0].name <= name:
            return None
        path = self.failures / group_name(stored.signature) / name
        write_atomically(path, json.dumps(stored.as_dict(), indent=1))
        return path

    def groups(self) -> dict[Signature, StoredFailure]:
        """The smallest stored failure of every group."""
        found: dict[Signature, StoredFailure] = {}
        if not self.failures.is_dir():
            return found
        for directory in sorted(self.failures.iterdir()):
            for path in sorted(directory.glob("[!.]*.json")):
                try:
                    stored = StoredFailure.from_dict(json.loads(path.read_text()), path)
                except (OSError, ValueError, KeyError) as exc:
                    raise ValueError(f"failure store {self.root}: cannot read {path}: {exc}") from None
                found[stored.signature] = stored
                break
        return found

    def prune(self) -> None:
        """Keep the smallest instance of each group; remove abandoned temporary files."""
        if not self.failures.is_dir():
            return
        now = time.time()
        for directory in self.failures.iterdir():
            files = sorted(directory.glob("[!.]*.json"))
            for path in files[1:]:
                path.unlink(missing_ok=True)
            for temporary in directory.glob(".tmp-*"):
                if now - temporary.stat().st_mtime > STALE_TEMPORARY_SECONDS:
                    temporary.unlink(missing_ok=True)
