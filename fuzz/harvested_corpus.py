"""The corpus of knapsack instances harvested from torch.compile: records with provenance, as JSON.

One file per model (``MODEL.json``), each a list of records: the instance exactly as the partitioner
handed it to its solver, and where it came from (model, memory budget, the index of the solver call
within that compile, torch version, backend). Reading it needs no torch: the ``harvested`` family
(the toy models, ``CORPUS_DIR``) and the ``harvested_large`` family (the real-size models,
``LARGE_CORPUS_DIR``) sample it in every test, check and campaign, and ``knapcheck solve``,
``check --instances`` and ``report --instances`` read such a file directly (``knapcheck.fuzz.instance_files``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from knapcheck.fuzz.json_files import UnreadableFile, read_json
from knapcheck.fuzz.json_schema import INSTANCE, all_of, integer, list_of, number, obj, string
from knapcheck.solvers.contract import Instance

CORPUS_DIR = Path(__file__).parent / "corpus" / "harvested"
LARGE_CORPUS_DIR = Path(__file__).parent / "corpus" / "harvested_large"
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

    def as_dict(self) -> dict:
        return {
            "model": self.model,
            "budget": self.budget,
            "call": self.call,
            "torch_version": self.torch_version,
            "backend": self.backend,
            **self.instance.as_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Harvested":
        """A record ``RECORD`` accepts; ValueError when its instance breaks the contract."""
        return cls(Instance.from_dict(data), data["model"], float(data["budget"]), data["call"], data["torch_version"], data["backend"])

    @property
    def name(self) -> str:
        """Model, budget and call, as tables show it: ``gpt24@0.3#0``."""
        return f"{self.model}@{self.budget:g}#{self.call}"


def write_harvested(records: list[Harvested], directory: Path) -> list[Path]:
    """Write the records into ``directory``, one ``MODEL.json`` per model; return the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    by_model: dict[str, list[Harvested]] = {}
    for record in records:
        by_model.setdefault(record.model, []).append(record)
    written = []
    for model, group in by_model.items():
        path = directory / f"{model}.json"
        document = {"schema_version": SCHEMA_VERSION, "format": FORMAT, "records": [r.as_dict() for r in group]}
        path.write_text(json.dumps(document, indent=1) + "\n")
        written.append(path)
    return written


def is_harvested(data: object) -> bool:
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
