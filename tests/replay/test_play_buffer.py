"""The Cython ``plays`` buffers (``replay._replay.PlayBuffer``) against ``replay.rows.PlayColumns``:
the same rows and columns back, and the same Arrow table (``replay.arrow``), nulls, non-ASCII
strings, empty card lists, times in every kind of zone and values too wide for a column included."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay import native
from replay.arrow import DERIVED, columns_to_table, plays_to_table
from replay.rows import PlayColumns, PlayRow

_REPLAY = native.built_core("_replay")
pytestmark = pytest.mark.skipif(_REPLAY is None, reason="the Cython buffers are not built in this checkout")

SCHEMA = DERIVED["plays"]
_text = st.text(alphabet=st.sampled_from("EWNS23AT中牌♥x"), max_size=4)
_maybe_text = st.none() | _text
_small = st.integers(-128, 127)
_maybe_small = st.none() | _small
_maybe_bool = st.none() | st.booleans()
_zones = st.sampled_from(
    [
        UTC,
        timezone(timedelta(hours=8)),
        timezone(timedelta(hours=-5, minutes=-30)),
        ZoneInfo("Europe/London"),
        ZoneInfo("Asia/Shanghai"),
    ]
)
_times = st.none() | st.builds(
    lambda t, tz: t.replace(tzinfo=tz),
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)),
    _zones,
)
_rows = st.builds(
    PlayRow,
    _text,
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**63), 2**63 - 1),
    st.integers(-(2**15), 2**15 - 1),
    st.booleans(),
    _text,
    _text,
    _text,
    _text,
    st.none() | st.lists(_text, max_size=5),
    _maybe_text,
    _maybe_text,
    st.none() | st.integers(-(2**15), 2**15 - 1),
    _maybe_text,
    _maybe_small,
    _maybe_bool,
    _maybe_text,
    _maybe_text,
    _maybe_text,
    _small,
    _small,
    _small,
    _small,
    _small,
    _maybe_small,
    _maybe_bool,
    _maybe_bool,
    st.booleans(),
    _times,
)


def _both(rows: list[PlayRow]) -> tuple[Any, PlayColumns]:
    assert _REPLAY is not None
    buffer, columns = _REPLAY.PlayBuffer(), PlayColumns()
    for row in rows:
        buffer.add(*row)
        columns.add(*row)
    return buffer, columns


@settings(max_examples=150, deadline=None)
@given(st.lists(_rows, max_size=12), st.lists(_rows, max_size=4))
def test_buffers_give_the_rows_columns_and_table_of_play_columns(
    first: list[PlayRow], second: list[PlayRow]
) -> None:
    """Rows added to the buffers, and a second buffer extended by them, read back as
    ``PlayColumns`` reads them and make the table ``columns_to_table`` makes (every value)."""
    assert _REPLAY is not None
    buffer, columns = _both(first)
    more, more_columns = _both(second)
    buffer.extend(more)
    columns.extend(more_columns)
    assert len(buffer) == len(columns) == len(first) + len(second)
    assert buffer.rows() == columns.rows() == first + second
    assert buffer.columns() == columns.columns()
    got, expected = plays_to_table(buffer), columns_to_table("plays", columns.columns())
    got.validate(full=True)
    assert got.schema == expected.schema == SCHEMA
    assert got.equals(expected)
    assert got.to_pylist() == expected.to_pylist()


@pytest.mark.parametrize(("field", "value"), [("left_E", 128), ("deal_no", 2**31), ("wilds_used", -129)])
def test_a_value_too_wide_for_its_column_raises_as_pa_array_does(field: str, value: int) -> None:
    """A value the column's type cannot hold is refused with ``pa.array``'s own error."""
    row = PlayRow("m", 1, 1, 0, 0, True, "E", "p", "EW", "play", ["H2"], "single", "2", 1, None, 0,
                  False, None, None, None, 27, 27, 27, 27, 26, 27, False, None, False, None)
    values: list[Any] = list(row)
    values[PlayRow._fields.index(field)] = value
    buffer, columns = _both([PlayRow(*values)])
    with pytest.raises(pa.ArrowInvalid) as expected:
        columns_to_table("plays", columns.columns())
    with pytest.raises(pa.ArrowInvalid) as got:
        plays_to_table(buffer)
    assert str(got.value) == str(expected.value)


_CELLS = {
    pa.string(): _maybe_text,
    pa.list_(pa.string()): st.none() | st.lists(_text, max_size=4),
    pa.timestamp("us", tz="UTC"): _times,
    pa.int8(): st.none() | st.integers(-200, 200),
    pa.int32(): st.none() | st.integers(-(2**31), 2**31 - 1) | st.booleans(),
    pa.int64(): st.none() | st.integers(-(2**64), 2**64),
    pa.bool_(): _maybe_bool,
}


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(list(_CELLS)).flatmap(lambda t: st.tuples(st.just(t), st.lists(_CELLS[t], max_size=8))),
    st.booleans(),
)
def test_a_column_built_in_c_is_pa_arrays(case: tuple[pa.DataType, list[Any]], as_tuple: bool) -> None:
    """``column`` (the other tables' columns, given as lists or as the tuples of a transpose) makes
    the array ``pa.array`` makes."""
    assert _REPLAY is not None
    type_, values = case
    try:
        expected = pa.array(values, type=type_)
    except (pa.ArrowException, OverflowError) as error:
        with pytest.raises(type(error)):
            _REPLAY.column(values, type_)
        return
    got = _REPLAY.column(tuple(values) if as_tuple else values, type_)
    got.validate(full=True)
    assert got.equals(expected)


def test_a_column_of_other_values_goes_through_pa_array() -> None:
    """Values the C paths do not take (a number among strings, a float or string among integers,
an integer among booleans) go through ``pa.array``: its own result or error."""
    assert _REPLAY is not None
    with pytest.raises(pa.ArrowTypeError):
        _REPLAY.column(["a", 1], pa.string())
    with pytest.raises(pa.ArrowTypeError):
        _REPLAY.column([["a", 1]], pa.list_(pa.string()))
    with pytest.raises(pa.ArrowInvalid):
        _REPLAY.column([1, "2"], pa.int32())
    assert _REPLAY.column([1, 1.0, None], pa.int32()).equals(pa.array([1, 1.0, None], type=pa.int32()))
    with pytest.raises(pa.ArrowInvalid):
        _REPLAY.column([True, 0, None], pa.bool_())


_ABSENT = object()
_event_fields = {
    "v": st.sampled_from([1, 1.0, True, 2, None, "1", _ABSENT]),
    "type": st.sampled_from(["play", "pass", "deal_end", "report", 3, None, _ABSENT]),
    "seat": st.sampled_from(["E", "N", "W", "S", "X", "", None, ["E"], {"E": 1}, _ABSENT]),
    "cards": st.sampled_from(
        [["H2"], ["SA", "SA"], [], ["H2", 3], ["H2", None], "H2", None, ("H2",), _ABSENT]
    ),
    "combo": st.sampled_from(
        [_ABSENT, None, {"type": "single", "rank": "2"}, {"type": 1, "rank": "2"}, {"type": "pair"}, [], "x"]
    ),
}


@settings(max_examples=400, deadline=None)
@given(st.fixed_dictionaries(_event_fields))
def test_well_formed_passes_only_what_check_event_passes(fields: dict[str, Any]) -> None:
    """The replayer's fast check (events.md field checks of ``play`` and ``pass``) never passes an
    event that ``check_event`` faults, and passes every well-formed ``play`` and ``pass`` of the
    plain JSON kinds, so faults still come from ``check_event`` alone."""
    from replay.events import check_event

    assert _REPLAY is not None
    ev = {"match": "m", "seq": 3, **{k: v for k, v in fields.items() if v is not _ABSENT}}
    fast = _REPLAY.well_formed(ev)
    reference = check_event(ev, check_time=False)
    if fast:
        assert reference is None
    if reference is None and type(ev["v"]) is int and ev["type"] in ("play", "pass"):
        assert fast
