"""How many states the expanding-core search keeps where the order of its items decides it.

The plain Python search runs on one instance each, with its state merge counted: the number of
states is the search's work, and it does not depend on the machine (nothing here is timed).
"""

from __future__ import annotations

import pytest

from knapcheck.fuzz.instances.pisinger import generate
from knapcheck.solvers.core import expansion as core_expansion
from knapcheck.solvers.core.search import search


@pytest.fixture
def states_kept(monkeypatch):
    """The number of states after each merge of the searches run in the test, one list per expansion."""
    expansions = []
    merge = core_expansion.merge
    expand = core_expansion.expand

    def counting_merge(*args):
        result = merge(*args)
        expansions[-1].append(result[0])
        return result

    def counting_expand(*args):
        expansions.append([])
        return expand(*args)

    monkeypatch.setattr(core_expansion, "merge", counting_merge)
    monkeypatch.setattr("knapcheck.solvers.core.search.expand", counting_expand)
    return expansions


def _solve(family, n, data_range, seed):
    weights, profits, capacity = generate(family, n, data_range, seed, integral=True)
    taken = search(weights, profits, capacity)
    assert sum(w for w, x in zip(weights, taken) if x) <= capacity
    return sum(p for p, x in zip(profits, taken) if x)


def test_items_of_one_efficiency_keep_their_weights_mixed_so_that_a_few_swaps_fill_the_capacity(states_kept):
    # Ordered by weight among equal efficiencies, the items around the break item were alike: the
    # search kept 21 264 states, in a second expansion after the surrogate relaxation (Combo: 448).
    assert _solve("pisinger_subset_sum", 10_000, 10_000, 0) == 24_732_995
    assert len(states_kept) == 1 and max(states_kept[0]) <= 100


def test_a_problem_of_fifty_items_starts_from_the_first_core(states_kept):
    # Without the first core the search merged 12 466 states in all before proving the optimum.
    assert _solve("pisinger_circle", 50, 1_000_000, 2) == 24_759_348
    assert sum(sum(counts) for counts in states_kept) <= 2_000
