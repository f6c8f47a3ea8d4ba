"""Reading instances from files: what `knapcheck solve`, `check --instances` and `report --instances` take.

Two kinds of file hold instances:

- an instance file: ``{"memory": [...], "runtimes": [...], "max_memory": ...}``;
- a file ``knapcheck harvest`` wrote (``knapcheck.fuzz.corpus.harvest_records``): every record in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...solvers.contract import Instance
from .harvest_records import harvested_records, is_harvested
from .reader import UnreadableFile, read_json
from .schema import INSTANCE, SchemaError

WHAT = "instance file"


@dataclass(frozen=True)
class LabelledInstance:
    label: str
    """Where the instance came from, for people: the file, and the record for a harvested file."""
    instance: Instance


def read_instances(path: Path) -> list[LabelledInstance]:
    """The instances ``path`` holds. ValueError (``UnreadableFile``) naming the file when it cannot
    be read (``knapcheck.fuzz.corpus.reader``: not a regular file, too large, too deep, not JSON), is
    neither kind of file, or holds an invalid instance."""
    path = Path(path)
    data = read_json(path, None, what=WHAT)
    if is_harvested(data):
        return [
            LabelledInstance(f"{path.name} record {i} ({r.model}, budget {r.budget:g}, call {r.call})", r.instance)
            for i, r in enumerate(harvested_records(data, path))
        ]
    if not isinstance(data, dict) or not {"memory", "runtimes", "max_memory"} & set(data):
        raise UnreadableFile(
            WHAT, path,
            "is neither an instance file ({\"memory\": [...], \"runtimes\": [...], \"max_memory\": ...})"
            " nor a file knapcheck harvest wrote",
        )
    try:
        INSTANCE(data, "")
        return [LabelledInstance(path.name, Instance.from_dict(data))]
    except (SchemaError, ValueError) as exc:
        raise UnreadableFile(WHAT, path, str(exc)) from None
