"""A family's seeded sample is drawn once and kept; a kept file that is not a valid sample, or that
knapcheck did not sign, is drawn again (docs/threat-model-data.md, "Kept draws")."""

import json

import pytest

from knapcheck.fuzz.instances import draw_cache, families, strategies


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv(draw_cache.VARIABLE, raising=False)
    draw_cache._secret.cache_clear()
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


def test_a_kept_draw_edited_by_hand_with_easier_instances_is_drawn_again(cache):
    """The signature covers the instances: easier ones in their place (all runtimes 0, say) are not used."""
    family = families.get("tiny")
    drawn = family.draw(5, 1)
    (kept,) = cache.glob("*.json")
    document = json.loads(kept.read_text())
    easier = dict(document, instances=[dict(i, runtimes=[0.0] * len(i["runtimes"])) for i in document["instances"]])
    kept.write_text(json.dumps(easier))
    assert family.draw(5, 1) == drawn
    assert json.loads(kept.read_text()) == document, "the edited file is replaced by the draw"


def test_a_kept_draw_copied_under_another_key_is_drawn_again(cache):
    family = families.get("tiny")
    family.draw(5, 1)
    other = family.draw(5, 2)
    source, target = (cache / f"{draw_cache.key('tiny', 5, seed)}.json" for seed in (1, 2))
    document = json.loads(source.read_text())
    target.write_text(json.dumps(dict(document, key=draw_cache.key("tiny", 5, 2))))
    assert family.draw(5, 2) == other


def test_draws_kept_under_a_secret_that_changed_are_drawn_again(cache, monkeypatch):
    """A garbled or missing secret is made anew; what it signed is no longer used."""
    family = families.get("tiny")
    drawn = family.draw(5, 1)
    (cache / draw_cache.SECRET).write_text("not a secret")
    draw_cache._secret.cache_clear()
    monkeypatch.setattr(strategies, "sample", lambda *args: drawn[::-1])
    assert family.draw(5, 1) == drawn[::-1]
    assert len(bytes.fromhex((cache / draw_cache.SECRET).read_text())) == 32


def test_the_secret_is_readable_by_its_owner_alone(cache):
    families.get("tiny").draw(3, 0)
    assert (cache / draw_cache.SECRET).stat().st_mode & 0o077 == 0
    assert cache.stat().st_mode & 0o077 == 0
