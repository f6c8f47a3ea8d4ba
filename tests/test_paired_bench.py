"""The paired benchmark engine: the interleaving order, the intervals, and every way a target can fail it.

No test here times anything: solvers and clocks are fakes with fixed costs, or the assertions are
about what happened (who failed, how), never about how long it took.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from knapcheck.measure import paired
from knapcheck.measure.bench import BenchRow
from knapcheck.measure.paired import (
    MEMORY_FLOOR,
    MIN_ROUNDS,
    STOP_FAILURE,
    STOP_ROUNDS,
    STOP_TIGHT,
    STOP_TIME,
    Recording,
    drive,
    measure_pair,
)
from knapcheck.measure.paired_child import BASELINE, CANDIDATE, WARM_UP_ROUND, block_order, failure_status, run_rounds
from knapcheck.measure.ratio_interval import CONFIDENCE, MIN_SAMPLES_FOR_CONFIDENCE, estimate
from knapcheck.solvers.contract import ProblemTooLarge
from knapcheck.solvers.entry import SolverEntry

TINY_ROWS = [BenchRow("tiny a", 6, 0.01), BenchRow("tiny b", 8, 0.02)]
PLANTED = Path(__file__).resolve().parent / "planted"


# --- the interleaving order -------------------------------------------------------------------


def test_each_round_calls_both_solvers_twice_on_every_row_in_the_order_abba():
    for round_index in range(4):
        order = block_order(3, round_index)
        assert len(order) == 12
        for row in range(3):
            roles = [role for r, role in order if r == row]
            first = CANDIDATE if round_index % 2 == 0 else BASELINE
            second = BASELINE if first == CANDIDATE else CANDIDATE
            assert roles == [first, second, second, first]
        assert [r for r, _ in order] == sorted(r for r, _ in order), "a row's four calls are adjacent"


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeMeter:
    """Peak memory as the fake solvers declare it."""

    def __init__(self) -> None:
        self.peak = 0

    def start(self) -> None:
        self.peak = 0

    def added(self) -> int:
        return self.peak


def fake_solver(clock: FakeClock, meter: FakeMeter, seconds: float, peak: int, log: list, name: str):
    def solve(memory, runtimes, max_memory):
        log.append((name, len(memory)))
        clock.now += seconds * len(memory)
        meter.peak = peak
        return 0.0, [], list(range(len(memory)))

    return solve


def test_the_child_warms_up_each_solver_on_each_row_then_times_the_rounds_in_order():
    clock, meter, log, messages = FakeClock(), FakeMeter(), [], []
    solvers = {CANDIDATE: fake_solver(clock, meter, 0.5, 3 * 2**20, log, CANDIDATE),
               BASELINE: fake_solver(clock, meter, 0.1, 2**20, log, BASELINE)}
    problems = [([0.1] * n, [1.0] * n, 0.5) for n in (2, 3)]
    run_rounds(solvers, problems, 2, messages.append, clock=clock, meter=meter)
    calls = [(m["round"], m["row"], m["role"]) for m in messages if m["event"] == "call"]
    warm_up = [(WARM_UP_ROUND, row, role) for row in (0, 1) for role in (CANDIDATE, BASELINE)]
    assert calls == warm_up + [(k, row, role) for k in (0, 1) for row, role in block_order(2, k)]
    assert [name for name, _ in log] == [role for _, _, role in calls]
    done = [m for m in messages if m["event"] == "done"]
    assert [m["seconds"] for m in done[:2]] == [pytest.approx(1.0), pytest.approx(0.2)]
    assert [m["peak_bytes"] for m in done[:2]] == [3 * 2**20, 2**20]
    assert messages[-1] == {"event": "finished"}
    assert all(m["event"] in ("call", "done") for m in messages[:-1])


def test_a_solver_that_raises_in_the_child_ends_the_rounds_with_a_failed_message():
    messages = []

    def refuses(memory, runtimes, max_memory):
        raise ProblemTooLarge("the table would need 10 GiB")

    run_rounds({CANDIDATE: lambda *a: (0.0, [], []), BASELINE: refuses}, [([0.1], [1.0], 0.5)], 5, messages.append)
    assert messages[-1] == {"event": "failed", "role": BASELINE, "row": 0, "status": "too big",
                            "error": "ProblemTooLarge: the table would need 10 GiB"}
    assert failure_status(MemoryError()) == failure_status(RuntimeError("can't allocate memory")) == "out of memory"
    assert failure_status(ValueError("memory[3] is NaN")) == "error"


# --- the parent: reading the child's messages -------------------------------------------------


class ScriptedChild:
    """A child whose messages arrive at fixed times on a fake clock; EOF (a death) after the last one,
    unless it hangs there."""

    def __init__(self, messages: list[tuple[float, object]], *, hangs: bool = False, death: str = "the benchmark process was killed by SIGSEGV") -> None:
        self.messages = list(messages)
        self.clock = FakeClock()
        self.hangs = hangs
        self.death = death

    def receive(self, timeout: float) -> object:
        if not self.messages:
            if self.hangs:
                self.clock.now += timeout
                return None
            raise EOFError(self.death)
        at, message = self.messages[0]
        if at > self.clock.now + timeout:
            self.clock.now += timeout
            return None
        self.clock.now = max(self.clock.now, at)
        self.messages.pop(0)
        return message


def child_messages(rounds: int, rows: int, seconds: dict[str, float], peaks: dict[str, int], *, start: float = 1.0,
                   finished: bool = True) -> list[tuple[float, dict]]:
    """What a well-behaved child sends, timestamped: loading, warm-up, ``rounds`` rounds."""
    now, out = start, [(0.0, {"event": "loading", "role": CANDIDATE}), (0.0, {"event": "loading", "role": BASELINE}),
                       (start, {"event": "loaded"})]
    schedule = [(WARM_UP_ROUND, row, role) for row in range(rows) for role in (CANDIDATE, BASELINE)]
    schedule += [(k, row, role) for k in range(rounds) for row, role in block_order(rows, k)]
    for round_index, row, role in schedule:
        out.append((now, {"event": "call", "role": role, "row": row, "round": round_index}))
        now += seconds[role]
        out.append((now, {"event": "done", "seconds": seconds[role], "peak_bytes": peaks[role]}))
    if finished:
        out.append((now, {"event": "finished"}))
    return out


def run_script(child: ScriptedChild, rows: int, time_limit: float = 20.0) -> tuple[str, dict | None, Recording]:
    recording = Recording(rows)
    stopped, failure = drive(child.receive, recording, time_limit, clock=child.clock)
    return stopped, failure, recording


def test_a_candidate_five_times_slower_reads_5x_and_the_rounds_stop_once_the_interval_is_tight():
    seconds = {CANDIDATE: 0.05, BASELINE: 0.01}
    child = ScriptedChild(child_messages(50, 2, seconds, {CANDIDATE: 10 * 2**20, BASELINE: 2**20}))
    stopped, failure, recording = run_script(child, 2)
    assert (stopped, failure) == (STOP_TIGHT, None)
    assert recording.complete_rounds() == MIN_ROUNDS, "identical samples are tight as soon as enough rounds ran"
    times, memories = recording.samples(0)
    time_ratio, memory_ratio = estimate(times), estimate(memories)
    assert time_ratio.ratio == pytest.approx(5.0) and time_ratio.low == pytest.approx(5.0)
    assert memory_ratio.ratio == pytest.approx(10.0)
    assert time_ratio.confidence == CONFIDENCE and time_ratio.samples == MIN_ROUNDS
    assert recording.medians(1, 0) == {CANDIDATE: 0.05, BASELINE: 0.01}


def test_peaks_under_the_floor_compare_as_equal():
    child = ScriptedChild(child_messages(10, 1, {CANDIDATE: 0.01, BASELINE: 0.01}, {CANDIDATE: 8192, BASELINE: 4096}))
    _, _, recording = run_script(child, 1)
    assert estimate(recording.samples(0)[1]).ratio == 1.0
    assert MEMORY_FLOOR == 2**20


def test_the_rounds_stop_at_the_time_limit_and_keep_what_was_measured():
    child = ScriptedChild(child_messages(100, 1, {CANDIDATE: 1.0, BASELINE: 1.0}, {CANDIDATE: 0, BASELINE: 0}), hangs=True)
    stopped, failure, recording = run_script(child, 1, time_limit=20.0)
    assert (stopped, failure) == (STOP_TIME, None)
    assert recording.complete_rounds() == 4, "warm-up 2 s, then 4 s per round within 20 s"


def test_all_rounds_run_ends_as_rounds():
    child = ScriptedChild(child_messages(3, 1, {CANDIDATE: 0.01, BASELINE: 0.02}, {CANDIDATE: 0, BASELINE: 0}))
    stopped, failure, recording = run_script(child, 1)
    assert (stopped, failure, recording.complete_rounds()) == (STOP_ROUNDS, None, 3)
    assert estimate(recording.samples(0)[0]).confidence < CONFIDENCE, "3 samples give no 99 % interval"


def test_a_crash_during_a_call_is_that_solvers_crash():
    messages = child_messages(2, 2, {CANDIDATE: 0.01, BASELINE: 0.01}, {CANDIDATE: 0, BASELINE: 0}, finished=False)
    messages.append((5.0, {"event": "call", "role": BASELINE, "row": 1, "round": 2}))
    stopped, failure, _ = run_script(ScriptedChild(messages), 2)
    assert stopped == STOP_FAILURE
    assert failure == {"role": BASELINE, "status": "crash", "row": 1, "error": "the benchmark process was killed by SIGSEGV"}


def test_a_crash_while_loading_is_the_loading_solvers():
    messages = [(0.0, {"event": "loading", "role": CANDIDATE})]
    stopped, failure, _ = run_script(ScriptedChild(messages, death="the benchmark process exited with status 3"), 1)
    assert stopped == STOP_FAILURE and failure["role"] == CANDIDATE and failure["row"] is None
    assert failure["error"] == "the benchmark process exited with status 3"


def test_a_hang_in_the_warm_up_is_a_timeout_of_the_solver_that_spent_the_time():
    messages = child_messages(0, 1, {CANDIDATE: 0.01, BASELINE: 0.01}, {CANDIDATE: 0, BASELINE: 0}, finished=False)[:4]
    assert messages[-1][1] == {"event": "call", "role": CANDIDATE, "row": 0, "round": WARM_UP_ROUND}
    stopped, failure, _ = run_script(ScriptedChild(messages, hangs=True), 1, time_limit=3.0)
    assert stopped == STOP_FAILURE and failure["role"] == CANDIDATE and failure["status"] == "timeout"
    assert "the time limit (3 s) ran out before every row was measured once" in failure["error"]


def test_a_solver_too_slow_for_even_one_round_is_blamed_not_the_one_in_flight():
    """The baseline's call happens to be under way when the limit runs out; the candidate spent the time."""
    # loaded at 1 s; warm-up: candidate to 7 s, baseline to 10 s; round 0: candidate to 16 s, baseline
    # to 19 s, and the baseline's second call is under way when the limit runs out at 21 s
    messages = child_messages(1, 1, {CANDIDATE: 6.0, BASELINE: 3.0}, {CANDIDATE: 0, BASELINE: 0}, finished=False)
    child = ScriptedChild(messages, hangs=True)
    recording = Recording(1)
    stopped, failure = drive(child.receive, recording, 20.0, clock=child.clock)
    assert recording.in_flight == (BASELINE, 0, 0)
    assert stopped == STOP_FAILURE and failure["status"] == "timeout" and failure["role"] == CANDIDATE
    assert "the candidate's calls took 12 s in all, the baseline's 8 s" in failure["error"]


def test_a_solver_that_raises_is_reported_with_its_row():
    messages = child_messages(0, 2, {CANDIDATE: 0.01, BASELINE: 0.01}, {CANDIDATE: 0, BASELINE: 0}, finished=False)[:10]
    assert messages[-1][1] == {"event": "call", "role": BASELINE, "row": 1, "round": WARM_UP_ROUND}
    messages.append((2.0, {"event": "failed", "role": BASELINE, "row": 1, "status": "out of memory", "error": "MemoryError: "}))
    stopped, failure, _ = run_script(ScriptedChild(messages), 2)
    assert stopped == STOP_FAILURE
    assert failure == {"role": BASELINE, "status": "out of memory", "error": "MemoryError: ", "row": 1}


@pytest.mark.parametrize("garbage", [b"not json", ["a", "list"], {"event": "done", "seconds": -1.0, "peak_bytes": 0},
                                     {"event": "done", "seconds": float("nan"), "peak_bytes": 0},
                                     {"event": "call", "role": "someone", "row": 0, "round": 0},
                                     {"event": "call", "role": CANDIDATE, "row": 7, "round": 0},
                                     {"event": "party"}])
def test_a_message_outside_the_protocol_is_a_crash_of_the_solver_under_way(garbage):
    messages = child_messages(0, 1, {CANDIDATE: 0.01, BASELINE: 0.01}, {CANDIDATE: 0, BASELINE: 0}, finished=False)[:4]
    messages.append((1.5, garbage))
    stopped, failure, _ = run_script(ScriptedChild(messages), 1)
    assert stopped == STOP_FAILURE and failure["status"] == "crash" and failure["role"] == CANDIDATE
    assert failure["error"].startswith("the benchmark process sent ")


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


# --- the real child: targets that misbehave -------------------------------------------------


def planted(name: str) -> SolverEntry:
    return SolverEntry(f"planted.misbehaving:{name}", f"planted.misbehaving:{name}", exact=True, origin="test")


REFERENCE = SolverEntry("full_table", "knapcheck.solvers.full_table:full_table", exact=True, origin="ours")


def test_two_solvers_measured_in_the_real_child_give_every_row_a_ratio():
    result = measure_pair(REFERENCE, REFERENCE, TINY_ROWS, max_rounds=2)
    assert (result.stopped, result.failure, result.rounds) == (STOP_ROUNDS, None, 2)
    for row in result.rows:
        assert row.time.samples == row.memory.samples == 2
        assert set(row.seconds) == set(row.peak_bytes) == {CANDIDATE, BASELINE}
    assert result.cpus >= 1 and result.load_before >= 0 and result.load_after >= 0


@pytest.mark.parametrize("target, role, status, error", [
    ("segfault", CANDIDATE, "crash", "killed by SIGSEGV"),
    ("exits", CANDIDATE, "crash", "exited with status 3"),
    ("allocates_without_bound", CANDIDATE, "out of memory", "MemoryError"),
    ("segfault", BASELINE, "crash", "killed by SIGSEGV"),
])
def test_a_target_that_dies_or_runs_out_of_memory_in_the_benchmark_is_a_result_that_names_it(target, role, status, error, monkeypatch):
    monkeypatch.setattr(paired, "MEMORY_LIMIT", 256 * 2**20)
    candidate, baseline = (planted(target), REFERENCE) if role == CANDIDATE else (REFERENCE, planted(target))
    result = measure_pair(candidate, baseline, TINY_ROWS, max_rounds=3)
    assert result.stopped == STOP_FAILURE and result.rounds == 0
    failure = result.failure
    assert (failure.role, failure.status, failure.row) == (role, status, "tiny a")
    assert error in failure.error and failure.solver == planted(target).name
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
