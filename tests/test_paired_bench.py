"""The paired benchmark engine: the interleaving order, the intervals, and every way a target can fail it.

No test here times anything: the calls are fakes with fixed costs on a fake clock, or the assertions
are about what happened (who failed, how, what memory a solver holds, whether a baseline ran the
code it names), never about how long it took.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from knapcheck.measure import paired_parent, tree_meter
from knapcheck.measure.bench import BenchRow
from knapcheck.measure.paired import (
    BASELINE,
    CANDIDATE,
    MEMORY_FLOOR,
    MIN_SAMPLES,
    PAIRS_PER_ROUND,
    STOP_FAILURE,
    STOP_ROUNDS,
    STOP_SHARES,
    STOP_TIGHT,
    STOP_TIME,
    Recording,
    block_order,
    drive,
    measure_pair,
    warm_up_order,
)
from knapcheck.measure.paired_child import failure_status, serve_calls
from knapcheck.measure.paired_parent import Failed, Measured, PairedProcess
from knapcheck.measure.perf_gate import PerformanceLimits, performance_failures
from knapcheck.measure.ratio_interval import CONFIDENCE, MIN_SAMPLES_FOR_CONFIDENCE, estimate
from knapcheck.solvers.contract import ProblemTooLarge
from knapcheck.solvers.entry import SolverEntry

TINY_ROWS = [BenchRow("tiny a", 6, 0.01), BenchRow("tiny b", 8, 0.02)]
PLANTED = Path(__file__).resolve().parent / "planted"
MIB = 2**20


# --- the interleaving order -------------------------------------------------------------------


def test_each_round_calls_both_solvers_twice_on_every_row_in_the_order_abba():
    for round_index in range(4):
        order = block_order(range(3), round_index)
        assert len(order) == 12
        for row in range(3):
            roles = [role for r, role in order if r == row]
            first = CANDIDATE if round_index % 2 == 0 else BASELINE
            second = BASELINE if first == CANDIDATE else CANDIDATE
            assert roles == [first, second, second, first]
        assert [r for r, _ in order] == sorted(r for r, _ in order), "a row's four calls are adjacent"


def test_the_warm_up_calls_each_solver_once_on_every_row():
    assert warm_up_order(2) == [(row, role) for row in (0, 1) for role in (CANDIDATE, BASELINE)]


# --- the parent: driving the calls ------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeCalls:
    """Each role's calls cost fixed seconds (per item of the row) on a fake clock and hold fixed
    memory; ``script`` replaces the reply of the n-th call (counting from 0) by a Failed or None."""

    def __init__(self, seconds: dict[str, float], peaks: dict[str, int], rows: list[int],
                 script: dict[int, Failed | None] | None = None) -> None:
        self.clock = FakeClock()
        self.seconds, self.peaks, self.rows = seconds, peaks, rows
        self.script = script or {}
        self.log: list[tuple[str, int, bool]] = []

    def __call__(self, role: str, row: int, seconds_left: float, settle: bool) -> Measured | Failed | None:
        self.log.append((role, row, settle))
        if len(self.log) - 1 in self.script:
            reply = self.script[len(self.log) - 1]
            self.clock.now += seconds_left if reply is None else 0.0
            return reply
        cost = self.seconds[role] * self.rows[row]
        if cost > seconds_left:
            self.clock.now += seconds_left
            return None
        self.clock.now += cost
        return Measured(cost, cost, self.peaks[role], 0)


def run_calls(calls: FakeCalls, max_rounds: int = 100, time_limit: float = 20.0) -> tuple[str, dict | None, Recording]:
    recording = Recording(len(calls.rows))
    stopped, failure = drive(calls, recording, time_limit, max_rounds, clock=calls.clock)
    return stopped, failure, recording


def test_the_parent_makes_every_call_in_order_and_says_which_ones_are_the_warm_up():
    calls = FakeCalls({CANDIDATE: 0.01, BASELINE: 0.01}, {CANDIDATE: 0, BASELINE: 0}, [2, 3])
    stopped, failure, recording = run_calls(calls, max_rounds=2)
    assert (stopped, failure, recording.complete_rounds()) == (STOP_ROUNDS, None, 2)
    expected = warm_up_order(2) + [call for k in (0, 1) for call in block_order([0, 1], k)]
    assert [(row, role) for role, row, _ in calls.log] == expected
    assert [settle for _, _, settle in calls.log] == [True] * 4 + [False] * 16


def test_a_candidate_five_times_slower_reads_5x_and_the_rounds_stop_once_the_interval_is_tight():
    calls = FakeCalls({CANDIDATE: 0.05, BASELINE: 0.01}, {CANDIDATE: 10 * MIB, BASELINE: MIB}, [1, 1])
    stopped, failure, recording = run_calls(calls)
    assert (stopped, failure) == (STOP_TIGHT, None)
    assert recording.complete_rounds() * PAIRS_PER_ROUND == MIN_SAMPLES, "identical samples are tight as soon as enough ran"
    times, memories = recording.samples(0)
    time_ratio, memory_ratio = estimate(times), estimate(memories)
    assert time_ratio.ratio == pytest.approx(5.0) and time_ratio.low == pytest.approx(5.0)
    assert memory_ratio.ratio == pytest.approx(10.0)
    assert time_ratio.confidence == CONFIDENCE and time_ratio.samples == MIN_SAMPLES
    assert recording.medians(1, "seconds") == {CANDIDATE: 0.05, BASELINE: 0.01}


def test_an_order_effect_moves_as_many_samples_each_way():
    """Two equal solvers, where a call right after the same solver's call costs 20 % less (its
    caches are warm): the second pair of a round has one such call, the candidate's in one round
    and the baseline's in the next, so as many samples read 0.8x as 1.25x, and the ratio is 1."""
    clock, previous = FakeClock(), []

    def call(role: str, row: int, seconds_left: float, settle: bool) -> Measured:
        cost = 0.8 if previous and previous[-1] == role else 1.0
        previous.append(role)
        clock.now += cost
        return Measured(cost, cost, MIB, 0)

    recording = Recording(1)
    drive(call, recording, time_limit=1000.0, max_rounds=6, clock=clock)
    times, _ = recording.samples(0)
    assert len(times) == 6 * PAIRS_PER_ROUND
    assert sorted(round(math.exp(t), 2) for t in times) == [0.8] * 3 + [1.0] * 6 + [1.25] * 3
    assert estimate(times).ratio == pytest.approx(1.0)


def test_a_row_whose_interval_is_tight_is_left_out_of_the_rounds_after_it():
    """Row 0 costs the same on every call: tight after MIN_SAMPLES samples. Row 1's candidate costs 1
    or 1.5 in turn, so its interval never gets tight: the rounds go on for row 1 alone."""
    clock, calls = FakeClock(), []

    def call(role: str, row: int, seconds_left: float, settle: bool) -> Measured:
        calls.append(row)
        cost = 1.5 if row == 1 and role == CANDIDATE and len(calls) % 3 == 0 else 1.0
        clock.now += cost
        return Measured(cost, cost, MIB, 0)

    recording = Recording(2)
    stopped, failure = drive(call, recording, time_limit=1000.0, max_rounds=12, clock=clock)
    assert (stopped, failure) == (STOP_ROUNDS, None)
    tight_after = MIN_SAMPLES // PAIRS_PER_ROUND
    assert len(recording.samples(0)[0]) == MIN_SAMPLES and len(recording.samples(1)[0]) == 12 * PAIRS_PER_ROUND
    assert calls.count(0) == 2 + 4 * tight_after and calls.count(1) == 2 + 4 * 12
    assert recording.row_tight(0) and not recording.row_tight(1)
    assert (recording.complete_rounds(), recording.rounds_run()) == (tight_after, 12)


def test_a_dear_row_that_never_gets_tight_leaves_the_rounds_once_it_had_its_share_of_the_time():
    """Row 0's candidate costs 1 or 1.5 in turn (never tight), row 1 costs 0.01 on every call
    (tight after MIN_SAMPLES samples). With a limit of 100 s over two rows, row 0 leaves once its
    calls took 50 s: the rounds end there, well within the limit, and row 0's wider interval is
    kept, never cut short of MIN_SAMPLES samples."""
    clock, calls = FakeClock(), []

    def call(role: str, row: int, seconds_left: float, settle: bool) -> Measured:
        calls.append(row)
        cost = 0.01 if row == 1 else 1.5 if role == CANDIDATE and len(calls) % 3 == 0 else 1.0
        clock.now += cost
        return Measured(cost, cost, MIB, 0)

    recording = Recording(2)
    stopped, failure = drive(call, recording, time_limit=100.0, max_rounds=100, clock=clock)
    assert (stopped, failure) == (STOP_SHARES, None)
    assert not recording.row_tight(0) and recording.row_tight(1)
    assert 50.0 <= recording.row_spent[0] < 50.0 + 4 * 1.5 and clock.now < 100.0
    assert len(recording.samples(0)[0]) >= MIN_SAMPLES and len(recording.samples(1)[0]) == MIN_SAMPLES


def test_a_row_past_its_share_stays_until_it_has_min_samples():
    """Four rows under a limit of 40 s: a share of 10 s each. Row 0 (1 or 1.5 s a call, never tight)
    is past its share after 3 rounds, with 6 samples; it stays until it has MIN_SAMPLES."""
    clock, calls = FakeClock(), []

    def call(role: str, row: int, seconds_left: float, settle: bool) -> Measured:
        calls.append(row)
        cost = 0.01 if row else 1.5 if role == CANDIDATE and len(calls) % 3 == 0 else 1.0
        clock.now += cost
        return Measured(cost, cost, MIB, 0)

    recording = Recording(4)
    stopped, _ = drive(call, recording, time_limit=40.0, max_rounds=100, clock=clock)
    assert stopped == STOP_SHARES
    assert len(recording.samples(0)[0]) == MIN_SAMPLES and recording.row_spent[0] > 2 * 10.0


def test_peaks_under_the_floor_compare_as_equal():
    calls = FakeCalls({CANDIDATE: 0.01, BASELINE: 0.01}, {CANDIDATE: 8192, BASELINE: 4096}, [1])
    _, _, recording = run_calls(calls, max_rounds=10)
    assert estimate(recording.samples(0)[1]).ratio == 1.0
    assert MEMORY_FLOOR == 2**20


def test_the_rounds_stop_at_the_time_limit_and_keep_what_was_measured():
    calls = FakeCalls({CANDIDATE: 1.0, BASELINE: 1.0}, {CANDIDATE: 0, BASELINE: 0}, [1])
    stopped, failure, recording = run_calls(calls, time_limit=20.0)
    assert (stopped, failure) == (STOP_TIME, None)
    assert recording.complete_rounds() == 4, "warm-up 2 s, then 4 s per round within 20 s"


def test_all_rounds_run_ends_as_rounds():
    calls = FakeCalls({CANDIDATE: 0.01, BASELINE: 0.02}, {CANDIDATE: 0, BASELINE: 0}, [1])
    stopped, failure, recording = run_calls(calls, max_rounds=3)
    assert (stopped, failure, recording.complete_rounds()) == (STOP_ROUNDS, None, 3)
    assert estimate(recording.samples(0)[0]).confidence < CONFIDENCE, "3 rounds, 6 samples, give no 99 % interval"


def test_a_failed_call_is_that_solvers_failure_on_its_row():
    # calls 0-3 are the warm-up of rows 0 and 1; call 5 is round 0's second call of row 0: the baseline's
    calls = FakeCalls({CANDIDATE: 0.01, BASELINE: 0.01}, {CANDIDATE: 0, BASELINE: 0}, [1, 1],
                      {5: Failed("crash", "the benchmark process was killed by SIGSEGV")})
    stopped, failure, _ = run_calls(calls)
    assert stopped == STOP_FAILURE
    assert failure == {"role": BASELINE, "status": "crash", "row": 0, "error": "the benchmark process was killed by SIGSEGV"}


def test_a_hang_in_the_warm_up_is_a_timeout_of_the_solver_that_spent_the_time():
    calls = FakeCalls({CANDIDATE: 0.01, BASELINE: 0.01}, {CANDIDATE: 0, BASELINE: 0}, [1], {0: None})
    stopped, failure, _ = run_calls(calls, time_limit=3.0)
    assert stopped == STOP_FAILURE and failure["role"] == CANDIDATE and failure["status"] == "timeout"
    assert failure["row"] == 0 and "the time limit (3 s) ran out before every row was measured once" in failure["error"]


def test_a_solver_too_slow_for_even_one_round_is_blamed_not_the_one_in_flight():
    """The baseline's call happens to be under way when the limit runs out; the candidate spent the time."""
    # warm-up: candidate to 6 s, baseline to 9 s; round 0: candidate to 15 s, baseline to 18 s, and the
    # baseline's second call (3 s) does not fit in the 2 s left
    calls = FakeCalls({CANDIDATE: 6.0, BASELINE: 3.0}, {CANDIDATE: 0, BASELINE: 0}, [1])
    stopped, failure, recording = run_calls(calls, time_limit=20.0)
    assert [role for role, _, _ in calls.log][-1] == BASELINE
    assert stopped == STOP_FAILURE and failure["status"] == "timeout" and failure["role"] == CANDIDATE
    assert "the candidate's calls took 12 s in all, the baseline's 8 s" in failure["error"]


# --- the solver's process: serving calls ----------------------------------------------------------


def test_the_solvers_process_calls_the_solver_on_the_row_asked_and_tidies_when_told():
    seen, sent = [], []
    messages = iter([{"call": 1}, {"tidy": True}, {"call": 0}, {"tidy": False}])

    def receive() -> dict:
        try:
            return next(messages)
        except StopIteration:
            raise EOFError from None

    def solver(memory, runtimes, max_memory):
        seen.append((list(memory), max_memory))
        memory.clear()
        return 0.0, [], []

    problems = [([0.1], [1.0], 0.5), ([0.2, 0.3], [1.0, 2.0], 0.4)]
    serve_calls(solver, problems, receive, sent.append)
    assert seen == [([0.2, 0.3], 0.4), ([0.1], 0.5)], "fresh copies of the lists, every call"
    assert sent == [{"event": "done"}, {"event": "idle"}, {"event": "done"}, {"event": "idle"}]


def test_a_solver_that_raises_in_its_process_ends_the_calls_with_a_failed_message():
    sent = []

    def refuses(memory, runtimes, max_memory):
        raise ProblemTooLarge("the table would need 10 GiB")

    serve_calls(refuses, [([0.1], [1.0], 0.5)], lambda: {"call": 0}, sent.append)
    assert sent == [{"event": "failed", "status": "too big", "error": "ProblemTooLarge: the table would need 10 GiB"}]
    assert failure_status(MemoryError()) == failure_status(RuntimeError("can't allocate memory")) == "out of memory"
    assert failure_status(ValueError("memory[3] is NaN")) == "error"


@pytest.mark.parametrize("garbage", [b"not json", b'["a", "list"]', b'{"event": "idle"}', b'{"event": "party"}'])
def test_a_message_outside_the_protocol_is_a_crash_of_the_solver_that_sent_it(garbage):
    worker = PairedProcess("unused", [], output=None, threads=1, wall_time=False, capped=False)
    failed = worker._read(garbage, "done")
    assert failed.status == "crash" and failed.error.startswith("the benchmark process sent ")
    assert failed.error.endswith("where it should have said 'done'")


# --- the intervals ----------------------------------------------------------------------------


def test_the_interval_is_the_sign_test_interval_of_the_median():
    logs = [math.log(1 + k / 100) for k in range(30)]
    result = estimate(logs)
    assert result.ratio == pytest.approx(math.exp((logs[14] + logs[15]) / 2))
    # 30 samples at 99 %: the 8th smallest and the 8th largest (binomial(30, 1/2) tails of 0.26 % each)
    assert (result.low, result.high) == (pytest.approx(math.exp(logs[7])), pytest.approx(math.exp(logs[22])))
    assert result.confidence == CONFIDENCE


def test_few_samples_give_their_range_and_say_how_sure_it_is():
    assert MIN_SAMPLES_FOR_CONFIDENCE == 8
    result = estimate([math.log(2.0), math.log(3.0), math.log(2.5)])
    assert (result.low, result.ratio, result.high) == (pytest.approx(2.0), pytest.approx(2.5), pytest.approx(3.0))
    assert result.confidence == 0.75 and "75% confidence from 3 samples" in result.describe()
    assert estimate([]) is None
    with pytest.raises(ValueError, match="log_ratios must be finite"):
        estimate([0.0, float("inf")])


# --- the real processes: targets that misbehave --------------------------------------------


def planted(name: str, module: str = "misbehaving") -> SolverEntry:
    return SolverEntry(f"planted.{module}:{name}", f"planted.{module}:{name}", exact=True, origin="test")


REFERENCE = SolverEntry("full_table", "knapcheck.solvers.full_table:full_table", exact=True, origin="ours")


def test_two_solvers_measured_in_their_processes_give_every_row_a_ratio():
    result = measure_pair(REFERENCE, REFERENCE, TINY_ROWS, max_rounds=2)
    assert (result.stopped, result.failure, result.rounds) == (STOP_ROUNDS, None, 2)
    for row in result.rows:
        assert row.time.samples == row.memory.samples == 2 * PAIRS_PER_ROUND
        assert set(row.seconds) == set(row.peak_bytes) == set(row.retained_bytes) == {CANDIDATE, BASELINE}
    assert result.cpus >= 1 and result.load_before >= 0 and result.load_after >= 0
    assert result.time_measure == "cpu" and result.memory_measure in (tree_meter.CGROUP, tree_meter.SAMPLED)


@pytest.mark.parametrize("target, role, status, error", [
    ("segfault", CANDIDATE, "crash", "killed by SIGSEGV"),
    ("exits", CANDIDATE, "crash", "exited with status 3"),
    ("allocates_without_bound", CANDIDATE, "out of memory", "MemoryError|over the cap"),
    ("segfault", BASELINE, "crash", "killed by SIGSEGV"),
])
def test_a_target_that_dies_or_runs_out_of_memory_in_the_benchmark_is_a_result_that_names_it(target, role, status, error, monkeypatch):
    monkeypatch.setattr(paired_parent, "MEMORY_LIMIT", 256 * MIB)
    candidate, baseline = (planted(target), REFERENCE) if role == CANDIDATE else (REFERENCE, planted(target))
    result = measure_pair(candidate, baseline, TINY_ROWS, max_rounds=3)
    assert result.stopped == STOP_FAILURE and result.rounds == 0
    failure = result.failure
    assert (failure.role, failure.status, failure.row) == (role, status, "tiny a")
    assert re.search(error, failure.error) and failure.solver == planted(target).name
    assert all(row.time is None for row in result.rows)


def test_a_target_that_hangs_in_the_benchmark_is_a_timeout():
    result = measure_pair(planted("hangs"), REFERENCE, TINY_ROWS, time_limit=2.0, max_rounds=3)
    assert result.stopped == STOP_FAILURE
    assert (result.failure.role, result.failure.status, result.failure.row) == (CANDIDATE, "timeout", "tiny a")


def test_a_target_that_cannot_be_loaded_is_a_result_too(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("raise ImportError('no module named fancy_kernels')\n")
    result = measure_pair(REFERENCE, SolverEntry("broken", f"{broken}:solve", exact=True, origin="test"), TINY_ROWS)
    assert (result.failure.role, result.failure.status, result.failure.row) == (BASELINE, "error", "")
    assert "fancy_kernels" in result.failure.error


def test_a_row_either_solver_refuses_is_not_run():
    small = SolverEntry("small", REFERENCE.spec, exact=True, origin="test", max_capacity=150)
    result = measure_pair(REFERENCE, small, TINY_ROWS, max_rounds=1)
    measured, refused = result.rows
    assert refused.refused == "too big for small" and refused.time is None
    assert measured.time is not None and result.failure is None


@pytest.mark.parametrize("options, message", [({"time_limit": 0}, "time_limit must be > 0"),
                                              ({"max_rounds": 0}, "max_rounds must be at least 1")])
def test_bad_limits_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        measure_pair(REFERENCE, REFERENCE, TINY_ROWS, **options)


# --- the candidate cannot reach its baseline; memory is what a solver holds ---------------------


def test_a_candidate_that_rebinds_torchs_solver_at_import_leaves_its_baseline_alone(tmp_path, monkeypatch):
    """The baseline torch:dp_knapsack is torch's own function, in a process the candidate never ran in."""
    marker = tmp_path / "marker"
    monkeypatch.setenv("KNAPCHECK_PLANTED_MARKER", str(marker))
    torch_solver = SolverEntry("torch:dp_knapsack", "torch:dp_knapsack", exact=True, origin="torch")
    result = measure_pair(planted("dp_knapsack", "rebinds_torch"), torch_solver, TINY_ROWS[:1], max_rounds=1)
    assert result.failure is None and result.rounds == 1
    assert not marker.exists(), marker.read_text()


@pytest.mark.parametrize("target", ["keeps_a_workspace", "computes_in_a_forked_child"])
def test_memory_a_solver_keeps_or_holds_in_a_child_is_its_memory(target, monkeypatch):
    """64 MiB kept from the first call on, or held by a forked child while it solves: each call's peak
    counts it, and a tiny row's full table (under the 1 MiB floor) makes that 64 times the baseline's."""
    monkeypatch.setenv("KNAPCHECK_PLANTED_MIB", "64")
    result = measure_pair(planted(target, "holds_memory"), REFERENCE, TINY_ROWS[:1], max_rounds=1)
    assert result.failure is None
    (row,) = result.rows
    assert row.peak_bytes[CANDIDATE] >= 64 * MIB and row.memory.low > 32
    if target == "keeps_a_workspace":
        assert row.retained_bytes[CANDIDATE] >= 64 * MIB
    (failure,) = performance_failures([result], PerformanceLimits(max_memory=2))
    assert "peak memory" in failure and "--max-memory 2" in failure


def test_the_cpu_time_of_a_tree_counts_a_child_it_has_reaped():
    """A process whose child burns a quarter of a second of CPU and is reaped: the tree's CPU time
    grows by that much, though the child is gone (its time is in its parent's ``cutime``)."""
    burn = "import time\nend = time.process_time() + 0.25\nwhile time.process_time() < end: pass"
    parent = subprocess.Popen(
        [sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {burn!r}]);"
                               " print('reaped', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        before = tree_meter.tree_cpu_seconds(parent.pid)
        assert parent.stdout.readline() == "reaped\n"
        assert tree_meter.tree_cpu_seconds(parent.pid) - before >= 0.24
    finally:
        parent.kill()
        parent.wait()
