"""A family's seeded sample, drawn once and kept between runs.

Drawing costs Hypothesis's engine about a millisecond an instance, several times what judging a
tiny instance costs. A sample depends on nothing but the family, the count, the seed, the code
that draws it and Hypothesis's version (``knapcheck.fuzz.instances.seeded_draws``: not on what the
process imported), so it is kept under a key that digests all of these, in the user's cache
directory: ``$XDG_CACHE_HOME/knapcheck/draws``, else ``~/.cache/knapcheck/draws``;
``KNAPCHECK_DRAW_CACHE=off`` turns it off (the test suite does, so that every test draws).

Nothing read there is trusted beyond what it is: the one JSON reader reads it
(``knapcheck.fuzz.corpus.reader``), its key and count must match, every instance is validated,
and the whole is signed: an HMAC-SHA256 of the key and the instances under a random secret made
once and kept beside the draws (``secret``, readable by this user alone), so that a file edited
by hand, copied under another key or written by anything but knapcheck is drawn again and
replaced, never used. Whoever can read the secret (this user, or code run as this user) can sign
a file of their own; what a kept draw can and cannot change is in docs/threat-model-data.md.
Files are written whole (``knapcheck.solvers.cache.user_directory.keep``) in a directory only its
owner may write; where none can be used or a write fails, the sample is drawn and nothing kept. A
report names the digest of the instances it checked (``Source.digest``), so two runs can be
compared whatever they read.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Callable

from ...solvers.cache.user_directory import keep, private_directory
from ...solvers.contract import Instance

OFF = "off"
VARIABLE = "KNAPCHECK_DRAW_CACHE"
MAX_FILE_BYTES = 64 * 2**20
SECRET = "secret"
"""The file beside the draws that holds the key they are signed with (32 random bytes, in hex)."""

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
    """The sample ``draw()`` makes, read from the cache when a copy signed by knapcheck is there,
    else drawn and kept."""
    place = directory()
    secret = None if place is None else _secret(place)
    if place is None or secret is None:
        return draw()
    name = key(family, count, seed_value)
    path = place / f"{name}.json"
    kept = _read(path, name, count, secret)
    if kept is not None:
        return kept
    drawn = draw()
    instances = [i.as_dict() for i in drawn]
    keep(path, json.dumps({"key": name, "family": family, "count": count, "seed": seed_value, "instances": instances,
                           "signature": _signature(secret, name, instances)}, separators=(",", ":")))
    return drawn


def _signature(secret: bytes, name: str, instances: list) -> str:
    """The HMAC of a kept draw's key and instances (as JSON, as written) under ``secret``."""
    return hmac.new(secret, json.dumps([name, instances], separators=(",", ":")).encode(), hashlib.sha256).hexdigest()


def _read(path: Path, name: str, count: int, secret: bytes) -> list[Instance] | None:
    from ..corpus.reader import read_json

    if not path.exists():
        return None
    try:
        data = read_json(path, None, what="a kept draw", limit=MAX_FILE_BYTES, follow_symlinks=False)
        if not isinstance(data, dict) or data.get("key") != name or not isinstance(data.get("instances"), list):
            return None
        signature = data.get("signature")
        if not isinstance(signature, str) or not hmac.compare_digest(signature, _signature(secret, name, data["instances"])):
            return None
        instances = [Instance.from_dict(item) for item in data["instances"] if isinstance(item, dict)]
    except (ValueError, TypeError):
        return None
    return instances if len(instances) == count == len(data["instances"]) else None


@lru_cache(maxsize=None)
def _secret(place: Path) -> bytes | None:
    """The key this user's kept draws are signed with: read from ``place``, or made at random and
    kept there where it is missing or not one (every draw kept under another is then drawn again);
    None where it can be neither read nor kept."""
    path = place / SECRET
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        text = ""
    else:
        with os.fdopen(descriptor, "rb") as handle:
            text = handle.read(65).decode("ascii", "replace") if stat.S_ISREG(os.fstat(descriptor).st_mode) else ""
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        secret = b""
    if len(secret) == 32:
        return secret
    secret = os.urandom(32)
    return secret if keep(path, secret.hex()) else None
