"""The answer-list cells of VLMEvalKit sheets are read directly when they are a plain list of
quoted texts (issue 23); the value must always be ``ast.literal_eval``'s."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.readers.records import _list_literal, _pattern

ODD = [
    "['a', 'b']",
    "[]",
    "['it\\'s']",
    "[\"it's\", 'b']",
    "['a','b']",
    "['a' 'b']",
    "[ 'a' ]",
    "['a\\nb']",
    "['\\x41']",
    "['a', 1]",
    "['a', 'b',]",
    "['a\u2028b', '\\t']",
]


@pytest.mark.parametrize("text", ODD)
def test_the_value_is_literal_evals(text: str) -> None:
    assert _list_literal(text) == ast.literal_eval(text)


def test_what_literal_eval_refuses_is_refused() -> None:
    for text in ("['a\x00']", "['a", "['a\ud800']"):
        with pytest.raises((ValueError, SyntaxError)):
            ast.literal_eval(text)
        with pytest.raises((ValueError, SyntaxError)):
            _list_literal(text)


@given(st.lists(st.text(max_size=12), max_size=6))
def test_any_list_of_texts_as_python_writes_it(texts: list[str]) -> None:
    text = repr(texts)
    try:
        want = ast.literal_eval(text)
    except (ValueError, SyntaxError):  # a lone surrogate: both refuse it
        with pytest.raises((ValueError, SyntaxError)):
            _list_literal(text)
        return
    assert _list_literal(text) == want == texts


def test_the_usual_cell_takes_the_direct_path() -> None:
    assert _pattern("repr_list").fullmatch("['dakota', \"it's\", 'dakota digital']")
