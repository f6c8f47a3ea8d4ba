"""Knapsack instances for your own property tests: Hypothesis strategies of knapcheck's families.

    from hypothesis import given
    from knapcheck import strategies
    from knapcheck.testing import assert_optimal

    @given(strategies.family("tight_budget"))
    def test_my_solver_is_optimal(instance):
        assert_optimal(my_solver, instance)

Every instance is a ``knapcheck.solvers.contract.Instance`` (``memory``, ``runtimes``,
``max_memory``), valid under torch's contract. ``names()`` lists the families; ``knapcheck check
--help`` says what each is for. An enumerated family (``exhaustive_small``, ``large_capacity``,
``scale_extremes``) is also a plain list, ``every(name)``, to parametrize a test over all of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .fuzz.instances import families as _families
from .solvers.contract import Instance

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["Instance", "any_instance", "every", "exhaustive_small", "family", "names"]


def names() -> list[str]:
    """Every family's name."""
    return _families.names()


def family(name: str) -> SearchStrategy[Instance]:
    """The instances of one family; ValueError naming the known families for an unknown name."""
    return _families.strategy(name)


def exhaustive_small() -> SearchStrategy[Instance]:
    """Draws from every instance of up to 3 items, weights of 0 to 3 units, capacities of 0 to 6 units
    and runtimes -1, 0, 1, 2 (6 142 instances; ``every("exhaustive_small")`` lists them all)."""
    return _families.strategy("exhaustive_small")


def any_instance() -> SearchStrategy[Instance]:
    """The instances of every family."""
    return _families.any_instance()


def every(name: str) -> list[Instance]:
    """Every instance of an enumerated family, in its fixed order; ValueError for a sampled family."""
    found = _families.get(name)
    if found.listing is None:
        enumerated = ", ".join(_families.names(enumerated=True))
        raise ValueError(f"family {name!r} is sampled, not enumerated: every() lists only {enumerated}")
    return list(found.listing())
