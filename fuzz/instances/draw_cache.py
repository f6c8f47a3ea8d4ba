"""A family's seeded sample, drawn once and kept between runs.

Drawing costs Hypothesis's engine about a millisecond an instance, several times what judging a
tiny instance costs. A sample depends on nothing but the family, the count, the seed, the code
that draws it and Hypothesis's version (``knapcheck.fuzz.instances.seeded_draws``: not on what the
process imported), so it is kept under a key that digests all of these, in the user's cache
directory: ``$XDG_CACHE_HOME/knapcheck/draws``, else ``~/.cache/knapcheck/draws``;
``KNAPCHECK_DRAW_CACHE=off`` turns it off (the test suite does, so that every test draws).

Nothing read there is trusted beyond what it is: the one JSON reader reads it
(``knapcheck.fuzz.corpus.reader``), every instance is validated, and the key and the count must
match; a file that fails any of this is drawn again and replaced. Files are written atomically
(``knapcheck.fuzz.corpus.atomic_write``), in a directory only its owner may write
(``knapcheck.solvers.cache.user_directory``). A report names the digest of
the instances it checked (``Source.digest``), so two runs can be compared whatever they read.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Callable

from knapcheck.fuzz.corpus.atomic_write import write_atomically
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.cache.user_directory import private_directory

OFF = "off"
VARIABLE = "KNAPCHECK_DRAW_CACHE"
MAX_FILE_BYTES = 64 * 2**20

_HERE = Path(__file__).parent
_CODE = (_HERE, _HERE.parent / "corpus" / "harvested", _HERE.parent / "corpus" / "harvested_large",
         _HERE.parent.parent / "solvers" / "contract.py")
"""What a draw depends on besides Hypothesis: the strategies, the harvested corpora they sample
from, and the Instance they build."""


def directory() -> Path | None:
    """Where samples are kept; None when the cache is off or no usable directory exists."""
    if os.environ.get(VARIABLE, "").lower() == OFF:
        return None
    return private_directory("draws")


@lru_cache(maxsize=None)
def code_digest() -> str:
    """sha256 of every file a draw depends on, and of Hypothesis's version."""
    import hypothesis

    digest = hashlib.sha256(hypothesis.__version__.encode())
    for root in _CODE:
        for path in sorted(root.rglob("*") if root.is_dir() else [root]):
            if path.is_file() and path.suffix in (".py", ".json"):
                digest.update(str(path.relative_to(root.parent)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def key(family: str, count: int, seed_value: int) -> str:
    return hashlib.sha256(json.dumps([code_digest(), family, count, seed_value]).encode()).hexdigest()[:32]


def cached_draw(family: str, count: int, seed_value: int, draw: Callable[[], list[Instance]]) -> list[Instance]:
    """The sample ``draw()`` makes, read from the cache when a valid copy is there, else drawn and kept."""
    place = directory()
    if place is None:
        return draw()
    name = key(family, count, seed_value)
    path = place / f"{name}.json"
    kept = _read(path, name, count)
    if kept is not None:
        return kept
    drawn = draw()
    _write(path, {"key": name, "family": family, "count": count, "seed": seed_value,
                         "instances": [i.as_dict() for i in drawn]})
    return drawn


def _read(path: Path, name: str, count: int) -> list[Instance] | None:
    from knapcheck.fuzz.corpus.reader import read_json

    if not path.exists():
        return None
    try:
        data = read_json(path, None, what="a kept draw", limit=MAX_FILE_BYTES, follow_symlinks=False)
        if not isinstance(data, dict) or data.get("key") != name or not isinstance(data.get("instances"), list):
            return None
        instances = [Instance.from_dict(item) for item in data["instances"] if isinstance(item, dict)]
    except (ValueError, TypeError):
        return None
    return instances if len(instances) == count == len(data["instances"]) else None


def _write(path: Path, document: dict) -> None:
    try:
        write_atomically(path, json.dumps(document, separators=(",", ":")))
    except OSError:
        pass
