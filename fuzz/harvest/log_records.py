"""Reading torch's structured trace logs (``TORCH_TRACE=DIR``): records, each a header and a payload.

torch.compile writes one log per process into DIR (``torch._logging``'s trace handler). Each record is
a header line, glog's prefix then the record's metadata as one JSON object::

    V1201 10:19:20.105000 11311 torch/_functorch/...:224] {"artifact": {"name": ...}, "frame_id": 0, ...}

and, when the metadata has ``has_payload`` (the payload's MD5), the payload's lines, each behind a
tab. The MD5 tells a whole payload from one the log was cut off inside (a killed job) or that was
changed. The reader streams: only the payloads a caller asks for are kept, and every read has a
cap: no line may exceed ``MAX_LINE_BYTES``, no kept payload ``MAX_PAYLOAD_BYTES`` and no log, as
read, ``MAX_LOG_BYTES``; only regular files are opened (never a FIFO or a device, which could block
or never end). A log may be gzip-compressed (``.log.gz``); it is decompressed as it is read, and
the caps count what it decompresses to, so a gzip bomb ends in one line, not in a MemoryError.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from ...solvers.files.reader import UnreadableFile, open_stream
from ..corpus import reader

MAX_LINE_BYTES = 256 * 1024 * 1024
"""The longest line read (a ``min_cut_information`` payload is one line: about 2.3 MB for a 24-block transformer)."""
MAX_PAYLOAD_BYTES = MAX_LINE_BYTES
"""The most a kept payload's lines hold together."""
MAX_LOG_BYTES = 4 * 1024**3
"""The most a log is read to, decompressed."""
GZIP_MAGIC = b"\x1f\x8b"
HEADER = re.compile(rb"[VIWEC]\d{4} \d{2}:\d{2}:\d{2}\.\d{6} \d+ .*?:\d+\] (\{.*)")


class TraceError(ValueError):
    """A log that cannot be read as a structured trace, or that holds a malformed record; one line."""


@dataclass(frozen=True)
class TraceRecord:
    line: int
    """The header's line number (from 1)."""
    metadata: dict
    payload: str | None
    """The payload, when the caller asked for it and the record has one."""
    complete: bool
    """Whether the payload's MD5 is the ``has_payload`` torch logged (False: cut short or changed)."""


def parse_json(text: str | bytes, where: str) -> object:
    """A trace's JSON, parsed by knapcheck's one set of rules (``knapcheck.fuzz.corpus.reader``: depth,
    NaN and out-of-range numbers refused): TraceError naming ``where`` when it breaks them."""
    try:
        return reader.parse_json(text)
    except reader.InvalidJson as exc:
        raise TraceError(f"{where}: {exc}") from None


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading, if it is a regular file; TraceError otherwise (by the one reader of
    a user's file, ``knapcheck.solvers.files.reader``: opened without blocking, checked once open)."""
    try:
        return open_stream(path, what="a trace log")
    except UnreadableFile as exc:
        raise TraceError(f"{path}: {exc.reason.removesuffix('; refused unread')}") from None


def _lines(path: Path) -> Iterator[bytes]:
    """The log's lines, each with its newline (the last may lack it: cut short), decompressed if gzip."""
    raw = open_regular(path)
    with raw:
        compressed = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        stream: gzip.GzipFile | BinaryIO = gzip.GzipFile(fileobj=raw, mode="rb") if compressed else raw
        number = total = 0
        try:
            while True:
                line = stream.readline(MAX_LINE_BYTES + 1)
                if not line:
                    return
                number += 1
                total += len(line)
                if len(line) > MAX_LINE_BYTES:
                    raise TraceError(f"{path}: line {number} is longer than {MAX_LINE_BYTES:,} bytes, the most a line is read to")
                if total > MAX_LOG_BYTES:
                    raise TraceError(f"{path}: holds more than {MAX_LOG_BYTES:,} bytes{' decompressed' if compressed else ''},"
                                     " the most a log is read to")
                yield line
        except EOFError:
            raise TraceError(f"{path}: the gzip stream ends early (the file was cut short)") from None
        except (gzip.BadGzipFile, zlib.error) as exc:
            raise TraceError(f"{path}: is gzip-compressed but cannot be decompressed ({exc})") from None
        except OSError as exc:
            raise TraceError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _complete(payload: str, metadata: dict) -> bool:
    return hashlib.md5(payload.encode("utf-8"), usedforsecurity=False).hexdigest() == metadata.get("has_payload")


def read_records(path: Path, wanted: Callable[[dict], bool]) -> Iterator[TraceRecord]:
    """Every record of the log at ``path``; the payload of those ``wanted(metadata)`` selects.

    TraceError when it is not a structured trace: its first line is no record header, or a later
    line is neither a header nor a payload line. A last line cut off without its newline ends the
    log: a header cut off is dropped, a payload line cut off leaves its record incomplete.
    """
    path = Path(path)
    header: tuple[int, dict] | None = None
    payload: list[str] | None = None
    number = kept = 0

    def finished(header: tuple[int, dict]) -> TraceRecord:
        line, metadata = header
        text = None if payload is None else "\n".join(payload)
        return TraceRecord(line, metadata, text, text is not None and _complete(text, metadata))

    for number, raw in enumerate(_lines(path), start=1):
        cut_short = not raw.endswith(b"\n")
        raw = raw.removesuffix(b"\n")
        if raw.startswith(b"\t"):
            if header is None or "has_payload" not in header[1]:
                raise TraceError(f"{path}: line {number} is a payload line of no record: not a structured trace")
            if payload is not None:
                kept += len(raw)
                if kept > MAX_PAYLOAD_BYTES:
                    raise TraceError(f"{path}: the payload of the record at line {header[0]} holds more than"
                                     f" {MAX_PAYLOAD_BYTES:,} bytes, the most a payload is read to")
                payload.append(_text(raw[1:], path, number))
            continue
        if cut_short and number > 1:
            break
        match = HEADER.fullmatch(raw)
        if match is None:
            what = "is no record header" if number == 1 else "is neither a record header nor a payload line"
            raise TraceError(f"{path}: line {number} {what}: not a structured trace torch wrote (TORCH_TRACE)")
        if header is not None:
            yield finished(header)
        metadata = parse_json(match.group(1), f"{path}: line {number}")
        if not isinstance(metadata, dict):
            raise TraceError(f"{path}: line {number}: a record's metadata must be a JSON object")
        header = (number, metadata)
        payload = [] if "has_payload" in metadata and wanted(metadata) else None
        kept = 0
    if header is not None:
        yield finished(header)
    elif number == 0:
        raise TraceError(f"{path}: is empty, not a structured trace")


def _text(raw: bytes, path: Path, number: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TraceError(f"{path}: line {number} is not UTF-8 text: not a structured trace torch wrote") from None


TRACE_SUFFIXES = (".log", ".log.gz")


def trace_files(path: Path) -> list[Path]:
    """The logs ``path`` names: itself when it is a file; for a directory, every regular file named
    ``*.log`` or ``*.log.gz`` under it (as TORCH_TRACE names them), in path order, links not followed."""
    path = Path(path)
    if not path.is_dir():
        return [path]
    found = sorted(
        Path(root) / name
        for root, _, names in os.walk(path)
        for name in names
        if name.endswith(TRACE_SUFFIXES) and (Path(root) / name).is_file() and not (Path(root) / name).is_symlink()
    )
    if not found:
        raise TraceError(f"{path}: a directory with no trace log in it (no *.log or *.log.gz file)")
    return found
