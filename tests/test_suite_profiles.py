"""The fast Hypothesis profile of ``make test`` (tests/conftest.py) really runs fewer examples."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FAST_MIN_EXAMPLES, _fast_settings


def _property_test(max_examples: int) -> tuple[object, list[int]]:
    seen: list[int] = []

    @settings(max_examples=max_examples, database=None)
    @given(st.integers())
    def prop(x: int) -> None:
        seen.append(x)

    return prop, seen


def test_fast_settings_divide_the_examples_by_five() -> None:
    prop, seen = _property_test(300)
    _fast_settings(prop)
    _fast_settings(prop)  # a parametrized test is seen once per item: scaled once
    prop()  # type: ignore[operator]
    assert len(seen) == 60


def test_fast_settings_keep_a_floor() -> None:
    prop, seen = _property_test(30)
    _fast_settings(prop)
    prop()  # type: ignore[operator]
    assert len(seen) == FAST_MIN_EXAMPLES


def test_a_plain_function_is_left_alone() -> None:
    def plain() -> None:
        pass

    _fast_settings(plain)
    assert not hasattr(plain, "_vqm_fast")
