"""Campaign throughput: verified cases per second on the local Dask cluster and on forked workers.

    python studies/campaign_bench.py [--time 30s] [--rounds 1] [--targets ours] [--families ...]

runs the same campaign four ways, one after the other, ``--rounds`` times, and prints each way's
verified cases per second (cases whose optimum an oracle proved) with the ratios the Dask engine
is held to: against forked workers, and two workers against one.

- ``forked``: the campaign as it ran before Dask: worker processes forked from this one run fuzz
  units (``knapcheck.fuzz.campaign.units``) back to back until the deadline, reporting counts through a
  pipe; no scheduler, no store, no retries: the cost floor.
- ``dask``: ``knapcheck.fuzz.campaign.run.run_campaign`` on its local cluster, as ``knapcheck fuzz`` runs it.

Both draw the same seeded shards without an example database, and both start their clocks with
the targets loaded, so the ratio is the engine's cost. Run it on an otherwise idle machine: the
figures depend on load (``uptime`` is printed with them).
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from knapcheck.fuzz.campaign.events import Tally
from knapcheck.fuzz.campaign.run import CampaignPlan, run_campaign, shard, slice_seconds
from knapcheck.fuzz.campaign.units import Setup, UnitRun
from knapcheck.fuzz.instances import families
from knapcheck.solvers.registry import ours, resolve_all

SEED = 0


def _forked_worker(setup: Setup, families: list[str], index: int, jobs: int, seconds: float, pipe) -> None:
    from knapcheck.solvers.isolation.output_capture import STDOUT, redirect

    redirect(os.devnull, (STDOUT,))
    verified = 0

    def emit(event) -> None:
        nonlocal verified
        if isinstance(event, Tally):
            verified += event.verified

    for number in itertools.count(index, jobs):
        if time.time() >= setup.deadline:
            break
        UnitRun(setup, shard(number, number, SEED, families, seconds), emit, lambda: False).run()
    pipe.send(verified)


def forked(entries, families: list[str], duration: float, jobs: int) -> tuple[int, float]:
    """Verified cases and seconds of ``jobs`` forked workers fuzzing for ``duration`` seconds."""
    for entry in entries:
        entry.load()
    context = multiprocessing.get_context("fork")
    start = time.monotonic()
    setup = Setup(tuple(entries), time.time() + duration, None, "", "", 60.0)
    pipes, workers = [], []
    for index in range(jobs):
        receiver, sender = context.Pipe(duplex=False)
        worker = context.Process(
            target=_forked_worker, args=(setup, families, index, jobs, slice_seconds(duration, jobs, families), sender)
        )
        worker.start()
        pipes.append(receiver)
        workers.append(worker)
    verified = sum(pipe.recv() for pipe in pipes)
    for worker in workers:
        worker.join()
    return verified, time.monotonic() - start


def dask(entries, families: list[str], duration: float, jobs: int, scratch: Path) -> tuple[int, float]:
    """Verified cases and seconds of a campaign on a local cluster of ``jobs`` workers."""
    store = Path(tempfile.mkdtemp(dir=scratch))
    plan = CampaignPlan(list(entries), families, duration, store, None, jobs=jobs, seed=SEED, worker_output=Path(os.devnull))
    result = run_campaign(plan)
    return result.verified, result.elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python studies/campaign_bench.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--time", type=float, default=30.0, metavar="SECONDS", help="each campaign's length (default 30)")
    parser.add_argument("--rounds", type=int, default=1, metavar="N", help="times each way runs; medians are shown (default 1)")
    parser.add_argument("--targets", nargs="+", default=["ours"], metavar="SPEC")
    parser.add_argument("--families", nargs="+", choices=families.names(enumerated=False),
                        default=families.names(enumerated=False), metavar="FAMILY",
                        help=f"default: every sampled family ({', '.join(families.names(enumerated=False))})")
    args = parser.parse_args(argv)
    specs = [e.name for e in ours()] if args.targets == ["ours"] else args.targets
    entries = resolve_all(specs)
    ways = [("forked", 1), ("forked", 2), ("dask", 1), ("dask", 2)]
    rates: dict[tuple[str, int], list[float]] = {way: [] for way in ways}
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(args.rounds):
            for engine, jobs in ways:
                if engine == "forked":
                    verified, seconds = forked(entries, args.families, args.time, jobs)
                else:
                    verified, seconds = dask(entries, args.families, args.time, jobs, Path(scratch))
                rates[engine, jobs].append(verified / seconds)
                print(f"{engine} --jobs {jobs}: {verified} verified cases in {seconds:.1f} s", flush=True)
    median = {way: statistics.median(values) for way, values in rates.items()}
    print()
    print(f"| engine | jobs | verified cases/s (median of {args.rounds}) |")
    print("|---|---|---|")
    for engine, jobs in ways:
        print(f"| {engine} | {jobs} | {median[engine, jobs]:.1f} |")
    print()
    print(f"local cluster vs forked workers, 1 job:  {median['dask', 1] / median['forked', 1]:.2f}x")
    print(f"local cluster vs forked workers, 2 jobs: {median['dask', 2] / median['forked', 2]:.2f}x")
    print(f"local cluster, 2 jobs vs 1:             {median['dask', 2] / median['dask', 1]:.2f}x")
    print(f"forked workers, 2 jobs vs 1:            {median['forked', 2] / median['forked', 1]:.2f}x")
    print(f"targets: {' '.join(specs)}; {args.time:g} s per campaign; {os.cpu_count()} CPUs")
    print("uptime:" + subprocess.run(["uptime"], capture_output=True, text=True).stdout.rstrip())


if __name__ == "__main__":
    main()
