"""The committed harvested corpus: well formed, and every exact solver of ours optimal on all of it."""

import pytest

from fuzz.harvested_corpus import load_harvested
from fuzz.differential import check, size_allows
from fuzz.harvest_models import MODELS
from fuzz import families
from oracles.optimum import optimum
from oracles.verdict import Verdict
from solvers.registry import ours

CORPUS = load_harvested()


def test_corpus_covers_every_model_with_provenance():
    assert {record.model for record in CORPUS} == set(MODELS)
    for record in CORPUS:
        assert record.torch_version and record.backend
        assert record.instance.max_memory == record.budget
        assert record.instance.n > 1


def test_harvested_is_a_family():
    assert "harvested" in families.names()


@pytest.mark.parametrize("record", CORPUS, ids=lambda r: f"{r.model}-{r.budget}-{r.call}")
def test_every_exact_solver_of_ours_is_optimal(record):
    oracle = optimum(record.instance)
    assert oracle.proven
    exact = [entry for entry in ours() if entry.exact and size_allows(entry, record.instance)]
    assert exact
    for entry in exact:
        done = check(entry, record.instance, "harvested", oracle)
        assert done.verdict is Verdict.OPTIMAL, (entry.name, done.judgement.detail)
