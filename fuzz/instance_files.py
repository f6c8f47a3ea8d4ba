"""Reading instances from files: what `knapcheck solve`, `check --instances` and `report --instances` take.

Two kinds of file hold instances:

- an instance file: ``{"memory": [...], "runtimes": [...], "max_memory": ...}``;
- a file ``knapcheck harvest`` wrote (``knapcheck.fuzz.harvested_corpus``): every record in it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from knapcheck.fuzz.harvested_corpus import harvested_records, is_harvested
from knapcheck.solvers.contract import Instance


@dataclass(frozen=True)
class LabelledInstance:
    label: str
    """Where the instance came from, for people: the file, and the record for a harvested file."""
    instance: Instance


def read_instances(path: Path) -> list[LabelledInstance]:
    """The instances ``path`` holds. ValueError naming the file when it cannot be read, is not JSON,
    is neither kind of file, or holds an invalid instance."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"instance file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"instance file {path} cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"instance file {path} is not valid JSON: {exc}") from None
    if is_harvested(data):
        return [
            LabelledInstance(f"{path.name} record {i} ({r.model}, budget {r.budget:g}, call {r.call})", r.instance)
            for i, r in enumerate(harvested_records(data, path))
        ]
    if not isinstance(data, dict) or not {"memory", "runtimes", "max_memory"} & set(data):
        raise ValueError(
            f"{path} is neither an instance file ({{\"memory\": [...], \"runtimes\": [...], \"max_memory\": ...}})"
            " nor a file knapcheck harvest wrote"
        )
    try:
        return [LabelledInstance(path.name, Instance.from_dict(data))]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"instance file {path}: {exc}") from None
