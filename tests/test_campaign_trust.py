"""A campaign trusts nothing that reaches it: not an item an outside client puts on its queue, not a
scheduler that dies, not a store it cannot change, not a target that does not exist. Its local
cluster listens on loopback only and speaks TLS; an external one is reached over TLS when asked."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
from campaigns import (
    EAGER_PLANT,
    EAGER_SIGNATURE,
    PLANT_FAMILY,
    PLANTED_MODULE_SPEC,
    PLANTED_SIGNATURE,
    WAIT_SECONDS,
    dask_command,
    environment,
    read_until,
    report,
    start,
    start_scheduler,
    stop,
    stored_signatures,
)
from distributed import Client, Queue
from tls_files import make_tls_files

from knapcheck.commands.exit_status import INCOMPLETE, OK, USAGE
from knapcheck.fuzz.campaign.cluster import campaign_cluster
from knapcheck.fuzz.campaign.store import FailureStore, StoredFailure, record_name
from knapcheck.fuzz.judging.verdicts.differential import check
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.registry import resolve_one


class RunsCodeWhenUnpickled:
    """What a pickled event can carry: unpickling it creates ``marker`` (it calls ``open``)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return open, (str(self.marker), "w")


def _campaign_queue(outsider: Client) -> str:
    """The campaign's event queue, found as anyone connected to the scheduler can find it."""
    names = outsider.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.extensions["queues"].queues))
    (name,) = [n for n in names if n.endswith("-events")]
    return name


def _finish(campaign: subprocess.Popen, seen: list[str]) -> str:
    _, rest = campaign.communicate(timeout=WAIT_SECONDS + 120)
    return "".join(seen) + rest


def test_an_outside_client_s_pickled_and_malformed_events_are_refused_and_counted_never_run(tmp_path):
    """On a cluster without TLS (anyone may connect), an outside client puts a pickle payload, an
    unknown kind, a malformed finding and an event of a unit never submitted on the campaign's
    queue: the campaign used to unpickle the payload (running it) and crash on the unknown kind."""
    scheduler, address = start_scheduler(tmp_path)
    processes = [scheduler, dask_command("worker", address, "--nthreads", "1", "--no-dashboard")]
    marker = tmp_path / "the-payload-ran"
    try:
        campaign = start("--scheduler", address, "--time", "6s", "--seed", "0", "--db", str(tmp_path / "db"),
                         "--out", str(tmp_path / "out"), "--targets", EAGER_PLANT, "--families", PLANT_FAMILY)
        seen: list[str] = []
        read_until(campaign, "fuzzing for", seen)
        outsider = Client(address, timeout=30)
        try:
            queue = Queue(_campaign_queue(outsider), client=outsider)
            queue.put({"kind": "finding", "unit": 1, "check": pickle.dumps(RunsCodeWhenUnpickled(marker)), "shrunk": False})
            queue.put(json.dumps({"kind": "finding", "unit": 1, "check": pickle.dumps(RunsCodeWhenUnpickled(marker)).hex(),
                                  "shrunk": False}))
            queue.put(json.dumps({"kind": "exec", "code": "open('x', 'w')"}))
            queue.put(json.dumps({"kind": "started", "unit": 10**9, "attempt": 1, "pid": 1, "host": "elsewhere"}))
            queue.put("[" * 100_000)
        finally:
            outsider.close()
        output = _finish(campaign, seen)
    finally:
        stop(processes)
    assert not marker.exists(), "nothing on the queue is unpickled or run"
    assert campaign.returncode == INCOMPLETE, output[-3000:]
    assert "Traceback" not in output
    data = report(tmp_path / "out")
    assert data["refused_events"]["count"] == 5 and not data["as_asked"]
    reasons = " | ".join(data["refused_events"]["reasons"])
    assert "not JSON text but a dict" in reasons and "unknown kind 'exec'" in reasons and "never submitted" in reasons
    assert "nested more than" in reasons
    assert "REFUSED an item on the campaign's queue" in output
    assert stored_signatures(tmp_path / "db") == [EAGER_SIGNATURE], "the real findings are kept"
    assert "## Items on the campaign's queue refused (5" in (tmp_path / "out" / "campaign.md").read_text()


def test_a_killed_external_scheduler_ends_the_campaign_with_its_report_marked_incomplete(tmp_path):
    scheduler, address = start_scheduler(tmp_path)
    worker = dask_command("worker", address, "--nthreads", "1", "--no-dashboard")
    try:
        campaign = start("--scheduler", address, "--time", "120s", "--seed", "0", "--db", str(tmp_path / "db"),
                         "--out", str(tmp_path / "out"), "--targets", EAGER_PLANT, "--families", PLANT_FAMILY)
        seen: list[str] = []
        read_until(campaign, "stored ", seen)
        os.killpg(scheduler.pid, signal.SIGKILL)
        killed = time.monotonic()
        output = _finish(campaign, seen)
        took = time.monotonic() - killed
    finally:
        stop([scheduler, worker])
    assert campaign.returncode == INCOMPLETE, output[-3000:]
    assert "Traceback" not in output
    data = report(tmp_path / "out")
    assert data["scheduler_lost"] and "the scheduler was lost" in data["problems"] and not data["as_asked"]
    assert [(f["solver"], f["verdict"]) for f in data["findings"]] == [EAGER_SIGNATURE], "what was found is kept"
    assert "INCOMPLETE: the Dask scheduler" in (tmp_path / "out" / "campaign.md").read_text()
    assert took < 110, "the campaign ends when its scheduler is lost, not at its deadline"


def test_a_campaign_on_a_tls_cluster_with_the_cluster_s_certificates(tmp_path):
    """A real `dask scheduler` and `dask worker` that speak TLS only, with a throwaway CA: the
    campaign connects with --tls-ca-file/--tls-cert/--tls-key, or with the Dask configuration's
    certificates (here from the environment); a client without them cannot."""
    tls = make_tls_files(tmp_path)
    scheduler, address = start_scheduler(tmp_path, "--protocol", "tls", *tls.options())
    processes = [scheduler, dask_command("worker", address, "--nthreads", "1", "--no-dashboard", *tls.options())]
    db, out = tmp_path / "db", tmp_path / "out"
    try:
        assert address.startswith("tls://127.0.0.1:")
        outsider = subprocess.run([sys.executable, "-c", OUTSIDE_CLIENT, address], cwd=tmp_path, env=environment(),
                                  capture_output=True, text=True, timeout=WAIT_SECONDS)
        assert outsider.stdout.startswith("refused"), outsider.stderr[-2000:]
        without = _knapcheck_fuzz(tmp_path, "--scheduler", address, "--time", "3s", "--db", str(db), "--out", str(out),
                                  "--targets", EAGER_PLANT)
        assert without.returncode == USAGE and "cannot reach the Dask scheduler" in without.stderr
        assert len(without.stderr.strip().splitlines()) == 1
        done = _knapcheck_fuzz(tmp_path, "--scheduler", address, *tls.options(), "--time", "6s", "--seed", "0",
                               "--db", str(db), "--out", str(out), "--targets", EAGER_PLANT, "--families", PLANT_FAMILY)
        assert done.returncode == OK, done.stderr[-3000:]
        data = report(out)
        assert data["cluster"] == f"scheduler {address}" and data["as_asked"]
        assert stored_signatures(db) == [EAGER_SIGNATURE]
        from_config = _knapcheck_fuzz(
            tmp_path, "--scheduler", address, "--time", "2s", "--seed", "1", "--db", str(db), "--out", str(tmp_path / "again"),
            "--targets", EAGER_PLANT, "--families", PLANT_FAMILY,
            DASK_DISTRIBUTED__COMM__TLS__CA_FILE=str(tls.ca), DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT=str(tls.cert),
            DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY=str(tls.key),
        )
        assert from_config.returncode == OK, from_config.stderr[-3000:]
        assert report(tmp_path / "again")["cluster"] == f"scheduler {address}"
    finally:
        stop(processes)


def test_tls_options_are_checked_before_any_work(tmp_path):
    tls = make_tls_files(tmp_path)
    fifo = tmp_path / "fifo.pem"
    os.mkfifo(fifo)
    base = ["--time", "3s", "--db", str(tmp_path / "db"), "--out", str(tmp_path / "out"), "--targets", EAGER_PLANT]
    cases = [
        (["--scheduler", "tcp://127.0.0.1:1", *tls.options()], "are for --scheduler tls://"),
        ([*tls.options()], "are for --scheduler tls://"),
        (["--scheduler", "tls://127.0.0.1:1", "--tls-ca-file", str(tls.ca), "--tls-cert", str(fifo)], "FIFO"),
        (["--scheduler", "tls://127.0.0.1:1", "--tls-cert", str(tls.cert)], "at least --tls-ca-file and --tls-cert"),
    ]
    for options, words in cases:
        done = _knapcheck_fuzz(tmp_path, *options, *base)
        assert done.returncode == USAGE and words in done.stderr, (options, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1


def _knapcheck_fuzz(cwd: Path, *arguments: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "knapcheck", "fuzz", *arguments], cwd=cwd, env=environment(**env),
                          capture_output=True, text=True, timeout=WAIT_SECONDS + 120)


OUTSIDE_CLIENT = """
import sys
from distributed import Client
try:
    Client(sys.argv[1], timeout=5).close()
except Exception as exc:
    print("refused:", type(exc).__name__)
else:
    print("connected")
"""


def test_the_local_cluster_listens_on_loopback_only_and_lets_no_outside_client_in(tmp_path):
    earlier = {child.pid for child in psutil.Process().children(recursive=True)}
    with campaign_cluster(1, None, None, with_torch=False) as client:
        address = client.scheduler.address
        assert address.startswith("tls://127.0.0.1:")
        # (the cluster's: not a process an earlier test of this xdist worker left ending)
        processes = [psutil.Process(), *(p for p in psutil.Process().children(recursive=True) if p.pid not in earlier)]
        listening = {c.laddr.ip for p in processes for c in p.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN}
        assert listening == {"127.0.0.1"}
        for tried in (address, address.replace("tls://", "tcp://")):
            outsider = subprocess.run([sys.executable, "-c", OUTSIDE_CLIENT, tried], cwd=tmp_path, env=environment(),
                                      capture_output=True, text=True, timeout=WAIT_SECONDS)
            assert outsider.stdout.startswith("refused"), (tried, outsider.stdout, outsider.stderr[-2000:])


def test_a_target_that_does_not_exist_is_exit_2_before_any_work(tmp_path):
    """It used to run, store a "NEW REJECTED" and exit 0."""
    done = _knapcheck_fuzz(tmp_path, "--time", "5s", "--db", str(tmp_path / "db"), "--out", str(tmp_path / "out"),
                           "--targets", "nosuch.py:f")
    assert done.returncode == USAGE, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "nosuch.py" in lines[0] and "does not exist" in lines[0]
    assert not (tmp_path / "out").exists() and not (tmp_path / "db").exists(), "nothing created for a run that cannot start"


def test_a_store_the_campaign_cannot_change_still_gets_its_report_and_keeps_the_findings(tmp_path, read_only):
    """The store's group holds two records (prune must remove one) in a read-only directory: the
    final prune used to raise before the report was written, and the findings were lost."""
    target = resolve_one(PLANTED_MODULE_SPEC)
    store = FailureStore(tmp_path / "db")
    small = Instance((0.0001, 0.0001, 0.0001), (1.0, 1.0, 1.0), 0.0)
    big = Instance((0.0001,) * 4, (1.0,) * 4, 0.0)
    kept = store.record(check(target, small, "tight_budget"))
    larger = kept.parent / record_name(big)
    larger.write_text(json.dumps(StoredFailure.of(check(target, big, "tight_budget")).as_dict()))
    read_only(kept.parent)
    done = _knapcheck_fuzz(tmp_path, "--time", "6s", "--jobs", "1", "--seed", "0", "--db", str(tmp_path / "db"),
                           "--out", str(tmp_path / "out"), "--targets", PLANTED_MODULE_SPEC, "--families", PLANT_FAMILY)
    assert done.returncode == INCOMPLETE, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert f"the failure store cannot remove {larger}" in done.stderr
    data = report(tmp_path / "out")
    assert any(f"cannot remove {larger}" in e for e in data["store_errors"]) and not data["as_asked"]
    assert [(f["solver"], f["verdict"]) for f in data["findings"]] == [PLANTED_SIGNATURE]
    assert sorted(p.name for p in kept.parent.iterdir()) == sorted([kept.name, larger.name])
