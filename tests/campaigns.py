"""Running `knapcheck fuzz` as its own process, as a nightly job would, and watching it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from knapcheck.fuzz.campaign.store import FailureStore

ROOT = Path(__file__).resolve().parent.parent
PLANTED_MODULE_SPEC = "planted.off_by_one_split:off_by_one_hirschberg"
PLANTED_SIGNATURE = (PLANTED_MODULE_SPEC, "OVER_BUDGET")
EAGER_PLANT = "planted.wrong_answers:takes_everything"
"""A plant that fails on nearly every instance, for tests about the campaign's machinery (a cluster,
Redis) that must not depend on how many cases a loaded machine gets through before a subtle one shows."""
EAGER_SIGNATURE = (EAGER_PLANT, "OVER_BUDGET")
PLANT_FAMILY = "tight_budget"
"""A nightly campaign takes every family in turn; the tests' short ones take only this one, where
the plant (it needs three or more items and a budget that a subset fills) shows within a second or
so, leaving time to shrink it."""
WAIT_SECONDS = 120
"""Longest a test waits for a campaign to get somewhere (a loaded machine starts clusters slowly)."""


def environment(**extra: str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]), **extra)


def start(*arguments: str, **env: str) -> subprocess.Popen:
    """`knapcheck fuzz ARGUMENTS` in its own process group, stderr (progress and messages) piped."""
    command = [sys.executable, "-m", "knapcheck", "fuzz", *arguments]
    return subprocess.Popen(
        command, cwd=ROOT, env=environment(**env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )


def read_until(campaign: subprocess.Popen, prefix: str, seen: list[str]) -> str:
    """Read the campaign's stderr into ``seen`` up to the first line starting with ``prefix``."""
    give_up = time.monotonic() + WAIT_SECONDS
    assert campaign.stderr is not None  # started with stderr=PIPE (start)
    for line in campaign.stderr:
        seen.append(line)
        if line.startswith(prefix):
            return line
        assert time.monotonic() < give_up, f"no line starting with {prefix!r} in {WAIT_SECONDS} s:\n{''.join(seen)}"
    raise AssertionError(f"the campaign ended without a line starting with {prefix!r}:\n{''.join(seen)}")


def stored_paths(lines: list[str]) -> list[Path]:
    return [Path(line.rsplit(" -> ", 1)[1].strip()) for line in lines if line.startswith("stored ")]


def descendants(pid: int) -> list[psutil.Process]:
    return psutil.Process(pid).children(recursive=True)


def dask_workers(campaign_pid: int) -> list[psutil.Process]:
    """The local cluster's worker processes: the children of its forkserver."""
    for process in descendants(campaign_pid):
        try:
            if any("forkserver" in part for part in process.cmdline()):
                return process.children()
        except psutil.Error:
            continue
    return []


def assert_all_gone(processes: list[psutil.Process]) -> None:
    """Every process is gone (or a zombie) within a few seconds: nothing outlives the campaign."""
    _, alive = psutil.wait_procs(processes, timeout=15)
    alive = [p for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert alive == [], f"left running: {[(p.pid, p.cmdline()) for p in alive]}"


def stored_signatures(store: Path) -> list[tuple[str, ...]]:
    """The signatures of the store's groups, as plain tuples (solver, verdict)."""
    return [signature.parts() for signature in FailureStore(store).groups()]


def report(out: Path) -> dict:
    return json.loads((out / "campaign.json").read_text())


def interrupt(campaign: subprocess.Popen) -> None:
    """Ctrl-C at a terminal: SIGINT to the whole foreground process group."""
    os.killpg(campaign.pid, signal.SIGINT)


def dask_command(*arguments: str) -> subprocess.Popen:
    """`dask ARGUMENTS` (a scheduler or a worker, as a user starts them), in its own process group."""
    dask = Path(sys.executable).parent / "dask"
    return subprocess.Popen([str(dask), *arguments], env=environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def start_scheduler(directory: Path, *options: str) -> tuple[subprocess.Popen, str]:
    """`dask scheduler` on 127.0.0.1 (a free port), and its address once it listens."""
    scheduler_file = directory / "scheduler.json"
    scheduler = dask_command("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                             "--scheduler-file", str(scheduler_file), *options)
    give_up = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            return scheduler, json.loads(scheduler_file.read_text())["address"]
        except (FileNotFoundError, json.JSONDecodeError):
            pass  # not written yet, or half-written: Dask writes the file in place
        assert time.monotonic() < give_up and scheduler.poll() is None, "the scheduler did not start"
        time.sleep(0.2)


def stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        process.wait(timeout=60)
