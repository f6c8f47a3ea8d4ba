"""The campaign's rules for units whose worker died: retry careful, count it, give up at last."""

from knapcheck.fuzz.campaign.unit_ledger import MAX_ATTEMPTS, UnitLedger
from knapcheck.fuzz.campaign.units import FUZZ, Unit

UNIT = Unit(7, FUZZ, family="tiny", seed=1, seconds=5.0)
INSTANCE = {"memory": [0.1], "runtimes": [1.0], "max_memory": 0.2}


def test_a_unit_that_never_started_goes_out_again_as_it_was():
    ledger = UnitLedger()
    ledger.submitted(UNIT)
    assert ledger.killed_worker(UNIT.id) == UNIT
    assert ledger.retried == [] and ledger.lost == []


def test_a_unit_whose_worker_died_is_retried_careful_and_counted():
    ledger = UnitLedger()
    ledger.submitted(UNIT)
    ledger.started(UNIT.id, 1)
    retry = ledger.killed_worker(UNIT.id)
    assert retry.attempt == 2 and retry.careful and retry.seed == UNIT.seed
    (retried,) = ledger.retried
    assert retried.attempts == 1 and "worker died" in retried.reason
    assert ledger.lost == []


def test_a_unit_that_keeps_killing_workers_is_given_up_with_its_instance():
    ledger = UnitLedger()
    unit = UNIT
    for attempt in range(1, MAX_ATTEMPTS + 1):
        ledger.submitted(unit)
        ledger.started(unit.id, attempt)
        if unit.careful:
            ledger.trying(unit.id, INSTANCE)
        unit = ledger.killed_worker(unit.id)
    assert unit is None, "not retried forever"
    (lost,) = ledger.lost
    assert lost.attempts == MAX_ATTEMPTS and lost.instance == INSTANCE and "not retried" in lost.reason
    assert len(ledger.retried) == MAX_ATTEMPTS - 1


def test_a_scheduler_that_reruns_a_unit_on_its_own_is_counted_too():
    ledger = UnitLedger()
    ledger.submitted(UNIT)
    ledger.started(UNIT.id, 1)
    ledger.started(UNIT.id, 1)
    (retried,) = ledger.retried
    assert "scheduler ran it again" in retried.reason
