"""What solvers print goes to a log, never into a command's results on stdout.

HiGHS, under scipy's milp in torch's ilp_knapsack, writes to file descriptor 1 from C; it used to
land in the middle of `knapcheck check`'s output (14 lines in a default check).
"""

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from knapcheck.commands.cli import main
from knapcheck.commands.solver_log import LOG_LIMIT


def test_solver_chatter_goes_to_the_log_not_stdout(tmp_path, capfd):
    log = tmp_path / "solvers.log"
    main(["check", "--targets", "torch:ilp_knapsack", "--families", "tiny", "--per-family", "1", "--solver-log", str(log)])
    out, err = capfd.readouterr()
    assert "Highs" in log.read_text(), "the known-failure corpus's ilp_knapsack cases make HiGHS print"
    assert "Highs" not in out and "Highs" not in err
    assert re.match(r"\d+ instances \(1 families x 1 sampled, \d+ cases of the known-failure corpus", out.splitlines()[0])
    assert f"what the solvers printed is in {log}" in err


def test_an_empty_default_log_is_removed(capfd):
    main(["check", "--targets", "full_table", "--families", "tiny", "--per-family", "1"])
    assert "what the solvers printed" not in capfd.readouterr().err


PLANTED = Path(__file__).parent / "planted"
INSTANCE = {"memory": [0.1, 0.2], "runtimes": [1.0, 2.0], "max_memory": 0.2}
QUIET = f"{PLANTED / 'wrong_answers.py'}:takes_nothing"
"""An isolated target that prints nothing (and fails: SUBOPTIMAL, exit status 1)."""


def solve(target: str, log: Path, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """`knapcheck solve TARGET` on a small instance with --solver-log, from outside the repository."""
    instance = cwd / "instance.json"
    instance.write_text(json.dumps(INSTANCE))
    return subprocess.run(
        [sys.executable, "-m", "knapcheck", "solve", target, str(instance), "--solver-log", str(log)],
        cwd=cwd, capture_output=True, text=True, timeout=timeout,
    )


def test_an_existing_log_is_appended_to_never_emptied_or_removed(tmp_path):
    log = tmp_path / "kept.log"
    log.write_text("the user's own lines\n")
    quiet = solve(QUIET, log, tmp_path)
    assert quiet.returncode == 1, quiet.stderr
    assert log.read_text() == "the user's own lines\n"
    chatty = solve(f"{PLANTED / 'chatty.py'}:chatters", log, tmp_path)
    assert chatty.returncode == 0, chatty.stderr
    assert log.read_text().startswith("the user's own lines\nRunning HiGHS 1.0: planted chatter")


def test_a_log_it_creates_is_removed_only_when_nothing_was_printed(tmp_path):
    log = tmp_path / "new.log"
    assert solve(QUIET, log, tmp_path).returncode == 1
    assert not log.exists()
    solve(f"{PLANTED / 'chatty.py'}:chatters", log, tmp_path)
    assert "planted chatter" in log.read_text()


def test_a_device_is_refused_in_one_line_and_left_alone(tmp_path):
    """A device node like /dev/full (made here, so that the machine's own stays safe)."""
    full = tmp_path / "full"
    try:
        os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("making a device node needs root")
    run = solve(QUIET, full, tmp_path)
    assert run.returncode == 2
    expected = f"knapcheck solve: --solver-log {full}: not a regular file (expected a file to append to, or {os.devnull})"
    assert run.stderr.strip().splitlines() == [expected]
    assert stat.S_ISCHR(full.stat().st_mode)


def test_a_fifo_is_refused_without_waiting_for_a_reader(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    run = solve(QUIET, fifo, tmp_path, timeout=120)
    assert run.returncode == 2 and "not a regular file" in run.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_dev_null_drops_the_output(tmp_path):
    run = solve(f"{PLANTED / 'chatty.py'}:chatters", Path(os.devnull), tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stderr == "" and stat.S_ISCHR(Path(os.devnull).stat().st_mode)


def test_the_log_is_capped_and_says_where_it_was_truncated(tmp_path):
    log = tmp_path / "flood.log"
    run = solve(f"{PLANTED / 'chatty.py'}:floods", log, tmp_path)
    assert run.returncode == 0, run.stderr
    assert "verdict:      OPTIMAL" in run.stdout, "the flood's writes never failed"
    note = f"\n[knapcheck: log truncated at {LOG_LIMIT} bytes; what the solvers printed after this was dropped]\n"
    assert log.stat().st_size == LOG_LIMIT + len(note)
    with log.open("rb") as text:
        text.seek(LOG_LIMIT)
        assert text.read().decode() == note
    assert f"(truncated at {LOG_LIMIT} bytes; {96 * 2**20 - LOG_LIMIT} more were dropped)" in run.stderr
