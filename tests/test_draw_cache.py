"""A family's seeded sample is drawn once and kept; a kept file that is not a valid sample is drawn again."""

import json

import pytest

from knapcheck.fuzz.instances import draw_cache, families, strategies


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv(draw_cache.VARIABLE, raising=False)
    return tmp_path / "knapcheck" / "draws"


def test_a_kept_sample_is_the_one_drawn_and_is_read_without_drawing(cache, monkeypatch):
    family = families.get("tiny")
    drawn = strategies.sample(family.instances(), 7, 3)
    assert family.draw(7, 3) == drawn
    (kept,) = cache.glob("*.json")
    monkeypatch.setattr(strategies, "sample", lambda *args: pytest.fail("drew again"))
    assert family.draw(7, 3) == drawn
    assert len(list(cache.glob("*.json"))) == 1


@pytest.mark.parametrize("content", ["not json", json.dumps({"key": "other", "instances": []}),
                                     json.dumps({"key": None, "instances": [{"memory": [-1.0], "runtimes": [1.0],
                                                                             "max_memory": 1.0}]})])
def test_a_kept_file_that_is_not_the_sample_is_drawn_again_and_replaced(cache, content):
    family = families.get("tiny")
    drawn = family.draw(5, 1)
    (kept,) = cache.glob("*.json")
    document = json.loads(kept.read_text())
    kept.write_text(content.replace('"key": null', json.dumps({"key": document["key"]})[1:-1]))
    assert family.draw(5, 1) == drawn
    assert json.loads(kept.read_text()) == document


def test_off_keeps_nothing(cache, monkeypatch):
    monkeypatch.setenv(draw_cache.VARIABLE, "off")
    families.get("tiny").draw(3, 0)
    assert not cache.exists()
