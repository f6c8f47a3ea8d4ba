"""Lanes: a check begins several chunks ahead, and each entry's worker still gets them one at a time, in order."""

import threading
import time

from knapcheck.fuzz.runs.chunk_calls import Lanes
from knapcheck.solvers.registry import resolve_one


def test_one_entrys_calls_run_one_at_a_time_in_the_order_they_were_submitted():
    entry = resolve_one("torch:dp_knapsack")
    running, order, overlapped = [], [], []

    def call(k):
        running.append(k)
        overlapped.append(len(running) > 1)
        time.sleep(0.01)
        order.append(k)
        running.remove(k)

    with Lanes() as lanes:
        futures = [lanes.submit(entry, call, k) for k in range(8)]
    assert all(future.done() for future in futures)
    assert order == list(range(8))
    assert not any(overlapped)


def test_two_entries_calls_run_side_by_side():
    first, second = resolve_one("torch:dp_knapsack"), resolve_one("torch:greedy_knapsack")
    both = threading.Barrier(2, timeout=10)
    with Lanes() as lanes:
        futures = [lanes.submit(entry, both.wait) for entry in (first, second)]
    assert sorted(future.result() for future in futures) == [0, 1]
