"""Every instance family keeps the promises of its record: exactness and the largest n."""

import pytest
from hypothesis import given, settings

from knapcheck.fuzz.instances import families
from knapcheck.solvers.contract import exact_scale


def test_names_are_unique_and_every_record_says_what_it_is_for():
    assert len(set(families.names())) == len(families.FAMILIES)
    for family in families.FAMILIES:
        assert family.description and family.max_n > 0


@pytest.mark.parametrize("family", families.FAMILIES, ids=lambda f: f.name)
def test_every_instance_keeps_the_record_promises(family):
    @settings(max_examples=40)
    @given(family.instances())
    def promised(instance):
        assert instance.n <= family.max_n
        if family.exact:
            assert exact_scale(instance.runtimes) is not None

    promised()


def test_selection_is_by_the_records_fields():
    assert families.names(exact=False) == ["float_runtimes", "runtime_span", "pisinger_circle", "scale_extremes",
                                          "runtime_limits"]
    assert all(families.get(name).max_n <= 12 for name in families.names(max_n=12))
    assert "tiny" in families.names(max_n=8)


def test_an_unknown_family_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown instance family 'nope'; known: tiny"):
        families.get("nope")
