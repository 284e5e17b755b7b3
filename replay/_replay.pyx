# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The ``plays`` rows of a replay in typed buffers, straight to Arrow (``replay.rows.PlayColumns``
in C), the Arrow columns of the other derived tables built in C (:func:`column`), and the
replayer's check of its most frequent events (:func:`well_formed`).

:class:`PlayBuffer` has the interface of ``replay.rows.PlayColumns`` (``add``, ``extend``,
``columns``, ``rows``, ``len``): the Python class stays the reference, this one is what the
engine uses where it is built. The 17 integer and boolean fields of a row go into one growable C
array of ``int64`` (with a bit mask of the nulls), the 13 others (strings, the cards list, the time)
into Python lists that only hold references. :meth:`PlayBuffer.arrays` builds each column of a
table schema from them in C, with no Python value made per cell: string and list columns from
their UTF-8 bytes and offsets, integers written at the schema's width, booleans bit-packed, the
time as UTC microseconds (``pa.array`` asks each aware datetime for its offset; here a run of
equal fixed offsets is asked once). A value the schema's type cannot hold raises the error
``pa.array`` raises for it (the column is then built through ``pa.array`` itself).
"""

from cpython.datetime cimport (
    PyDateTime_CheckExact,
    PyDateTime_DATE_GET_HOUR,
    PyDateTime_DATE_GET_MICROSECOND,
    PyDateTime_DATE_GET_MINUTE,
    PyDateTime_DATE_GET_SECOND,
    PyDateTime_DATE_GET_TZINFO,
    PyDateTime_DELTA_GET_DAYS,
    PyDateTime_DELTA_GET_MICROSECONDS,
    PyDateTime_DELTA_GET_SECONDS,
    PyDateTime_GET_DAY,
    PyDateTime_GET_MONTH,
    PyDateTime_GET_YEAR,
    datetime_new,
    import_datetime,
)
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.dict cimport PyDict_Check
from cpython.unicode cimport PyUnicode_Check
from libc.stdint cimport INT64_MIN, int8_t, int16_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcpy, memset

import datetime as _datetime

import_datetime()

cdef extern from "Python.h":
    const char* PyUnicode_AsUTF8AndSize(object unicode, Py_ssize_t* size) except NULL

FIELDS = (
    "match_id", "deal_no", "trick_no", "seq", "pos_in_trick", "is_lead", "seat", "player_id", "team",
    "action", "cards", "combo_type", "combo_rank", "combo_size", "bomb_class", "wilds_used",
    "reading_inferred", "table_combo_type", "table_combo_rank", "table_seat", "left_E", "left_N",
    "left_W", "left_S", "left_after", "opp_min_left", "overtook_partner", "could_beat", "went_out", "t",
)
"""The row's fields in ``replay.rows.PlayRow`` order (``replay.arrow`` checks that they agree)."""

cdef enum:
    NUMBERS = 17  # integer and boolean fields of a row, in the C array
    NULLS = 17  # the slot after them: bit i set when slot i is null
    STRIDE = 18  # int64 slots a row takes
    OBJECTS = 13  # the other fields, in Python lists

# Per field of FIELDS: its slot in the C row (>= 0) or -1 - its object list's index.
cdef int SLOT[30]
SLOT[:] = [-1, 0, 1, 2, 3, 4, -2, -3, -4, -5, -6, -7, -8, 5, -9, 6, 7, -10, -11, -12,
           8, 9, 10, 11, 12, 13, 14, 15, 16, -13]
cdef bint IS_BOOL[NUMBERS]
IS_BOOL[:] = [0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1]

_FIXED_OFFSET = _datetime.timezone


cdef inline int64_t _number(int64_t* row, int slot, object value) except -1:
    """Store a nullable integer ``value`` in ``row``'s ``slot``."""
    if value is None:
        row[NULLS] |= 1 << slot
        row[slot] = 0
    else:
        row[slot] = value
    return 0


cdef inline int64_t _flag(int64_t* row, int slot, object value) except -1:
    """Store a nullable boolean ``value`` in ``row``'s ``slot``."""
    if value is None:
        row[NULLS] |= 1 << slot
        row[slot] = 0
    else:
        row[slot] = 1 if value else 0
    return 0


cdef class PlayBuffer:
    """The ``plays`` rows of a match or a batch (``replay.rows.PlayColumns``'s interface)."""

    cdef int64_t* numbers
    cdef Py_ssize_t size
    cdef Py_ssize_t capacity
    cdef list objects

    def __cinit__(self):
        self.numbers = NULL
        self.size = 0
        self.capacity = 0
        self.objects = [[] for _ in range(OBJECTS)]

    def __dealloc__(self):
        free(self.numbers)

    cdef int _grow(self, Py_ssize_t rows) except -1:
        """Make room for ``rows`` more rows."""
        cdef Py_ssize_t need = self.size + rows
        cdef Py_ssize_t capacity = self.capacity
        cdef int64_t* numbers
        if need > capacity:
            capacity = max(need, capacity * 2, 64)
            numbers = <int64_t*>realloc(self.numbers, capacity * STRIDE * sizeof(int64_t))
            if numbers == NULL:
                raise MemoryError()
            self.numbers = numbers
            self.capacity = capacity
        return 0

    def add(
        self,
        match_id, deal_no, trick_no, seq, pos_in_trick, is_lead, seat, player_id, team, action, cards,
        combo_type, combo_rank, combo_size, bomb_class, wilds_used, reading_inferred, table_combo_type,
        table_combo_rank, table_seat, left_E, left_N, left_W, left_S, left_after, opp_min_left,
        overtook_partner, could_beat, went_out, t,
    ):
        """Append one row, its values in ``PlayRow`` field order."""
        self._grow(1)
        cdef int64_t* row = self.numbers + self.size * STRIDE
        row[0] = deal_no
        row[1] = trick_no
        row[2] = seq
        row[3] = pos_in_trick
        row[4] = 1 if is_lead else 0
        row[8] = left_E
        row[9] = left_N
        row[10] = left_W
        row[11] = left_S
        row[12] = left_after
        row[16] = 1 if went_out else 0
        row[NULLS] = 0
        _number(row, 5, combo_size)
        _number(row, 6, wilds_used)
        _flag(row, 7, reading_inferred)
        _number(row, 13, opp_min_left)
        _flag(row, 14, overtook_partner)
        _flag(row, 15, could_beat)
        cdef list o = self.objects
        (<list>o[0]).append(match_id)
        (<list>o[1]).append(seat)
        (<list>o[2]).append(player_id)
        (<list>o[3]).append(team)
        (<list>o[4]).append(action)
        (<list>o[5]).append(cards)
        (<list>o[6]).append(combo_type)
        (<list>o[7]).append(combo_rank)
        (<list>o[8]).append(bomb_class)
        (<list>o[9]).append(table_combo_type)
        (<list>o[10]).append(table_combo_rank)
        (<list>o[11]).append(table_seat)
        (<list>o[12]).append(t)
        self.size += 1

    def extend(self, PlayBuffer other not None):
        """Append every row of ``other``."""
        cdef Py_ssize_t n = other.size
        self._grow(n)
        if n:
            memcpy(self.numbers + self.size * STRIDE, other.numbers, n * STRIDE * sizeof(int64_t))
        self.size += n
        cdef Py_ssize_t i
        for i in range(OBJECTS):
            (<list>self.objects[i]).extend(<list>other.objects[i])

    def __len__(self):
        return self.size

    cdef list _number_column(self, int slot):
        cdef list out = []
        cdef Py_ssize_t i
        cdef int64_t v
        cdef bint flag = IS_BOOL[slot]
        for i in range(self.size):
            v = self.numbers[i * STRIDE + slot]
            if self.numbers[i * STRIDE + NULLS] & (1 << slot):
                out.append(None)
            elif flag:
                out.append(v != 0)
            else:
                out.append(v)
        return out

    cdef object _column(self, int field):
        cdef int slot = SLOT[field]
        if slot >= 0:
            return self._number_column(slot)
        return self.objects[-1 - slot]

    def columns(self):
        """The columns as lists in ``PlayRow`` field order (the object columns are the buffer's own
        lists, the others made on the call)."""
        return [self._column(f) for f in range(30)]

    def rows(self):
        """The rows as ``replay.rows.PlayRow`` tuples."""
        from replay.rows import PlayRow

        new = tuple.__new__
        return [new(PlayRow, values) for values in zip(*self.columns())]

    def arrays(self, schema):
        """One Arrow array per field of ``schema`` (a ``plays`` schema: its fields named as
        :data:`FIELDS`, in any order), built from the buffers."""
        import pyarrow as pa

        return [self._array(pa, FIELDS.index(f.name), f.type) for f in schema]

    cdef object _array(self, object pa, int field, object type_):
        cdef int slot = SLOT[field]
        if slot >= 0:
            if pa.types.is_boolean(type_):
                return self._bool_array(pa, slot)
            return self._int_array(pa, slot, type_)
        return _column(pa, self.objects[-1 - slot], type_)

    cdef object _bool_array(self, object pa, int slot):
        cdef Py_ssize_t n = self.size, i
        cdef bytearray bits = bytearray((n + 7) // 8)
        cdef bytearray valid = bytearray((n + 7) // 8)
        cdef uint8_t* b = bits
        cdef uint8_t* ok = valid
        cdef Py_ssize_t nulls = 0
        cdef int64_t v
        for i in range(n):
            v = self.numbers[i * STRIDE + slot]
            if self.numbers[i * STRIDE + NULLS] & (1 << slot):
                nulls += 1
            else:
                ok[i >> 3] |= 1 << (i & 7)
                if v:
                    b[i >> 3] |= 1 << (i & 7)
        validity = pa.py_buffer(valid) if nulls else None
        return pa.Array.from_buffers(pa.bool_(), n, [validity, pa.py_buffer(bits)], nulls)

    cdef object _int_array(self, object pa, int slot, object type_):
        cdef Py_ssize_t n = self.size, i
        cdef int width = type_.bit_width
        cdef bint signed = pa.types.is_signed_integer(type_)
        cdef int64_t low = -(1LL << (width - 1)) if width < 64 else INT64_MIN
        cdef int64_t high = (1LL << (width - 1)) - 1 if width < 64 else 0x7FFFFFFFFFFFFFFF
        cdef bytearray data = bytearray(n * (width // 8))
        cdef bytearray valid = bytearray((n + 7) // 8)
        cdef char* d = data
        cdef uint8_t* ok = valid
        cdef Py_ssize_t nulls = 0
        cdef int64_t v
        if not signed or width not in (8, 16, 32, 64):
            return pa.array(self._number_column(slot), type=type_)
        for i in range(n):
            v = self.numbers[i * STRIDE + slot]
            if self.numbers[i * STRIDE + NULLS] & (1 << slot):
                nulls += 1
                continue
            if v < low or v > high:
                return pa.array(self._number_column(slot), type=type_)  # raises as pa.array does
            ok[i >> 3] |= 1 << (i & 7)
            _store_int(d, width, i, v)
        validity = pa.py_buffer(valid) if nulls else None
        return pa.Array.from_buffers(type_, n, [validity, pa.py_buffer(data)], nulls)


cdef inline void _store_int(char* data, int width, Py_ssize_t i, int64_t value) noexcept:
    """Store ``value`` (in range) as item ``i`` of a signed integer buffer of ``width`` bits."""
    if width == 8:
        (<int8_t*>data)[i] = <int8_t>value
    elif width == 16:
        (<int16_t*>data)[i] = <int16_t>value
    elif width == 32:
        (<int32_t*>data)[i] = <int32_t>value
    else:
        (<int64_t*>data)[i] = value


def column(values, type_):
    """``pa.array(values, type=type_)``, built in C for the column types of the derived tables
    (strings, lists of strings, UTC microsecond times, booleans, signed integers)."""
    import pyarrow as pa

    return _column(pa, values if type(values) is list else list(values), type_)


cdef object _column(object pa, list values, object type_):
    if pa.types.is_string(type_):
        return _string_array(pa, values)
    if pa.types.is_list(type_) and pa.types.is_string(type_.value_type):
        return _string_list_array(pa, values, type_)
    if pa.types.is_timestamp(type_) and type_.unit == "us" and type_.tz == "UTC":
        return _timestamp_array(pa, values, type_)
    if pa.types.is_boolean(type_):
        return _python_bool_array(pa, values)
    if pa.types.is_signed_integer(type_):
        return _python_int_array(pa, values, type_)
    return pa.array(values, type=type_)


cdef object _python_bool_array(object pa, list values):
    """A ``bool`` array of ``values`` (True, False or None); anything else goes through ``pa.array``."""
    cdef Py_ssize_t n = PyList_GET_SIZE(values), i, nulls = 0
    cdef bytearray bits = bytearray((n + 7) // 8)
    cdef bytearray valid = bytearray((n + 7) // 8)
    cdef uint8_t* b = bits
    cdef uint8_t* ok = valid
    cdef object v
    for i in range(n):
        v = <object>PyList_GET_ITEM(values, i)
        if v is None:
            nulls += 1
        elif v is True:
            ok[i >> 3] |= 1 << (i & 7)
            b[i >> 3] |= 1 << (i & 7)
        elif v is False:
            ok[i >> 3] |= 1 << (i & 7)
        else:
            return pa.array(values, type=pa.bool_())
    validity = pa.py_buffer(valid) if nulls else None
    return pa.Array.from_buffers(pa.bool_(), n, [validity, pa.py_buffer(bits)], nulls)


cdef object _python_int_array(object pa, list values, object type_):
    """A signed integer array of ``values`` (ints or None) at ``type_``'s width; a value of
    another type, or one the width cannot hold, goes through ``pa.array`` (and its error)."""
    cdef Py_ssize_t n = PyList_GET_SIZE(values), i, nulls = 0
    cdef int width = type_.bit_width
    if width not in (8, 16, 32, 64):
        return pa.array(values, type=type_)
    cdef int64_t low = -(1LL << (width - 1)) if width < 64 else INT64_MIN
    cdef int64_t high = (1LL << (width - 1)) - 1 if width < 64 else 0x7FFFFFFFFFFFFFFF
    cdef bytearray data = bytearray(n * (width // 8))
    cdef bytearray valid = bytearray((n + 7) // 8)
    cdef char* d = data
    cdef uint8_t* ok = valid
    cdef object v
    cdef int64_t x
    cdef int overflow
    for i in range(n):
        v = <object>PyList_GET_ITEM(values, i)
        if v is None:
            nulls += 1
            continue
        if type(v) is not int:
            return pa.array(values, type=type_)
        x = PyLong_AsLongLongAndOverflow(v, &overflow)
        if overflow or x < low or x > high:
            return pa.array(values, type=type_)
        ok[i >> 3] |= 1 << (i & 7)
        _store_int(d, width, i, x)
    validity = pa.py_buffer(valid) if nulls else None
    return pa.Array.from_buffers(type_, n, [validity, pa.py_buffer(data)], nulls)


cdef object _string_array(object pa, list values):
    """A ``string`` array of ``values`` (str or None); anything else goes through ``pa.array``."""
    cdef Py_ssize_t n = PyList_GET_SIZE(values), i, size, total = 0, nulls = 0
    cdef object v
    for i in range(n):
        v = <object>PyList_GET_ITEM(values, i)
        if v is None:
            nulls += 1
        elif PyUnicode_Check(v):
            PyUnicode_AsUTF8AndSize(v, &size)
            total += size
        else:
            return pa.array(values, type=pa.string())
    if total > 0x7FFFFFFF:
        return pa.array(values, type=pa.string())
    cdef bytearray offsets = bytearray(4 * (n + 1))
    cdef bytearray data = bytearray(total)
    cdef bytearray valid = bytearray((n + 7) // 8)
    cdef int32_t* off = <int32_t*><char*>offsets
    cdef char* d = data
    cdef uint8_t* ok = valid
    cdef const char* s
    cdef int32_t at = 0
    for i in range(n):
        off[i] = at
        v = <object>PyList_GET_ITEM(values, i)
        if v is not None:
            s = PyUnicode_AsUTF8AndSize(v, &size)
            memcpy(d + at, s, size)
            at += <int32_t>size
            ok[i >> 3] |= 1 << (i & 7)
    off[n] = at
    validity = pa.py_buffer(valid) if nulls else None
    return pa.Array.from_buffers(
        pa.string(), n, [validity, pa.py_buffer(offsets), pa.py_buffer(data)], nulls
    )


cdef object _string_list_array(object pa, list values, object type_):
    """A list-of-strings array of ``values`` (lists of str, or None)."""
    cdef Py_ssize_t n = PyList_GET_SIZE(values), i, j, m, size, items = 0, total = 0, nulls = 0
    cdef object v, card
    for i in range(n):
        v = <object>PyList_GET_ITEM(values, i)
        if v is None:
            nulls += 1
            continue
        if type(v) is not list:
            return pa.array(values, type=type_)
        m = PyList_GET_SIZE(v)
        items += m
        for j in range(m):
            card = <object>PyList_GET_ITEM(v, j)
            if not PyUnicode_Check(card):
                return pa.array(values, type=type_)
            PyUnicode_AsUTF8AndSize(card, &size)
            total += size
    if total > 0x7FFFFFFF or items > 0x7FFFFFFF:
        return pa.array(values, type=type_)
    cdef bytearray list_offsets = bytearray(4 * (n + 1))
    cdef bytearray offsets = bytearray(4 * (items + 1))
    cdef bytearray data = bytearray(total)
    cdef bytearray valid = bytearray((n + 7) // 8)
    cdef int32_t* loff = <int32_t*><char*>list_offsets
    cdef int32_t* off = <int32_t*><char*>offsets
    cdef char* d = data
    cdef uint8_t* ok = valid
    cdef const char* s
    cdef int32_t at = 0, item = 0
    for i in range(n):
        loff[i] = item
        v = <object>PyList_GET_ITEM(values, i)
        if v is None:
            continue
        ok[i >> 3] |= 1 << (i & 7)
        for j in range(PyList_GET_SIZE(v)):
            card = <object>PyList_GET_ITEM(v, j)
            s = PyUnicode_AsUTF8AndSize(card, &size)
            off[item] = at
            memcpy(d + at, s, size)
            at += <int32_t>size
            item += 1
    loff[n] = item
    off[items] = at
    child = pa.Array.from_buffers(
        type_.value_type, items, [None, pa.py_buffer(offsets), pa.py_buffer(data)], 0
    )
    validity = pa.py_buffer(valid) if nulls else None
    return pa.Array.from_buffers(type_, n, [validity, pa.py_buffer(list_offsets)], nulls, children=[child])


cdef inline int64_t _days_from_civil(int64_t y, int64_t m, int64_t d) noexcept:
    """Days since 1970-01-01 of a proleptic Gregorian date."""
    y -= m <= 2
    cdef int64_t era = (y if y >= 0 else y - 399) // 400
    cdef int64_t yoe = y - era * 400
    cdef int64_t doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    cdef int64_t doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


cdef object _timestamp_array(object pa, list values, object type_):
    """A ``timestamp[us, UTC]`` array of aware datetimes (or None): UTC microseconds, each value's
    offset from ``utcoffset()``, asked once for a run of equal fixed offsets."""
    cdef Py_ssize_t n = PyList_GET_SIZE(values), i, nulls = 0
    cdef bytearray data = bytearray(8 * n)
    cdef bytearray valid = bytearray((n + 7) // 8)
    cdef int64_t* out = <int64_t*><char*>data
    cdef uint8_t* ok = valid
    cdef object v, tz, last_tz = None, delta
    cdef int64_t offset = 0, local
    for i in range(n):
        v = <object>PyList_GET_ITEM(values, i)
        if v is None:
            nulls += 1
            continue
        if not PyDateTime_CheckExact(v):
            return pa.array(values, type=type_)
        tz = <object>PyDateTime_DATE_GET_TZINFO(v)
        if tz is None:
            return pa.array(values, type=type_)
        if not (type(tz) is _FIXED_OFFSET and type(last_tz) is _FIXED_OFFSET and tz == last_tz):
            delta = v.utcoffset()
            offset = (
                (<int64_t>PyDateTime_DELTA_GET_DAYS(delta) * 86400 + PyDateTime_DELTA_GET_SECONDS(delta))
                * 1000000 + PyDateTime_DELTA_GET_MICROSECONDS(delta)
            )
            last_tz = tz
        local = (
            _days_from_civil(PyDateTime_GET_YEAR(v), PyDateTime_GET_MONTH(v), PyDateTime_GET_DAY(v)) * 86400
            + PyDateTime_DATE_GET_HOUR(v) * 3600
            + PyDateTime_DATE_GET_MINUTE(v) * 60
            + PyDateTime_DATE_GET_SECOND(v)
        ) * 1000000 + PyDateTime_DATE_GET_MICROSECOND(v)
        out[i] = local - offset
        ok[i >> 3] |= 1 << (i & 7)
    validity = pa.py_buffer(valid) if nulls else None
    return pa.Array.from_buffers(type_, n, [validity, pa.py_buffer(data)], nulls)


cdef inline bint _is_seat(object seat):
    return type(seat) is str and (seat == "E" or seat == "N" or seat == "W" or seat == "S")


def well_formed(ev):
    """True when ``ev`` is a ``play`` or ``pass`` event that ``replay.events.check_event`` (with
    ``check_time=False``) finds well-formed, checked without building a fault; False for every
    other event, and for one of these that is malformed or only unusual (``v`` 1.0, a str
    subclass): the caller then asks ``check_event``, which stays the one place faults are made."""
    if type(ev) is not dict:
        return False
    cdef dict event = <dict>ev
    v = event.get("v")
    if type(v) is not int or v != 1:
        return False
    kind = event.get("type")
    if type(kind) is not str:
        return False
    if kind == "pass":
        return _is_seat(event.get("seat"))
    if kind != "play" or not _is_seat(event.get("seat")):
        return False
    cards = event.get("cards")
    if type(cards) is not list or not PyList_GET_SIZE(cards):
        return False
    cdef Py_ssize_t i
    for i in range(PyList_GET_SIZE(cards)):
        if not PyUnicode_Check(<object>PyList_GET_ITEM(cards, i)):
            return False
    combo = event.get("combo")
    if combo is None:
        return True
    if type(combo) is not dict:
        return False
    return PyUnicode_Check((<dict>combo).get("type")) and PyUnicode_Check((<dict>combo).get("rank"))


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object unicode)
    const void* PyUnicode_DATA(object unicode)

cdef dict _ZONES = {}
"""The fixed-offset zones made so far, by their offset in minutes (a match has one or two)."""
cdef int _last_offset = -100000
cdef object _last_zone = None


cdef inline int _digits(const char* s, int n) noexcept:
    """The ``n`` ASCII digits at ``s`` as a number; -1 when one is not a digit."""
    cdef int i, value = 0
    for i in range(n):
        if s[i] < 48 or s[i] > 57:
            return -1
        value = value * 10 + (s[i] - 48)
    return value


cdef object _zone(int minutes):
    """The zone of this offset: the last one asked for again (times come in runs of one offset),
    otherwise the one made before, otherwise a new one."""
    global _last_offset, _last_zone
    if minutes == _last_offset:
        return _last_zone
    zone = _ZONES.get(minutes)
    if zone is None:
        zone = _ZONES[minutes] = _datetime.timezone(_datetime.timedelta(minutes=minutes))
    _last_offset, _last_zone = minutes, zone
    return zone


def usual_time(value):
    """The aware datetime ``datetime.fromisoformat`` makes of ``value`` when it is a time in the
    usual RFC 3339 form, ``YYYY-MM-DDTHH:MM:SS``, then no fraction or 3 or 6 digits of one, then
    ``Z`` or ``±HH:MM``; None for anything else (another type or form, a field out of range),
    which the caller then gives to ``replay.events.parse_time``, the one place its error is made.
    Each offset's zone is made once, not once a time."""
    if type(value) is not str or not PyUnicode_IS_ASCII(value):
        return None
    cdef Py_ssize_t n = len(<str>value)
    cdef const char* s = <const char*>PyUnicode_DATA(value)
    if n < 20 or s[4] != 45 or s[7] != 45 or s[10] != 84 or s[13] != 58 or s[16] != 58:
        return None
    cdef int year = _digits(s, 4), month = _digits(s + 5, 2), day = _digits(s + 8, 2)
    cdef int hour = _digits(s + 11, 2), minute = _digits(s + 14, 2), second = _digits(s + 17, 2)
    if year < 1 or month < 1 or month > 12 or day < 1 or hour < 0 or hour > 23:
        return None
    if minute < 0 or minute > 59 or second < 0 or second > 59:
        return None
    cdef Py_ssize_t at = 19
    cdef int micro = 0
    if s[at] == 46:
        if n >= 27 and _digits(s + 20, 6) >= 0 and (s[26] < 48 or s[26] > 57):
            micro = _digits(s + 20, 6)
            at = 26
        elif n >= 24 and _digits(s + 20, 3) >= 0 and (s[23] < 48 or s[23] > 57):
            micro = _digits(s + 20, 3) * 1000
            at = 23
        else:
            return None
    cdef int offset, oh, om
    if n - at == 1 and s[at] == 90:
        offset = 0
    elif n - at == 6 and (s[at] == 43 or s[at] == 45) and s[at + 3] == 58:
        oh = _digits(s + at + 1, 2)
        om = _digits(s + at + 4, 2)
        if oh < 0 or oh > 23 or om < 0 or om > 59:
            return None
        offset = oh * 60 + om
        if s[at] == 45:
            offset = -offset
    else:
        return None
    try:
        return datetime_new(year, month, day, hour, minute, second, micro, _zone(offset))
    except ValueError:
        return None


def take_cards(hand, list cards):
    """Take ``cards`` out of ``hand`` (a seat's card multiset, a ``Counter``) and return True when
    it holds them all, as ``replay.play.PlayPhase._take_cards`` does; otherwise put back the cards
    taken so far, as that loop puts them back, and return False, so that the Python code, which
    alone makes the fault, runs."""
    if not PyDict_Check(hand):
        return False
    cdef dict counts = <dict>hand
    cdef Py_ssize_t n = PyList_GET_SIZE(cards), i, j
    cdef object card, held
    cdef long count
    for i in range(n):
        card = <object>PyList_GET_ITEM(cards, i)
        held = counts.get(card) if type(card) is str else None
        if type(held) is not int or held <= 0:
            for j in range(i):
                card = <object>PyList_GET_ITEM(cards, j)
                counts[card] = counts.get(card, 0) + 1
            return False
        count = held
        if count == 1:
            del counts[card]
        else:
            counts[card] = count - 1
    return True
