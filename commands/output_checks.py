"""Where commands write: checked before any work, then written so that no file of anyone else's is lost.

A command writes an output file only where nothing is, or over a file of the same kind that a
knapcheck command wrote (a report run again into its directory, a corpus harvested again): a
file that begins as knapcheck writes that kind (``OutputKind``). Anything else at an output's
path (a symbolic link, wherever it points; a file of the user's; a directory, a FIFO) is refused
in one line before any work, by ``writable_file`` and ``writable_directory``. ``write_output``
then writes the file whole, atomically: a new file beside it, linked into place only where
nothing is, or renamed over knapcheck's own earlier output, never opened through a link. A file
that appears at the path while the command runs is kept, and the output is left under another
name, which the error names.

Logs are appended to, never replaced: checked as an output of kind None, a log may be nothing, a
regular file or ``/dev/null``, never a symbolic link, and the code that opens it follows no link.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .usage import UsageError

_MARK_BYTES = 4096
"""How much of an existing file is read to tell whether knapcheck wrote it (JSON is read whole)."""


@dataclass(frozen=True)
class OutputKind:
    """A kind of file a command writes, and how a file of that kind that knapcheck wrote is told."""

    what: str
    """What the file is, for messages: ``a report``, ``a harvested corpus file``."""
    is_ours: Callable[[bytes], bool]
    """Whether a file's bytes are such a file, written by knapcheck."""


def begins_with(text: str) -> Callable[[bytes], bool]:
    """Whether the file begins with ``text``."""
    mark = text.encode()
    return lambda data: data.startswith(mark)


def holds(text: str) -> Callable[[bytes], bool]:
    """Whether the file's first _MARK_BYTES hold ``text``."""
    mark = text.encode()
    return lambda data: mark in data[:_MARK_BYTES]


def json_object_with(*keys: str, **values: str) -> Callable[[bytes], bool]:
    """Whether the file is a JSON object with ``keys`` and these ``values``. Read within the one JSON
    reader's limits (its size, then its nesting), but taking NaN and infinities, which
    knapcheck's own outputs may hold."""

    def recognize(data: bytes) -> bool:
        from ..fuzz.corpus.reader import too_deep

        try:
            text = data.decode("utf-8")
            document = None if too_deep(text) else json.loads(text)
        except (ValueError, RecursionError):
            return False
        return (isinstance(document, dict) and set(keys) <= set(document)
                and all(document.get(key) == value for key, value in values.items()))

    return recognize


REPORT_MARKDOWN = OutputKind("a report (report.md)", begins_with("# knapcheck report: "))
REPORT_JSON = OutputKind("a report (report.json)", json_object_with("schema_version", "command", "environment", "correctness"))
REPORT_HTML = OutputKind("a report (report.html)", holds("<title>knapcheck report: "))
CAMPAIGN_MARKDOWN = OutputKind("a campaign report (campaign.md)", begins_with("# knapcheck fuzz campaign"))
CAMPAIGN_JSON = OutputKind("a campaign report (campaign.json)",
                           json_object_with("schema_version", "partial", "as_asked", "problems"))
CHECK_JSON = OutputKind("a check result (check --json)",
                        json_object_with("schema_version", "instances", "sources", "solvers", "failures"))
BENCH_JSON = OutputKind("a benchmark (bench --json)",
                        json_object_with("schema_version", "repeats", "time_limit", "solvers", "rows"))
HARVESTED = OutputKind("a harvested corpus file",
                       json_object_with("schema_version", "records", format="knapcheck-harvested-corpus"))
KNOWN_FAILURES = OutputKind("a known-failure corpus", json_object_with("schema_version", "cases"))
EXPORTED_TESTS = OutputKind("a test file (export-tests)", holds("Exported by `knapcheck export-tests`"))


def _probe(directory: Path) -> None:
    """Prove ``directory`` writable by creating and removing a file in it."""
    descriptor, probe = tempfile.mkstemp(dir=directory, prefix=".knapcheck-write-check-")
    os.close(descriptor)
    os.unlink(probe)


def _problem(path: Path, kind: OutputKind | None) -> str:
    """Why ``path`` cannot take the output (empty when it can): what is there, unless it is nothing
    or, for ``kind``, knapcheck's own earlier output of that kind. ``kind`` None: a log, appended to."""
    from ..fuzz.corpus.reader import UnreadableFile, read_bytes

    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        return f"cannot be looked at ({exc.strerror or exc})"
    if stat.S_ISLNK(status.st_mode):
        return "is a symbolic link; knapcheck writes through none"
    if stat.S_ISDIR(status.st_mode):
        return "is a directory, expected a file"
    if kind is None and os.path.samestat(status, os.stat(os.devnull)):
        return ""
    if not stat.S_ISREG(status.st_mode):
        return f"not a regular file (expected a file to append to, or {os.devnull})" if kind is None else "is not a regular file"
    if kind is None:
        return "" if os.access(path, os.W_OK) else "the file is not writable"
    try:
        data = read_bytes(path, follow_symlinks=False)
    except UnreadableFile as exc:
        return f"exists and cannot be read ({exc.reason}), so it is not replaced"
    if kind.is_ours(data):
        return ""
    return f"exists and is not {kind.what} knapcheck wrote; knapcheck replaces only its own: remove it or write elsewhere"


def _check(path: Path, option: str, kind: OutputKind | None) -> None:
    problem = _problem(path, kind)
    if problem:
        raise UsageError(f"{option} {path}: {problem}")


def writable_directory(path: Path, option: str, outputs: dict[str, OutputKind | None] | None = None) -> Path:
    """Create ``path`` (and its parents) if needed and prove it writable by writing a file there;
    each of ``outputs`` (file name -> its kind; None for a log appended to) must be able to go there.

    UsageError naming ``option`` when it is not a directory, cannot be written, or an output cannot go there.
    """
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        _probe(path)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write there ({exc.strerror or exc})") from None
    for name, kind in (outputs or {}).items():
        _check(path / name, option, kind)
    return path


def writable_file(path: Path, option: str, kind: OutputKind | None) -> Path:
    """Prove that the file ``path`` can be written (its directory is created if needed), without
    touching an existing file: nothing may be there but knapcheck's own output of ``kind`` (or, with
    ``kind`` None, a regular file to append to); UsageError naming ``option`` otherwise."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _probe(path.parent)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write there ({exc.strerror or exc})") from None
    _check(path, option, kind)
    return path


class OutputTaken(OSError):
    """An output's path was taken, while the command ran, by something knapcheck did not write; the
    output was written under another name, which the message gives."""


def write_output(path: Path, text: str, kind: OutputKind) -> None:
    """Write ``text`` to ``path`` whole: where nothing is, or over knapcheck's own output of ``kind``
    (``writable_file`` checked it before the work). OutputTaken when something else is there now."""
    path = Path(path)
    temporary = path.with_name(f".knapcheck-new-{os.urandom(8).hex()}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(descriptor, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        _put(temporary, path, kind)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _put(temporary: Path, path: Path, kind: OutputKind) -> None:
    try:
        os.link(temporary, path, follow_symlinks=False)
        temporary.unlink()
        return
    except FileExistsError:
        pass
    except OSError:
        if not os.path.lexists(path):
            os.replace(temporary, path)
            return
    problem = _problem(path, kind)
    if not problem:
        os.replace(temporary, path)
        return
    kept = path.with_name(f"{path.stem[:100]}.knapcheck-{os.urandom(4).hex()}{path.suffix}")
    os.replace(temporary, kept)
    raise OutputTaken(f"{path} {problem.split(';')[0]} (it appeared while the command ran): the output is in {kept} instead")
