"""``readers/_json.is_blank`` is ``not data.strip()`` without its copy (issue 23): the same
answer on every byte string, whitespace of every kind included."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vqametrics.readers._json import is_blank

#: bytes.strip's whitespace, a non-breaking space and NUL (neither is ASCII whitespace), a letter
BYTES = st.lists(
    st.sampled_from([b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c", b"\xa0", b"\0", b"a"])
)


@given(BYTES)
def test_blank_is_nothing_left_once_stripped(parts: list[bytes]) -> None:
    data = b"".join(parts)
    assert is_blank(data) == (not data.strip())


@given(st.binary(max_size=40))
def test_blank_on_any_bytes(data: bytes) -> None:
    assert is_blank(data) == (not data.strip())
