"""The corpus of knapsack instances harvested from torch.compile: records with provenance, as JSON.

One file per model (``MODEL.json``), each a list of records: the instance exactly as the partitioner
handed it to its solver, and where it came from (model, memory budget, the index of the solver call
within that compile, torch version, backend). A record read from a training run's TORCH_TRACE log
(``knapcheck harvest --trace``) also says where in the log it was and what torch answered
(``TraceOrigin``, under ``"trace"``); the model is then the log's name. Reading it needs no torch:
the ``harvested`` family (the toy models, ``CORPUS_DIR``) and the ``harvested_large`` family (the
real-size models, ``LARGE_CORPUS_DIR``) sample it in every test, check and campaign, and
``knapcheck solve``, ``check --instances`` and ``report --instances`` read such a file directly
(``knapcheck.fuzz.corpus.instance_files``).
"""

from __future__ import annotations

import hashlib
import json
import numbers
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeGuard

from ...solvers.contract import Instance
from .reader import UnreadableFile, read_json
from .schema import INSTANCE, all_of, integer, list_of, number, obj, string

CORPUS_DIR = Path(__file__).parent / "harvested"
LARGE_CORPUS_DIR = Path(__file__).parent / "harvested_large"
SCHEMA_VERSION = 1
FORMAT = "knapcheck-harvested-corpus"
LEGACY_FORMAT = "knapcheck-harvested-corpus/1"
"""What files written before ``schema_version`` say instead of it and ``FORMAT``; read the same."""
WHAT = "harvested corpus file"

RECORD = all_of(
    obj({"model": string, "budget": number, "call": integer, "torch_version": string, "backend": string}), INSTANCE
)
"""One record: provenance and the instance side by side; other keys are allowed (a newer harvest may add some)."""
DOCUMENT = obj({"records": list_of(RECORD)})


def _field(data: dict, key: str, kind: type, optional: bool = False):
    """``data[key]`` if it is a ``kind`` (a bool only when ``kind`` is bool), or None when ``optional``."""
    value = data.get(key)
    if value is None and optional:
        return None
    if isinstance(value, bool) is not (kind is bool) or not isinstance(value, kind):
        name = "number" if kind is numbers.Real else kind.__name__
        raise ValueError(f"trace.{key} must be {'null or ' if optional else ''}a {name}, got {value!r:.60}")
    return value


def _number(data: dict, key: str) -> float:
    try:
        return float(_field(data, key, numbers.Real))
    except OverflowError:
        raise ValueError(f"trace.{key} is beyond float64's range") from None


def _indices(data: dict, key: str) -> tuple[int, ...]:
    values = _field(data, key, list)
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in values):
        raise ValueError(f"trace.{key} must be a list of item indices")
    return tuple(values)


@dataclass(frozen=True)
class TraceRegion:
    """The per-region budget (``torch.autograd.graph.region_activation_memory_budget``) a graph was under."""

    budget: float
    source: str
    """Where the annotated forward begins, as torch prints it (``FILE:LINE in FUNCTION``); empty if not printed."""


@dataclass(frozen=True)
class TraceOrigin:
    """Where in a TORCH_TRACE log a knapsack was read, and the answer torch logged for it."""

    trace: str
    """The log file's name."""
    line: int
    """The line of the ``min_cut_information`` artifact's header."""
    compile_id: str
    """As tlparse shows it: ``FRAME/COMPILE``, ``_ATTEMPT`` after a restart, ``!CA/`` under compiled autograd."""
    frame_id: int | None
    frame_compile_id: int | None
    rank: int | None
    """The process's rank in a distributed run."""
    region: TraceRegion | None
    nodes: tuple[str, ...]
    """The joint graph's node behind each item."""
    saved: tuple[int, ...]
    """The items torch saved (its ``Knapsack Saved Nodes``)."""
    recomputed: tuple[int, ...]
    expected_runtime: float
    """The value torch's solver reported (its ``Expected Runtime``)."""
    from_cache: bool = False
    """Logged again by a compile the AOTAutograd cache served: solved by an earlier run."""

    def as_dict(self) -> dict:
        region = None if self.region is None else {"budget": self.region.budget, "source": self.region.source}
        return {
            "trace": self.trace,
            "line": self.line,
            "compile_id": self.compile_id,
            "frame_id": self.frame_id,
            "frame_compile_id": self.frame_compile_id,
            "rank": self.rank,
            "region": region,
            "nodes": list(self.nodes),
            "saved": list(self.saved),
            "recomputed": list(self.recomputed),
            "expected_runtime": self.expected_runtime,
            "from_cache": self.from_cache,
        }

    @classmethod
    def from_dict(cls, data: object) -> "TraceOrigin":
        if not isinstance(data, dict):
            raise ValueError(f"trace must be an object, got {type(data).__name__}")
        region = _field(data, "region", dict, optional=True)
        nodes = _field(data, "nodes", list)
        if not all(isinstance(name, str) for name in nodes):
            raise ValueError("trace.nodes must be a list of node names")
        return cls(
            _field(data, "trace", str),
            _field(data, "line", int),
            _field(data, "compile_id", str),
            _field(data, "frame_id", int, optional=True),
            _field(data, "frame_compile_id", int, optional=True),
            _field(data, "rank", int, optional=True),
            None if region is None else TraceRegion(_number(region, "budget"), _field(region, "source", str)),
            tuple(nodes),
            _indices(data, "saved"),
            _indices(data, "recomputed"),
            _number(data, "expected_runtime"),
            _field(data, "from_cache", bool),
        )


@dataclass(frozen=True)
class Harvested:
    """One instance recorded from a real compile, and its provenance."""

    instance: Instance
    model: str
    budget: float
    call: int
    """Which solver call of that compile (0 for the first): one compile may solve several graphs."""
    torch_version: str
    backend: str
    trace: TraceOrigin | None = None
    """Set when the record was read from a TORCH_TRACE log rather than recorded from a compile."""

    def as_dict(self) -> dict:
        provenance = {} if self.trace is None else {"trace": self.trace.as_dict()}
        return {
            "model": self.model,
            "budget": self.budget,
            "call": self.call,
            "torch_version": self.torch_version,
            "backend": self.backend,
            **provenance,
            **self.instance.as_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Harvested":
        """A record ``RECORD`` accepts; ValueError when its instance or its trace origin is malformed."""
        return cls(
            Instance.from_dict(data), data["model"], float(data["budget"]), data["call"], data["torch_version"],
            data["backend"], TraceOrigin.from_dict(data["trace"]) if "trace" in data else None,
        )

    @property
    def name(self) -> str:
        """Model, budget and call, as tables show it: ``gpt24@0.3#0``."""
        return f"{self.model}@{self.budget:g}#{self.call}"


NAME_BYTES = 255
"""The longest file name most file systems take (ext4, xfs, btrfs, tmpfs: NAME_MAX)."""


def file_name(model: str) -> str:
    """``MODEL.json``; for a model whose name is too long for a file system (a log's name, say), the
    start of it and a digest of the whole: the same name for the same model, and another for another."""
    name = f"{model}.json"
    if len(os.fsencode(name)) <= NAME_BYTES:
        return name
    ending = f"-{hashlib.sha256(os.fsencode(model)).hexdigest()[:16]}.json"
    start = model[:NAME_BYTES]
    while len(os.fsencode(start + ending)) > NAME_BYTES:
        start = start[:-1]
    return start + ending


def harvested_files(records: list[Harvested]) -> dict[str, str]:
    """The files the records make, one per model: file name (``file_name``) -> its text. ValueError
    when two models would share a file."""
    by_model: dict[str, list[Harvested]] = {}
    for record in records:
        by_model.setdefault(record.model, []).append(record)
    files: dict[str, str] = {}
    for model, group in by_model.items():
        name = file_name(model)
        if name in files:
            raise ValueError(f"two models would both be written to {name}")
        document = {"schema_version": SCHEMA_VERSION, "format": FORMAT, "records": [r.as_dict() for r in group]}
        files[name] = json.dumps(document, indent=1) + "\n"
    return files


def is_harvested(data: object) -> TypeGuard[dict[str, Any]]:
    """Whether a file's parsed JSON says it is a harvested corpus file (of this schema, or written before it)."""
    if not isinstance(data, dict):
        return False
    current = data.get("format") == FORMAT and data.get("schema_version") == SCHEMA_VERSION
    return current or data.get("format") == LEGACY_FORMAT


def read_harvested_file(path: Path) -> list[Harvested]:
    """The records of a harvested corpus file; ValueError (``UnreadableFile``) naming the file otherwise."""
    data = read_json(path, None, what=WHAT)
    if not is_harvested(data):
        raise UnreadableFile(WHAT, path, f"not a harvested corpus file (expected format {FORMAT!r}, schema_version {SCHEMA_VERSION})")
    return harvested_records(data, path)


def harvested_records(data: dict, path: Path) -> list[Harvested]:
    """The records of a harvested corpus file's parsed JSON (``is_harvested``); ValueError naming
    the file and the record that breaks the schema or the contract."""
    try:
        DOCUMENT(data, "")
    except ValueError as exc:
        raise UnreadableFile(WHAT, path, str(exc)) from None
    records = []
    for i, entry in enumerate(data["records"]):
        try:
            records.append(Harvested.from_dict(entry))
        except ValueError as exc:
            raise UnreadableFile(WHAT, path, f"records[{i}] is malformed: {exc}") from None
    return records


def load_harvested(directory: Path = CORPUS_DIR) -> list[Harvested]:
    """Every record under ``directory``, in file-name order then file order."""
    return [record for path in sorted(directory.glob("*.json")) for record in read_harvested_file(path)]


def harvested_record(name: str) -> Harvested:
    """The committed record called ``name`` (``Harvested.name``), from either corpus."""
    records = _committed_records()
    if name not in records:
        raise ValueError(f"no committed harvested record is called {name!r} (names read MODEL@BUDGET#CALL)")
    return records[name]


@lru_cache(maxsize=1)
def _committed_records() -> dict[str, Harvested]:
    return {record.name: record for directory in (CORPUS_DIR, LARGE_CORPUS_DIR) for record in load_harvested(directory)}
