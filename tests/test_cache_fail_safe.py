"""Every cache is optional: `solve`, `check` and `report` give the same verdicts and exit statuses
with knapcheck's cache directory read-only, full or missing as with a working one, say so in one
line at most, and `report` writes its three files.

The broken caches are real, not simulated: where the test may make mounts (root with `unshare -m`),
a read-only bind mount of the cache (EROFS) and a full tmpfs under it (ENOSPC), each in a mount
namespace of the command's own; otherwise (no mounts) the read-only cache is mode 0500 for a user
the mode binds (EACCES), and the full one is skipped. The missing one is a cache path under a
regular file (ENOTDIR). `XDG_CACHE_HOME` points each command at its cache, and kept draws are on.

Each environment's three commands run once for all the tests (``run_once``): the report is one with
an intervention, a copy of torch's knapsack.py whose split defect is moved (`tests/torch_copies.py`),
so its repaired source must be written somewhere and loaded by a worker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest
from shared_runs import run_once
from torch_copies import SPLIT_HALVES_EXCHANGED, write_copy

ENVIRONMENTS = ("working", "read-only", "full", "missing")
SLIDING = "dp_knapsack_sliding_hirschberg"
INSTANCE = '{"memory": [0.1, 0.2, 0.3], "runtimes": [1.0, 2.0, 3.0], "max_memory": 0.35}'
KNAPCHECK = str(Path(sys.executable).with_name("knapcheck"))
CACHE_LINE = "knapcheck: the cache "
NAMES = ("compiled", "draws", "repaired")

READ_ONLY_MOUNT = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
FULL_MOUNT = ('mount -t tmpfs -o size=256k,mode=0700 tmpfs "$0" && mkdir -m 700 -p "$0/knapcheck/compiled"'
              ' "$0/knapcheck/draws" "$0/knapcheck/repaired" && { cat /dev/zero > "$0/filler" 2>/dev/null; true; }'
              ' && exec "$@"')


@lru_cache(maxsize=None)
def can_mount() -> bool:
    """Whether this process may make mounts in a mount namespace of a child's own."""
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            'd=$(mktemp -d) && mount -t tmpfs tmpfs "$d" && umount "$d" && rmdir "$d"'],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


def command_in(environment: str, root: Path, argv: list[str]) -> tuple[list[str], dict]:
    """The command line and environment that run ``argv`` with knapcheck's cache in ``environment``."""
    env = {k: v for k, v in os.environ.items() if k != "KNAPCHECK_DRAW_CACHE"}
    cache = root / "cache"
    env["XDG_CACHE_HOME"] = str(cache)
    if environment == "missing":
        (root / "file").write_text("")
        env["XDG_CACHE_HOME"] = str(root / "file" / "cache")
        return argv, env
    if environment == "full":
        cache.mkdir(exist_ok=True)
        return ["unshare", "-m", "--propagation", "private", "sh", "-c", FULL_MOUNT, str(cache), *argv], env
    if environment == "read-only":
        for name in NAMES:
            (cache / "knapcheck" / name).mkdir(mode=0o700, parents=True, exist_ok=True)
        if can_mount():
            return ["unshare", "-m", "--propagation", "private", "sh", "-c", READ_ONLY_MOUNT, str(cache), *argv], env
        for name in NAMES:
            (cache / "knapcheck" / name).chmod(0o500)
    return argv, env


def _run_commands(environment: str, copy: Path, instance: Path, root: Path) -> None:
    commands = {
        "solve": [KNAPCHECK, "solve", "expanding_core", str(instance)],
        "check": [KNAPCHECK, "check", "--targets", "expanding_core", "full_table", "--families", "tiny",
                  "--per-family", "2", "--json", str(root / "check.json")],
        "report": [KNAPCHECK, "report", "--candidate", f"{copy}:{SLIDING}", "--baseline", f"torch:{SLIDING}",
                   "--families", "tiny", "--per-family", "5", "--bench-repeats", "0", "--out", str(root / "report")],
    }
    for name, argv in commands.items():
        line, env = command_in(environment, root, argv)
        done = subprocess.run(line, env=env, cwd=root, capture_output=True, text=True, timeout=600)
        (root / f"{name}.run.json").write_text(json.dumps({"status": done.returncode, "stdout": done.stdout,
                                                        "stderr": done.stderr}))


def _shared_files(directory: Path) -> None:
    write_copy(directory / "knapsack.py", SPLIT_HALVES_EXCHANGED)
    (directory / "instance.json").write_text(INSTANCE)


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> Path:
    """The copy of torch's file and the instance every environment's commands read (the same paths)."""
    return run_once(tmp_path_factory, "cache_fail_safe_files", _shared_files)


@pytest.fixture(scope="module", params=ENVIRONMENTS)
def runs(request, tmp_path_factory, shared) -> tuple[str, Path]:
    """One environment's three commands, run once for every test and xdist worker."""
    environment = request.param
    if environment == "full" and not can_mount():
        pytest.skip("a full cache needs a tmpfs mount (root with unshare -m)")
    if environment == "read-only" and not can_mount() and os.geteuid() == 0:
        pytest.skip("root without mounts: no mode makes a directory read-only for root")
    root = run_once(tmp_path_factory, f"cache_{environment}",
                    lambda root: _run_commands(environment, shared / "knapsack.py", shared / "instance.json", root))
    return environment, root


@pytest.fixture(scope="module")
def working(tmp_path_factory, shared) -> Path:
    return run_once(tmp_path_factory, "cache_working",
                    lambda root: _run_commands("working", shared / "knapsack.py", shared / "instance.json", root))


def ran(root: Path, command: str) -> dict:
    return json.loads((root / f"{command}.run.json").read_text())


def check_verdicts(root: Path) -> tuple:
    data = json.loads((root / "check.json").read_text())
    return ({s["name"]: s["verdicts"] for s in data["solvers"]}, data["gate"]["passed"],
            sorted((f["solver"], f["verdict"], f["status"]) for f in data["failures"]))


def report_verdicts(root: Path) -> tuple:
    data = json.loads((root / "report" / "report.json").read_text())
    failures = data["correctness"]["failures"]
    return (data["gate"]["passed"], sorted((f["solver"], f["verdict"], f["status"], json.dumps(f.get("repaired")))
                                           for f in failures))


@pytest.mark.parametrize("command", ["solve", "check", "report"])
def test_a_command_says_at_most_one_line_about_the_cache_and_never_a_traceback(runs, command):
    environment, root = runs
    stderr = ran(root, command)["stderr"]
    said = [line for line in stderr.splitlines() if line.startswith(CACHE_LINE)]
    assert "Traceback" not in stderr and len(said) <= 1, stderr
    if environment == "working":
        assert said == [], stderr
    elif command == "report":
        assert len(said) == 1, "a report keeps draws and a repaired source: it says why it could not"


def test_solve_answers_as_with_a_working_cache(runs, working):
    environment, root = runs
    done, expected = ran(root, "solve"), ran(working, "solve")
    assert (done["status"], done["stdout"]) == (expected["status"], expected["stdout"])
    assert expected["status"] == 0 and "verdict:      OPTIMAL" in expected["stdout"], expected


def test_check_gives_the_verdicts_and_status_of_a_working_cache(runs, working):
    environment, root = runs
    assert ran(root, "check")["status"] == ran(working, "check")["status"] == 0, ran(root, "check")["stderr"]
    assert check_verdicts(root) == check_verdicts(working)
    assert "REJECTED" not in json.dumps(check_verdicts(root)[0])


def test_report_with_an_intervention_writes_its_files_and_the_verdicts_of_a_working_cache(runs, working):
    environment, root = runs
    assert ran(root, "report")["status"] == ran(working, "report")["status"] == 0, ran(root, "report")["stderr"]
    assert {p.name for p in (root / "report").iterdir()} >= {"report.md", "report.json", "report.html"}
    assert report_verdicts(root) == report_verdicts(working)
    passed, failures = report_verdicts(working)
    assert passed and any(status == "known defect, now visible" and '"decided": true' in repaired
                          for _, _, status, repaired in failures), "the intervention decided a failure"


def test_numba_without_a_place_for_its_cache_compiles_in_each_process():
    """numba raises "no locator available" when asked to cache a function it has nowhere to keep
    (code without a file here; a read-only install and home for expanding_core's search): the
    search is compiled all the same, without its on-disk cache."""
    from knapcheck.solvers.core.search import compiled

    namespace: dict = {}
    exec("def plus_one(x):\n    return x + 1\n", namespace)
    assert compiled(namespace["plus_one"], cache=True)(1) == 2
