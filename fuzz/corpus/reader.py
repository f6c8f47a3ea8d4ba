"""The one way knapcheck reads a file it did not just write: no file is trusted.

Every JSON file (a stored failure, the regression corpus, an instance file, a harvested corpus, a
campaign event's text) and every entry of Hypothesis's example directory is read here:

- regular files only: the file is opened without blocking and checked after it is open (``fstat``),
  so a FIFO is refused instead of waited on, and a device (a symbolic link to ``/dev/zero``) is
  refused instead of read without end; where a symbolic link has no business (inside the store),
  the link itself is refused;
- at most ``MAX_BYTES`` bytes, however the file grows while it is read;
- UTF-8, nested at most ``MAX_DEPTH`` levels deep, counted without recursion before Python's
  parser (which recurses) sees the text;
- numbers JSON allows: no NaN or Infinity, none beyond a float's range (``1e400``);
- then the file kind's schema (``knapcheck.fuzz.corpus.schema``).

Whatever is wrong is one ``UnreadableFile`` naming the file and the reason: a command turns it into
one line and exit status 2, the store moves the file aside (``knapcheck.fuzz.campaign.store``).
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from pathlib import Path

from knapcheck.fuzz.corpus.schema import Schema, SchemaError

MAX_BYTES = 64 * 2**20
"""No file knapcheck writes comes near this; anything bigger is refused unread."""
MAX_DEPTH = 64
"""Nesting levels; knapcheck's files use fewer than ten."""
_READ_CHUNK = 2**20

_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKET_RUNS = re.compile(r"[\[{]+|[\]}]+")


class UnreadableFile(ValueError):
    """A file that cannot be taken as what it claims to be; the message is one line naming it."""

    def __init__(self, what: str, path: Path | str, reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{what} {path}: {reason}" if what else f"{path}: {reason}")


class InvalidJson(ValueError):
    """Text that is not a JSON document knapcheck accepts; the message says why."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a directory"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def read_bytes(path: Path | str, *, what: str = "", limit: int = MAX_BYTES, follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; UnreadableFile otherwise.

    FileNotFoundError is reported as ``UnreadableFile`` too, with the reason "does not exist".
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | (0 if follow_symlinks else os.O_NOFOLLOW)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise UnreadableFile(what, path, "does not exist") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise UnreadableFile(what, path, "is a symbolic link; only regular files are read here") from None
        raise UnreadableFile(what, path, f"cannot be opened ({exc.strerror or exc})") from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise UnreadableFile(what, path, f"is {_kind(status.st_mode)}, not a regular file; refused unread")
        if status.st_size > limit:
            raise UnreadableFile(what, path, f"holds {status.st_size} bytes, more than the {limit} knapcheck reads")
        chunks, total = [], 0
        while True:
            try:
                chunk = os.read(descriptor, min(_READ_CHUNK, limit + 1 - total))
            except OSError as exc:
                raise UnreadableFile(what, path, f"cannot be read ({exc.strerror or exc})") from None
            if not chunk:
                return b"".join(chunks)
            total += len(chunk)
            chunks.append(chunk)
            if total > limit:
                raise UnreadableFile(what, path, f"grew past the {limit} bytes knapcheck reads")
    finally:
        os.close(descriptor)


def _refuse_constant(name: str) -> None:
    raise InvalidJson(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise InvalidJson(f"the number {text[:40]} is beyond a float's range")
    return value


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether brackets outside strings nest more than ``limit`` levels (counted without recursion)."""
    depth = 0
    for run in _BRACKET_RUNS.finditer(_STRINGS.sub('""', text)):
        if run.group()[0] in "[{":
            depth += len(run.group())
            if depth > limit:
                return True
        else:
            depth -= len(run.group())
    return False


def parse_json(data: bytes | str, schema: Schema | None = None, *, max_depth: int = MAX_DEPTH) -> object:
    """A JSON document's value, checked against ``schema``; InvalidJson saying what is wrong otherwise."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidJson(f"not UTF-8 text (byte {exc.start})") from None
    if not data.strip():
        raise InvalidJson("empty")
    if too_deep(data, max_depth):
        raise InvalidJson(f"nested more than {max_depth} levels deep")
    try:
        value = json.loads(data, parse_constant=_refuse_constant, parse_float=_finite_float)
    except InvalidJson:
        raise
    except json.JSONDecodeError as exc:
        raise InvalidJson(f"not valid JSON (truncated?): {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise InvalidJson(f"not valid JSON: {exc}") from None
    if schema is not None:
        try:
            schema(value, "")
        except SchemaError as exc:
            raise InvalidJson(str(exc)) from None
    return value


def read_json(path: Path | str, schema: Schema | None, *, what: str, limit: int = MAX_BYTES, follow_symlinks: bool = True) -> object:
    """The regular file ``path`` read and parsed by the rules above; UnreadableFile naming it otherwise."""
    data = read_bytes(path, what=what, limit=limit, follow_symlinks=follow_symlinks)
    try:
        return parse_json(data, schema)
    except InvalidJson as exc:
        raise UnreadableFile(what, path, str(exc)) from None


def regular_file_problem(path: Path | str) -> str:
    """Why ``path`` cannot be read as a regular file (empty when it can), without reading it."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        return "does not exist" if exc.errno == errno.ENOENT else f"cannot be opened ({exc.strerror or exc})"
    try:
        mode = os.fstat(descriptor).st_mode
    finally:
        os.close(descriptor)
    return "" if stat.S_ISREG(mode) else f"is {_kind(mode)}, not a regular file"
