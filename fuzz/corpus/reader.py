"""The one JSON reader: every JSON file knapcheck did not just write is read here.

Every JSON file (a stored failure, the known-failure corpus, an instance file, a harvested corpus, a
campaign event's text) and every entry of Hypothesis's example directory is read by the one reader
of a file (``knapcheck.solvers.files.reader``: regular files only, opened without blocking, at most
``MAX_BYTES``), then here:

- UTF-8, nested at most ``MAX_DEPTH`` levels deep, counted without recursion before Python's
  parser (which recurses) sees the text;
- numbers JSON allows: no NaN or Infinity, none beyond a float's range (``1e400``);
- then the file kind's schema (``knapcheck.fuzz.corpus.schema``).

Whatever is wrong is one ``UnreadableFile`` naming the file and the reason: a command turns it into
one line and exit status 2, the store moves the file aside (``knapcheck.fuzz.campaign.store``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ...solvers.files.reader import (
    MAX_BYTES,
    UnreadableFile,
    read_bytes,
    regular_file_problem,
)
from .schema import Schema, SchemaError

__all__ = ["MAX_BYTES", "MAX_DEPTH", "InvalidJson", "UnreadableFile", "parse_json", "read_bytes", "read_json",
           "regular_file_problem", "too_deep"]

MAX_DEPTH = 64
"""Nesting levels; knapcheck's files use fewer than ten."""

_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKET_RUNS = re.compile(r"[\[{]+|[\]}]+")


class InvalidJson(ValueError):
    """Text that is not a JSON document knapcheck accepts; the message says why."""


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
