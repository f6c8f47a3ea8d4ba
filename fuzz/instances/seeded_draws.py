"""Hypothesis draws that depend on the seed alone, whatever the process has imported.

Hypothesis's own provider sometimes (about one draw in twenty) returns a literal collected from
the source of every "local" module the process has imported, and caches those literals under
``.hypothesis/constants`` in the working directory. So `knapcheck check` and `knapcheck report`,
which import different modules, drew different instances from the same seed, and a run from a
user's checkout wrote into it. ``SeededProvider`` is Hypothesis's provider without those
literals: every choice comes from the seeded random generator. It is registered as a Hypothesis
backend (the documented extension point, ``AVAILABLE_PROVIDERS``) and used only where knapcheck
draws a fixed sample or searches for a small reproduction; campaigns and the test suite keep
Hypothesis's default provider.
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, settings
from hypothesis.internal.conjecture.providers import AVAILABLE_PROVIDERS, HypothesisProvider

BACKEND = "knapcheck-seeded"


class SeededProvider(HypothesisProvider):
    """Hypothesis's provider, never drawing a literal from the source of imported modules."""

    def _maybe_draw_constant(self, choice_type, constraints, *, p=0.05):
        return None


AVAILABLE_PROVIDERS.setdefault(BACKEND, SeededProvider)


def seeded_settings(max_examples: int, phases: tuple[Phase, ...] = (Phase.generate,)) -> settings:
    """Settings of a seeded draw: no example database, no deadline, no health checks, the seeded
    provider, and nothing inherited from a loaded settings profile."""
    return settings(
        parent=settings.get_profile("default"),
        max_examples=max_examples,
        database=None,
        deadline=None,
        phases=list(phases),
        suppress_health_check=list(HealthCheck),
        backend=BACKEND,
    )
