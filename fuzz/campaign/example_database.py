"""Hypothesis's example database for a campaign, shared by all its workers.

``--db`` names it: a directory (its ``hypothesis/`` subdirectory; on a cluster, a path every worker
sees on a shared file system), or a Redis URL (``redis://HOST:PORT/N``, ``rediss://...`` or
``unix://...``) for Hypothesis's own ``RedisExampleDatabase``, which workers on any machine share.

A directory is read as every other file knapcheck reads is (``knapcheck.fuzz.corpus.reader``): an
entry that is not a regular file (a FIFO, a device, a symbolic link) or is larger than
``MAX_EXAMPLE_BYTES`` is skipped unread, as Hypothesis skips an entry it cannot read. What a
regular entry holds is Hypothesis's own encoding of a choice sequence, which it decodes without
running anything and ignores when malformed.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from ..corpus.reader import UnreadableFile, read_bytes

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
REDIS_TIMEOUT_SECONDS = 5.0
MAX_EXAMPLE_BYTES = 2**20
"""Hypothesis's examples are a few kilobytes at most."""


class CheckedDirectoryDatabase(DirectoryBasedExampleDatabase):
    """Hypothesis's directory database, fetching only regular files of at most ``MAX_EXAMPLE_BYTES``."""

    def fetch(self, key: bytes) -> Iterable[bytes]:
        directory = self._key_path(key)
        try:
            entries = os.listdir(directory)
        except OSError:
            return
        for entry in entries:
            try:
                yield read_bytes(directory / entry, limit=MAX_EXAMPLE_BYTES, follow_symlinks=False)
            except UnreadableFile:
                continue


def is_redis(location: str) -> bool:
    return location.startswith(REDIS_SCHEMES)


def directory_of(location: str) -> Path:
    """Where a directory database keeps its examples."""
    return Path(location) / "hypothesis"


@lru_cache(maxsize=None)
def open_database(location: str | None) -> ExampleDatabase | None:
    """The database ``location`` names (one per process); None for None (no example database)."""
    if location is None:
        return None
    if is_redis(location):
        from hypothesis.extra.redis import RedisExampleDatabase
        from redis import Redis

        return RedisExampleDatabase(Redis.from_url(location, socket_timeout=REDIS_TIMEOUT_SECONDS))
    return CheckedDirectoryDatabase(directory_of(location))


def check_redis(url: str) -> None:
    """ValueError in one line unless a Redis server answers at ``url`` and accepts writes."""
    from redis import Redis
    from redis.exceptions import RedisError

    try:
        client = Redis.from_url(url, socket_timeout=REDIS_TIMEOUT_SECONDS, socket_connect_timeout=REDIS_TIMEOUT_SECONDS)
        client.set("knapcheck:write-check", b"1", ex=60)
        client.delete("knapcheck:write-check")
    except (RedisError, ValueError, OSError) as exc:
        raise ValueError(f"no Redis server accepts writes at {url}: {exc}") from None
