"""The Dask cluster a campaign runs on: a LocalCluster it starts and stops, or an existing one.

The local cluster has one single-threaded worker process per job, and is reachable from this
machine only: its scheduler and workers listen on 127.0.0.1, and speak TLS with a certificate made
for this one cluster (``security=True``: Dask's temporary credentials, held in memory), so no other
process, on this machine or another, can connect to it, submit work or put anything on the
campaign's queue. Its workers are forked from a forkserver that has already imported Hypothesis,
OR-Tools, our code and (when a target runs in the worker) torch, so a worker starts (or restarts,
after it died) in about a second. The forkserver is started ignoring SIGINT and SIGTERM, and its
workers inherit that: Ctrl-C at the terminal, or a SIGTERM sent to the whole process group (by
``timeout``, by systemd), reaches the campaign process alone, which stops its units and then the
cluster, so a campaign stopped that way loses no worker. Its scheduler gives up a unit at the first death
of its worker (``allowed-failures`` 0) and hands each worker one unit at a time, so the campaign
itself decides what to retry (``knapcheck.fuzz.campaign.unit_ledger``). The workers write their output,
solver chatter included (the isolated targets they start inherit it), to a log file through a
capped pipe (``knapcheck.solvers.isolation.output_capture.CappedLog``): each worker process appends at most
WORKER_LOG_LIMIT bytes, then a note that its output was truncated there, and drops the rest, so a
target that prints without end neither fills the disk nor blocks.

On an existing cluster (``dask scheduler`` and ``dask worker`` processes) the workers are left as
they are, except that the isolated targets they started are stopped when the campaign ends. Its
security is Dask's own (``distributed.security.Security``): certificates named by the campaign's
options, or else those of the Dask configuration (``distributed.comm.tls.*``). Whoever can connect
to a Dask scheduler can run code on it and on its workers (that is Dask's model), so a cluster on a
network needs TLS with client certificates; ``docs/campaigns-cluster.md`` shows the recipe.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing.forkserver
import os
import signal
import sys
import threading
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import dask
from distributed import Client, LocalCluster, WorkerPlugin
from distributed.security import Security
from distributed.utils import get_mp_context

from ...solvers.entry import SolverEntry
from ...solvers.isolation.output_capture import STDERR, STDOUT, CappedLog, redirect
from ...solvers.isolation.worker import WorkerPool, current_pool
from ..corpus.reader import regular_file_problem

LOCAL_CONFIG = {
    "distributed.scheduler.allowed-failures": 0,
    "distributed.scheduler.worker-saturation": 1.0,
    "distributed.worker.multiprocessing-method": "forkserver",
    "distributed.worker.profile.enabled": False,
}
LOOPBACK = "127.0.0.1"
FORKSERVER_PRELOAD = ["distributed", "knapcheck.fuzz.campaign.units"]
"""What every worker imports; torch too when a target runs in the worker process (ours do)."""
CONNECT_SECONDS = 30.0
CLOSE_SECONDS = 10.0
PLUGIN = "knapcheck-campaign"
WORKER_LOG_LIMIT = 16 * 2**20
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""What the local cluster's processes ignore: they reach the campaign, which stops the cluster itself."""
"""Bytes of output each local worker process (with the isolated targets it started) adds to the log."""


class CampaignCannotStart(Exception):
    """The scheduler cannot be reached, has no worker, or the workers cannot load a target."""


@dataclass(frozen=True)
class TlsFiles:
    """Certificates for ``--scheduler tls://...``; None: the Dask configuration's (``distributed.comm.tls``)."""

    ca_file: Path | None = None
    cert: Path | None = None
    key: Path | None = None

    @property
    def given(self) -> bool:
        return any(p is not None for p in (self.ca_file, self.cert, self.key))

    def problems(self) -> list[str]:
        """What is wrong with the files named, each in a few words (empty when nothing is)."""
        found = []
        if self.given and (self.ca_file is None or self.cert is None):
            found.append("TLS needs at least --tls-ca-file and --tls-cert (and --tls-key unless the key is in the certificate file)")
        for option, path in (("--tls-ca-file", self.ca_file), ("--tls-cert", self.cert), ("--tls-key", self.key)):
            problem = regular_file_problem(path) if path is not None else ""
            if problem:
                found.append(f"{option} {path} {problem}")
        return found

    def security(self) -> Security:
        """The client's Security: these files, encryption required; or the Dask configuration's."""
        if not self.given:
            return Security()
        return Security(
            tls_ca_file=str(self.ca_file), tls_client_cert=str(self.cert), tls_client_key=str(self.key) if self.key else None,
            require_encryption=True,
        )


class CampaignWorkers(WorkerPlugin):
    """Set up each worker of a campaign, the ones that replace dead workers too: each holds the
    targets' worker processes in a pool of its own (``WorkerPool``), the current one from setup to
    teardown, which stops them."""

    def __init__(self, own: bool, output: str | None, log_limit: int = WORKER_LOG_LIMIT) -> None:
        self.own = own
        self.output = output
        self.log_limit = log_limit
        self.log: CappedLog | None = None
        self.workers = ExitStack()

    def setup(self, worker) -> None:
        self.workers.enter_context(WorkerPool())
        if not self.own:
            return
        if self.output is None:
            redirect(os.devnull, (STDOUT, STDERR))
        else:
            self.log = _capped(self.output, self.log_limit)
        try:
            for signum in STOP_SIGNALS:
                signal.signal(signum, signal.SIG_IGN)
        except ValueError:
            pass

    def teardown(self, worker) -> None:
        self.workers.close()
        if self.log is not None:
            _send_to(os.open(os.devnull, os.O_WRONLY))
            self.log.close()


def _capped(path: str, limit: int) -> CappedLog:
    """This process's stdout and stderr (and what its children inherit) sent to the end of the file
    ``path`` (never through a symbolic link) through a capped pipe."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    log = CappedLog(descriptor, limit)
    _send_to(os.dup(log.writer))
    return log


def _send_to(descriptor: int) -> None:
    """This process's stdout and stderr to ``descriptor``, which it then closes (so nothing else
    holds the old ones open: a capped pipe's copying ends when its last writer closes)."""
    sys.stdout.flush()
    sys.stderr.flush()
    for fd in (STDOUT, STDERR):
        os.dup2(descriptor, fd)
    os.close(descriptor)


def warm_up(entries: tuple[SolverEntry, ...]) -> None:
    """Import what the targets need and start their isolated workers, before the clock starts.

    ValueError naming the target when one that runs in the worker cannot be loaded (an isolated
    one that cannot be loaded gets a verdict on every call instead, as in any check). The units'
    own code is imported here too: on a worker started by hand (``dask worker``) the first unit
    would otherwise pay for it (Hypothesis, OR-Tools) after the clock started, and a short
    campaign on a loaded machine could end before its first case."""
    importlib.import_module("knapcheck.fuzz.campaign.units")
    for entry in entries:
        if not entry.isolate:
            entry.load()
    current_pool().start(entries)


def warm_up_workers(client: Client, entries: tuple[SolverEntry, ...]) -> None:
    """``warm_up`` on every worker; CampaignCannotStart when a target cannot be loaded or the
    scheduler stops answering."""
    try:
        client.run(warm_up, entries)
    except ValueError as exc:
        raise CampaignCannotStart(f"a worker cannot load a target: {exc}") from None
    except (OSError, TimeoutError) as exc:
        raise CampaignCannotStart(f"the Dask scheduler stopped answering while the workers were set up: {exc}") from None


def _start_forkserver_ignoring_sigint(preload: list[str]) -> None:
    """Start the forkserver that forks the local workers (if it is not running) with SIGINT and
    SIGTERM ignored: a process started with a signal ignored keeps ignoring it, and so do the
    workers it forks."""
    get_mp_context().set_forkserver_preload(preload)
    if threading.current_thread() is not threading.main_thread():
        return
    previous = {signum: signal.signal(signum, signal.SIG_IGN) for signum in STOP_SIGNALS}
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _close(client: Client) -> None:
    """Close a client; a scheduler that is gone makes that quick, not an error."""
    try:
        if client.status == "running":
            client.unregister_worker_plugin(PLUGIN)
    except (OSError, TimeoutError, RuntimeError, ValueError):
        pass
    try:
        client.close(timeout=CLOSE_SECONDS)
    except (OSError, TimeoutError, RuntimeError):
        pass


@contextmanager
def campaign_cluster(jobs: int, scheduler: str | None, output: Path | None, with_torch: bool,
                     tls: TlsFiles = TlsFiles()) -> Iterator[Client]:
    """A client of the campaign's cluster, its workers set up; closed (a local one stopped) after.
    ``with_torch``: local workers start with torch imported.

    CampaignCannotStart (one line) when the scheduler cannot be reached or has no worker.
    """
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=CONNECT_SECONDS, security=tls.security())
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            hint = ""
            if scheduler.startswith("tls://") and not tls.given:
                hint = " (a tls:// scheduler needs certificates: --tls-ca-file, --tls-cert, --tls-key, or the Dask configuration's)"
            raise CampaignCannotStart(f"cannot reach the Dask scheduler at {scheduler}: {exc}{hint}") from None
        try:
            try:
                client.wait_for_workers(1, timeout=CONNECT_SECONDS)
            except (TimeoutError, OSError):
                raise CampaignCannotStart(f"the Dask scheduler at {scheduler} has no worker") from None
            client.register_plugin(CampaignWorkers(own=False, output=None), name=PLUGIN)
            yield client
        finally:
            _close(client)
        return
    with dask.config.set(LOCAL_CONFIG):
        _start_forkserver_ignoring_sigint(FORKSERVER_PRELOAD + (["torch"] if with_torch else []))
        cluster = LocalCluster(
            n_workers=jobs,
            threads_per_worker=1,
            processes=True,
            host=LOOPBACK,
            security=True,
            dashboard_address=f"{LOOPBACK}:0",
            silence_logs=logging.ERROR,
        )
        try:
            client = Client(cluster)
            try:
                plugin = CampaignWorkers(own=True, output=str(output) if output else None, log_limit=WORKER_LOG_LIMIT)
                client.register_plugin(plugin, name=PLUGIN)
                yield client
            finally:
                _close(client)
        finally:
            cluster.close()
