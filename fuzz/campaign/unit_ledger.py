"""The campaign's account of its units: which died with a worker, which to retry, which to give up.

Plain bookkeeping, kept apart from Dask so its rules can be read and tested alone:

- a unit that died before it started (queued on a worker that died) goes out again as it was;
- a unit that died while it ran goes out again as its next attempt, careful (``knapcheck.fuzz.campaign.units``),
  and is counted as retried;
- a unit that has killed a worker ``MAX_ATTEMPTS`` times is not retried: it is reported with the
  instance it was on when its careful attempts announced one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .units import Unit

MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class LostUnit:
    """A unit that died with its worker (and was retried) or that was given up."""

    unit: str
    attempts: int
    reason: str
    instance: dict | None = None
    """The instance it was checking when it died, when known (careful attempts announce theirs)."""


@dataclass
class _State:
    unit: Unit
    started: set[int] = field(default_factory=set)
    instance: dict | None = None


class UnitLedger:
    def __init__(self) -> None:
        self._units: dict[int, _State] = {}
        self.retried: list[LostUnit] = []
        self.lost: list[LostUnit] = []

    def knows(self, unit_id: int) -> bool:
        """Whether the unit was ever submitted (an event naming any other is refused, never acted on)."""
        return unit_id in self._units

    def submitted(self, unit: Unit) -> None:
        state = self._units.setdefault(unit.id, _State(unit))
        state.unit = unit

    def started(self, unit_id: int, attempt: int) -> None:
        """A unit announced its start; the same attempt twice means the scheduler ran it again
        after its worker died (a scheduler that allows failures retries on its own)."""
        state = self._units[unit_id]
        if attempt in state.started:
            self.retried.append(LostUnit(state.unit.describe(), attempt, "its worker died; the scheduler ran it again"))
        state.started.add(attempt)
        state.instance = None

    def trying(self, unit_id: int, instance: dict) -> None:
        self._units[unit_id].instance = instance

    def killed_worker(self, unit_id: int) -> Unit | None:
        """The unit's worker died under it: what to submit again, or None when it is given up."""
        state = self._units[unit_id]
        unit = state.unit
        if unit.attempt not in state.started:
            return unit
        if unit.attempt >= MAX_ATTEMPTS:
            self.lost.append(
                LostUnit(unit.describe(), unit.attempt, f"killed its worker {unit.attempt} times; not retried", state.instance)
            )
            return None
        self.retried.append(LostUnit(unit.describe(), unit.attempt, "its worker died; retried, careful", state.instance))
        retry = replace(unit, attempt=unit.attempt + 1)
        state.unit = retry
        return retry

    def give_up(self, unit_id: int, reason: str) -> None:
        """A unit that raised, or was still running when the campaign had to end."""
        state = self._units[unit_id]
        self.lost.append(LostUnit(state.unit.describe(), state.unit.attempt, reason, state.instance))
