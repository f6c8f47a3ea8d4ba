"""SIGTERM and Ctrl-C in `knapcheck check` and `knapcheck report`: the run stops, writes a partial
report that says why, and exits 143 or 130 (fuzz: tests/test_campaign_faults.py).

Each command runs as its own process on a target that takes a tenth of a second per call (ten
seconds, where the test is how long the stop takes), and is signalled once it has started checking,
as a CI job's timeout or a supervisor would.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from knapcheck.commands.exit_status import INTERRUPTED, TERMINATED
from knapcheck.commands.stop_signals import REPEAT_SECONDS, StopRequest, Terminated

ROOT = Path(__file__).resolve().parent.parent
PLANTED = ROOT / "tests" / "planted" / "misbehaving.py"
LATE = f"{PLANTED}:late"
SIGNALS = [pytest.param(signal.SIGTERM, TERMINATED, "terminated", id="SIGTERM"),
           pytest.param(signal.SIGINT, INTERRUPTED, "interrupted", id="Ctrl-C")]


def run_until_checking(directory: Path, *arguments: str, signum: int) -> tuple[int, str, str]:
    """``knapcheck ARGUMENTS`` in ``directory``, signalled once it reports the first family it checks."""
    command = subprocess.Popen([sys.executable, "-m", "knapcheck", *arguments], cwd=directory, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    seen = []
    assert command.stderr is not None  # stderr=PIPE
    for line in command.stderr:
        seen.append(line)
        if line.endswith(" instances\n"):
            break
    command.send_signal(signum)
    out, rest = command.communicate(timeout=120)
    return command.returncode, out, "".join(seen) + rest


@pytest.mark.parametrize("signum, status, word", SIGNALS)
def test_check_writes_a_partial_result_and_exits_with_the_signals_status(tmp_path, signum, status, word):
    returncode, out, err = run_until_checking(tmp_path, "check", "--targets", LATE, "--families", "tiny",
                                              "--json", "check.json", signum=signum)
    assert returncode == status, err
    assert out.startswith(f"PARTIAL ({word}): the run stopped after ") and "Traceback" not in err
    document = json.loads((tmp_path / "check.json").read_text())
    assert document["partial"] is True and document["stopped_by"] == word and document["skipped"] > 0


def test_report_writes_a_partial_report_and_exits_143_on_sigterm(tmp_path):
    returncode, out, err = run_until_checking(tmp_path, "report", "--candidate", LATE, "--baseline", "full_table",
                                              "--families", "tiny", "--out", "out", signum=signal.SIGTERM)
    assert returncode == TERMINATED, err
    assert err.rstrip().endswith("knapcheck report: terminated: the report in out is partial") and "Traceback" not in err
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert markdown.startswith("# knapcheck report: ") and "(PARTIAL: terminated)" in markdown.splitlines()[0]
    assert "The run was terminated before it was done: what ran is below." in markdown
    document = json.loads((tmp_path / "out" / "report.json").read_text())
    assert document["partial"] is True and document["stopped_by"] == "terminated"
    assert document["performance"]["note"] == "Not measured: the run was terminated first."
    assert "(PARTIAL: terminated)" in (tmp_path / "out" / "report.html").read_text()


def test_a_command_without_a_partial_report_stops_at_once_on_sigterm_with_one_line(tmp_path):
    """`knapcheck solve` on a target that hangs, signalled while its worker runs: one line, exit 143."""
    instance = tmp_path / "instance.json"
    instance.write_text(json.dumps({"memory": [0.1], "runtimes": [1.0], "max_memory": 0.2}))
    command = subprocess.Popen([sys.executable, "-m", "knapcheck", "solve", f"{PLANTED}:hangs", str(instance)],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    solve = psutil.Process(command.pid)
    while not solve.children() and command.poll() is None:
        time.sleep(0.05)
    command.send_signal(signal.SIGTERM)
    _, err = command.communicate(timeout=60)
    assert command.returncode == TERMINATED and err.strip().splitlines()[-1] == "knapcheck solve: terminated", err


def test_a_second_signal_stops_at_once_unless_it_is_the_first_one_repeated():
    """``timeout`` sends SIGTERM to the command, then to its process group: one request, not two."""
    now = [0.0]
    request = StopRequest(clock=lambda: now[0])
    request(signal.SIGTERM, None)
    now[0] += 0.001
    request(signal.SIGTERM, None)
    assert request.requested() == "terminated" and request.exit_status == TERMINATED
    now[0] += REPEAT_SECONDS
    with pytest.raises(Terminated):
        request(signal.SIGTERM, None)
    with pytest.raises(KeyboardInterrupt):
        request(signal.SIGINT, None)


CALL_SECONDS = 10
SLOW = f"""
import time


def slow(memory, runtimes, max_memory):
    time.sleep({CALL_SECONDS})
    return 0.0, [], list(range(len(memory)))
"""


@pytest.mark.parametrize("arguments, partial", [
    pytest.param(["check", "--targets", "slow.py:slow", "--json", "out.json"], "out.json", id="check"),
    pytest.param(["report", "--candidate", "slow.py:slow", "--baseline", "full_table", "--out", "out"], "out/report.json",
                 id="report"),
])
def test_a_stop_waits_for_the_call_under_way_not_for_the_calls_begun_ahead(tmp_path, arguments, partial):
    """Calls of 10 s each, SIGTERM once checking has begun: the run has begun several chunks ahead
    (a call each, at this speed), yet it exits once the call under way is done, with its partial
    result, instead of after every call it had begun."""
    (tmp_path / "slow.py").write_text(SLOW)
    command = subprocess.Popen([sys.executable, "-m", "knapcheck", *arguments, "--families", "tiny"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in command.stderr:
            if line.endswith(" instances\n"):
                break
        command.send_signal(signal.SIGTERM)
        _, err = command.communicate(timeout=CALL_SECONDS + 10)
    finally:
        command.kill()
    assert command.returncode == TERMINATED and "Traceback" not in err, err
    document = json.loads((tmp_path / partial).read_text())
    assert document["partial"] is True and document["stopped_by"] == "terminated"
