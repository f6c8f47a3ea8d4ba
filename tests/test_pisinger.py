"""Each Pisinger class draws instances by its published formula, and is a family the checks use."""

from __future__ import annotations

import math

import pytest

from knapcheck.fuzz.instances import families, pisinger
from knapcheck.fuzz.instances.pisinger import CLASSES, H, R
from knapcheck.fuzz.instances.strategies import sample
from knapcheck.fuzz.runs.check import run_check
from knapcheck.solvers.registry import resolve

PER_CLASS = 25


def _raw(name: str):
    return sample(CLASSES[name](), PER_CLASS, seed_value=3)


def _profits_follow(name: str, rule) -> None:
    for weights, profits, capacity in _raw(name):
        assert 1 <= len(weights) == len(profits) <= pisinger.MAX_ITEMS
        assert max(weights) <= capacity <= sum(weights)
        for w, p in zip(weights, profits):
            assert rule(w, p), (name, w, p)


@pytest.mark.parametrize(
    "name, rule",
    [
        ("pisinger_uncorrelated", lambda w, p: 1 <= w <= R and 1 <= p <= R),
        ("pisinger_weakly_correlated", lambda w, p: 1 <= w <= R and max(1, w - R // 10) <= p <= w + R // 10),
        ("pisinger_strongly_correlated", lambda w, p: 1 <= w <= R and p == w + R // 10),
        ("pisinger_inverse_strongly_correlated", lambda w, p: 1 <= p <= R and w == p + R // 10),
        ("pisinger_almost_strongly_correlated", lambda w, p: abs(p - (w + R // 10)) <= R // 1000),
        ("pisinger_subset_sum", lambda w, p: 1 <= w <= R and p == w),
        ("pisinger_similar_weights", lambda w, p: 10 * R <= w <= 10 * R + R // 10 and 1 <= p <= R),
        ("pisinger_multiple_strongly_correlated", lambda w, p: p == w + (3 * R // 10 if w % 6 == 0 else 2 * R // 10)),
        ("pisinger_profit_ceiling", lambda w, p: p == 3 * math.ceil(w / 3)),
        ("pisinger_circle", lambda w, p: math.isclose(p, 2 / 3 * math.sqrt(4 * R * R - (w - 2 * R) ** 2))),
    ],
)
def test_profits_follow_the_published_formula(name, rule):
    _profits_follow(name, rule)


def test_even_odd_has_even_weights_and_an_odd_capacity():
    for weights, profits, capacity in _raw("pisinger_even_odd"):
        assert all(w % 2 == 0 for w in weights) and profits == weights and capacity % 2 == 1


@pytest.mark.parametrize("name", [n for n in CLASSES if "spanner" in n])
def test_spanner_items_are_multiples_of_two_kernel_items(name):
    for weights, profits, _ in _raw(name):
        ratios = {}
        for w, p in zip(weights, profits):
            kernel = math.gcd(w, p)
            ratios.setdefault((w // kernel, p // kernel), True)
        assert len(ratios) <= 2, (weights, profits)


def test_capacities_spread_over_the_h_fractions_of_the_total_weight():
    fractions = {round(c / sum(w) * (H + 1)) for w, _, c in sample(CLASSES["pisinger_subset_sum"](), 200, seed_value=5)}
    assert len(fractions) > 20


def test_every_class_is_a_family_the_reference_solves_optimally():
    assert set(CLASSES) <= set(families.names())
    result = run_check(resolve("full_table"), list(CLASSES), per_family=4)
    assert result.findings == []
    assert set(result.counts["full_table"]) == {"OPTIMAL"}
