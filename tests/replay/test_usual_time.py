"""The Cython parse of an event's ``t`` (``replay._replay.usual_time``) against
``replay.events.parse_time`` (``datetime.fromisoformat``, events.md: RFC 3339 with an offset):
the same aware datetime, zone included, for every time in the usual form, and None — so the
Python parse runs and makes the fault — for anything else."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay import native
from replay.events import parse_time

_REPLAY = native.built_core("_replay")
pytestmark = pytest.mark.skipif(
    _REPLAY is None, reason="the Cython replay module is not built in this checkout"
)


def _reference(value: object) -> datetime | None:
    try:
        return parse_time(value)
    except ValueError:
        return None


def _same(fast: datetime, reference: datetime | None) -> None:
    assert reference is not None
    assert fast == reference
    assert fast.replace(tzinfo=None) == reference.replace(tzinfo=None)
    assert fast.tzinfo == reference.tzinfo
    assert type(fast.tzinfo) is type(reference.tzinfo)
    assert repr(fast) == repr(reference)


def _two(n: int) -> str:
    return f"{n:02d}"


_fraction = (
    st.sampled_from(["", ".", ".1", ".12"])
    | st.integers(0, 999).map(lambda n: f".{n:03d}")
    | st.integers(0, 999_999).map(lambda n: f".{n:06d}")
)
_offset = st.sampled_from(
    ["Z", "z", "+00:00", "-00:00", "+0800", "+08", "", "+24:00", "+08:60", " Z"]
) | st.builds(
    lambda sign, h, m: f"{sign}{_two(h)}:{_two(m)}",
    st.sampled_from("+-"),
    st.integers(0, 23),
    st.integers(0, 59),
)
_usual_or_near = st.builds(
    lambda y, mo, d, sep, h, mi, s, frac, off: (
        f"{y:04d}-{_two(mo)}-{_two(d)}{sep}{_two(h)}:{_two(mi)}:{_two(s)}{frac}{off}"
    ),
    st.integers(0, 9999),
    st.integers(0, 13),
    st.integers(0, 32),
    st.sampled_from(["T", "T", "T", " ", "t"]),
    st.integers(0, 24),
    st.integers(0, 60),
    st.integers(0, 60),
    _fraction,
    _offset,
)


@settings(max_examples=600, deadline=None)
@given(_usual_or_near)
def test_usual_time_is_parse_time_or_none(value: str) -> None:
    """A time in the usual form (events.md ``t``) parses to what ``parse_time`` makes of it, zone
    included; a day that does not exist, a field out of range or another form is None."""
    assert _REPLAY is not None
    fast = _REPLAY.usual_time(value)
    if fast is not None:
        _same(fast, _reference(value))


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("0123456789-+:.TZ é"), max_size=32)
    | st.none()
    | st.integers()
    | st.floats()
)
def test_usual_time_never_passes_what_parse_time_rejects(value: object) -> None:
    """Any other value is None or exactly what ``parse_time`` makes of it."""
    assert _REPLAY is not None
    fast = _REPLAY.usual_time(value)
    if fast is not None:
        _same(fast, _reference(value))


@pytest.mark.parametrize(
    "value",
    [
        "2026-06-18T13:00:00+08:00",
        "2026-06-18T13:00:00Z",
        "2026-06-18T13:00:00.123-05:30",
        "2026-06-18T13:00:00.123456+00:00",
        "2026-06-18T13:00:00-00:00",
        "2024-02-29T23:59:59+14:00",
        "0001-01-01T00:00:00+00:00",
    ],
)
def test_usual_forms_are_parsed(value: str) -> None:
    """The forms the simulator and importers write are parsed in C, as ``parse_time`` parses them."""
    assert _REPLAY is not None
    fast = _REPLAY.usual_time(value)
    assert fast is not None
    _same(fast, parse_time(value))


@pytest.mark.parametrize(
    "value",
    [
        "2026-02-30T13:00:00Z",
        "2026-06-18T24:00:00Z",
        "2026-06-18T13:00:00",
        "2026-06-18T13:00:00.12Z",
        "2026-06-18 13:00:00Z",
    ],
)
def test_other_forms_go_to_parse_time(value: str) -> None:
    """A day or hour that does not exist, a missing offset, or a form only ``fromisoformat``
    reads: None, so the replayer asks ``parse_time`` (which accepts or faults it)."""
    assert _REPLAY is not None
    assert _REPLAY.usual_time(value) is None
