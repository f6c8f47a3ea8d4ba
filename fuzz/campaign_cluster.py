"""The Dask cluster a campaign runs on: a LocalCluster it starts and stops, or an existing one.

The local cluster has one single-threaded worker process per job. Its workers are forked from a
forkserver that has already imported Hypothesis, OR-Tools, our code and (when a target runs in the
worker) torch, so a worker starts (or restarts, after it died) in about a second. Its scheduler gives up a unit at the first death of
its worker (``allowed-failures`` 0) and hands each worker one unit at a time, so the campaign
itself decides what to retry (``knapcheck.fuzz.unit_ledger``). The workers ignore Ctrl-C (the campaign stops
them) and write their output, solver chatter included, to a log file.

On an existing cluster (``dask scheduler`` and ``dask worker`` processes) the workers are left as
they are, except that the isolated targets they started are stopped when the campaign ends.
"""

from __future__ import annotations

import logging
import os
import signal
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import dask
from distributed import Client, LocalCluster, WorkerPlugin
from distributed.utils import get_mp_context

from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.isolation import start_workers, stop_workers
from knapcheck.solvers.output_capture import STDERR, STDOUT, redirect

LOCAL_CONFIG = {
    "distributed.scheduler.allowed-failures": 0,
    "distributed.scheduler.worker-saturation": 1.0,
    "distributed.worker.multiprocessing-method": "forkserver",
    "distributed.worker.profile.enabled": False,
}
FORKSERVER_PRELOAD = ["distributed", "knapcheck.fuzz.campaign_units"]
"""What every worker imports; torch too when a target runs in the worker process (ours do)."""
CONNECT_SECONDS = 30.0
PLUGIN = "knapcheck-campaign"


class CampaignCannotStart(Exception):
    """The scheduler cannot be reached, has no worker, or the workers cannot load a target."""


class CampaignWorkers(WorkerPlugin):
    """Set up each worker of a campaign, the ones that replace dead workers too."""

    def __init__(self, own: bool, output: str | None) -> None:
        self.own = own
        self.output = output

    def setup(self, worker) -> None:
        if not self.own:
            return
        redirect(self.output or os.devnull, (STDOUT, STDERR))
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        except ValueError:
            pass

    def teardown(self, worker) -> None:
        stop_workers()


def warm_up(entries: tuple[SolverEntry, ...]) -> None:
    """Import what the targets need and start their isolated workers, before the clock starts.

    ValueError naming the target when one that runs in the worker cannot be loaded (an isolated
    one that cannot be loaded gets a verdict on every call instead, as in any check)."""
    for entry in entries:
        if not entry.isolate:
            entry.load()
    start_workers([e for e in entries if e.isolate])


def warm_up_workers(client: Client, entries: tuple[SolverEntry, ...]) -> None:
    """``warm_up`` on every worker; CampaignCannotStart when a target cannot be loaded."""
    try:
        client.run(warm_up, entries)
    except ValueError as exc:
        raise CampaignCannotStart(f"a worker cannot load a target: {exc}") from None


@contextmanager
def campaign_cluster(jobs: int, scheduler: str | None, output: Path | None, with_torch: bool) -> Iterator[Client]:
    """A client of the campaign's cluster, its workers set up; closed (a local one stopped) after.
    ``with_torch``: local workers start with torch imported.

    CampaignCannotStart (one line) when the scheduler cannot be reached or has no worker.
    """
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=CONNECT_SECONDS)
        except (OSError, TimeoutError, ValueError) as exc:
            raise CampaignCannotStart(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        try:
            try:
                client.wait_for_workers(1, timeout=CONNECT_SECONDS)
            except TimeoutError:
                raise CampaignCannotStart(f"the Dask scheduler at {scheduler} has no worker") from None
            client.register_plugin(CampaignWorkers(own=False, output=None), name=PLUGIN)
            try:
                yield client
            finally:
                client.unregister_worker_plugin(PLUGIN)
        finally:
            client.close()
        return
    with dask.config.set(LOCAL_CONFIG):
        get_mp_context().set_forkserver_preload(FORKSERVER_PRELOAD + (["torch"] if with_torch else []))
        cluster = LocalCluster(
            n_workers=jobs,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
        try:
            client = Client(cluster)
            try:
                client.register_plugin(CampaignWorkers(own=True, output=str(output) if output else None), name=PLUGIN)
                yield client
            finally:
                client.close()
        finally:
            cluster.close()
