"""Metamorphic images: each one's optimum, derived from its instance's, is the optimum brute force
finds for it; a campaign unit judges the images, and a defect only an image reaches is found there."""

from __future__ import annotations

import time

import pytest
from hypothesis import assume, given, settings

from knapcheck.fuzz.campaign.events import Found, Tally
from knapcheck.fuzz.campaign.run import campaign_entries
from knapcheck.fuzz.campaign.units import FUZZ, Setup, Unit, UnitRun
from knapcheck.fuzz.instances import families
from knapcheck.fuzz.judging.verdicts.metamorphic import images
from knapcheck.oracles.brute_force import brute_force
from knapcheck.oracles.exact import set_value, set_weight
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.registry import resolve

FAMILIES = ["tiny", "zero_items", "heavy_items", "duplicates_ties", "quantization_edges", "float32_limits", "flop_scale",
            "float_runtimes"]
BRUTE_FORCE_ITEMS = 11
"""The image with an item added must stay within brute force's 12."""


@pytest.mark.parametrize("family", FAMILIES)
def test_each_image_s_derived_optimum_is_the_one_brute_force_finds(family):
    @settings(max_examples=25)
    @given(families.strategy(family))
    def derived_optimum_holds(instance):
        assume(instance.n <= BRUTE_FORCE_ITEMS)
        for image in images(instance):
            image, derived = image.instance, image.optimum_from(brute_force(instance))
            assert derived.value == brute_force(image).value, image
            _, capacity = image.quantized()
            assert set_weight(image, list(derived.saved)) <= capacity
            assert set_value(image, list(derived.saved)) == derived.value

    derived_optimum_holds()


def test_the_images_are_reversed_a_heavier_item_added_a_free_item_added_and_runtimes_tripled():
    instance = Instance((0.0001, 0.0002), (1.0, 5.0), 0.0002)
    found = [image.instance for image in images(instance)]
    assert found == [
        Instance((0.0002, 0.0001), (5.0, 1.0), 0.0002),
        Instance((0.0001, 0.0002, 1.0004), (1.0, 5.0, 5.0), 0.0002),
        Instance((0.0001, 0.0002, 0.0), (1.0, 5.0, 5.0), 0.0002),
        Instance((0.0001, 0.0002), (3.0, 15.0), 0.0002),
    ]
    fractional = Instance((0.0001,), (0.5,), 0.0001)
    assert [image.instance.n for image in images(fractional)] == [2, 2], "nothing to reverse, nothing exact to triple"


def test_a_fuzz_unit_finds_a_defect_only_an_image_reaches():
    """The plant is optimal on every tiny instance (runtimes up to 60) and saves nothing past them:
    the unit finds it on a tiny instance's image with its runtimes tripled."""
    entries = campaign_entries(resolve("planted.wrong_answers:saves_nothing_past_tiny_runtimes"), 60.0)
    events = []
    setup = Setup(entries, time.time() + 3, None, "events", "stop", 60.0, seeded=True)
    UnitRun(setup, Unit(1, FUZZ, family="tiny", seed=0, seconds=3), events.append, lambda: False).run()
    found = [e.check for e in events if isinstance(e, Found)]
    assert found and found[0].verdict.value == "SUBOPTIMAL"
    assert max(found[0].instance.runtimes) > 60 and all(r % 3 == 0 for r in found[0].instance.runtimes)
    assert sum(e.cases for e in events if isinstance(e, Tally)) > 0
