"""Hypothesis's example database for a campaign, shared by all its workers.

``--db`` names it: a directory (its ``hypothesis/`` subdirectory; on a cluster, a path every worker
sees on a shared file system), or a Redis URL (``redis://HOST:PORT/N``, ``rediss://...`` or
``unix://...``) for Hypothesis's own ``RedisExampleDatabase``, which workers on any machine share.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
REDIS_TIMEOUT_SECONDS = 5.0


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
    return DirectoryBasedExampleDatabase(directory_of(location))


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
