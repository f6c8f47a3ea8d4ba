"""The committed harvested corpora: well formed, and every exact solver of ours optimal on all of them."""

import pytest

from knapcheck.fuzz.corpus.harvest_records import CORPUS_DIR, LARGE_CORPUS_DIR, load_harvested
from knapcheck.fuzz.harvest.models import REAL_SIZE_MODELS, TOY_MODELS
from knapcheck.fuzz.instances import families
from knapcheck.fuzz.judging.verdicts.differential import check, size_allows
from knapcheck.oracles.verdict import Verdict
from knapcheck.solvers.contract import quantize
from knapcheck.solvers.registry import ours

CORPORA = {"harvested": (CORPUS_DIR, TOY_MODELS), "harvested_large": (LARGE_CORPUS_DIR, REAL_SIZE_MODELS)}
RECORDS = [(name, record) for name, (directory, _) in CORPORA.items() for record in load_harvested(directory)]


@pytest.mark.parametrize("name", CORPORA)
def test_each_corpus_is_a_family_covering_its_models_with_provenance(name):
    directory, models = CORPORA[name]
    records = load_harvested(directory)
    assert name in families.names()
    assert {record.model for record in records} == set(models)
    for record in records:
        assert record.torch_version and record.backend
        assert record.instance.max_memory == record.budget
        assert record.instance.n > 1


def test_real_size_models_hand_the_partitioner_hundreds_of_items_many_below_half_a_unit():
    for record in load_harvested(LARGE_CORPUS_DIR):
        weights, _ = quantize(record.instance.memory, record.instance.max_memory)
        assert record.instance.n >= 100, record.name
        assert weights.count(0) >= 20, record.name


@pytest.mark.parametrize("family_name, record", RECORDS, ids=[record.name for _, record in RECORDS])
def test_every_exact_solver_of_ours_is_optimal(family_name, record):
    exact = [entry for entry in ours() if entry.exact and size_allows(entry, record.instance)]
    assert exact
    for entry in exact:
        done = check(entry, record.instance, family_name)
        assert done.oracle.proven
        assert done.verdict is Verdict.OPTIMAL, (entry.name, done.judgement.detail)
