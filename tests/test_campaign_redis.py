"""A campaign whose workers share Hypothesis's example database through a real Redis server."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

import pytest
import redis
from campaigns import EAGER_PLANT, EAGER_SIGNATURE, PLANT_FAMILY, report, stored_signatures

from knapcheck.commands.cli import main

REDIS_SERVER = shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def redis_url(tmp_path):
    if REDIS_SERVER is None:
        pytest.skip("needs redis-server (Debian package redis-server; .ci/run installs it)")
    port = _free_port()
    server = subprocess.Popen(
        [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    give_up = time.monotonic() + 30
    while True:
        try:
            redis.Redis.from_url(url).ping()
            break
        except redis.ConnectionError:
            assert time.monotonic() < give_up, "redis-server did not start"
            time.sleep(0.1)
    yield url
    server.terminate()
    server.wait(timeout=30)


def test_a_campaign_shares_its_examples_through_redis_and_stores_failures_under_store(tmp_path, redis_url):
    store, out = tmp_path / "store", tmp_path / "out"
    command = ["fuzz", "--time", "6s", "--jobs", "2", "--db", redis_url, "--store", str(store), "--out", str(out)]
    command += ["--targets", EAGER_PLANT, "--families", PLANT_FAMILY]
    assert main(command) == 0, "the plant is not one of our solvers"
    assert stored_signatures(store) == [EAGER_SIGNATURE]
    assert report(out)["as_asked"]
    keys = redis.Redis.from_url(redis_url).keys("*")
    assert keys, "Hypothesis wrote its examples to Redis"
    assert not (tmp_path / "hypothesis").exists()


def test_a_redis_database_needs_a_store_directory(tmp_path, redis_url, capfd):
    command = ["fuzz", "--time", "3s", "--db", redis_url, "--out", str(tmp_path / "out")]
    assert main(command) == 2
    assert "--store DIR is required" in capfd.readouterr().err
