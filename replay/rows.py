"""The rows a replay derives, one typed definition per table (``schemas/tables.py`` holds their Arrow
schemas; ``replay.arrow`` checks the two agree, column by column, before it builds a table).

Each row kind is a ``NamedTuple``: built positionally on the hot path (a ``NamedTuple`` is a tuple,
so ``replay_batch`` transposes rows into Arrow columns without copying them into dicts), read by
field name everywhere else. Field order is the schema's column order, except for ``tributes`` and
``matches``, whose fields keep the order their rows have always been read in as dicts
(:meth:`ReplayRows.__getitem__`); ``replay.arrow`` maps every field to its column by name.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple


class PlayRow(NamedTuple):
    """``plays``: one play or pass (``action``); the cards each seat held before it."""

    match_id: str
    deal_no: int
    trick_no: int
    seq: int
    pos_in_trick: int
    is_lead: bool
    seat: str
    player_id: str
    team: str
    action: str
    cards: list[str] | None
    combo_type: str | None
    combo_rank: str | None
    combo_size: int | None
    bomb_class: str | None
    wilds_used: int | None
    reading_inferred: bool | None
    table_combo_type: str | None
    table_combo_rank: str | None
    table_seat: str | None
    left_E: int
    left_N: int
    left_W: int
    left_S: int
    left_after: int
    opp_min_left: int | None
    overtook_partner: bool | None
    could_beat: bool | None
    went_out: bool
    t: datetime | None


_new_tuple = tuple.__new__


def play_row(values: tuple[Any, ...]) -> PlayRow:
    """A :class:`PlayRow` of its 30 values in field order. A ``NamedTuple`` is a tuple: made this way
    it costs one tuple copy, where calling ``PlayRow(...)`` runs its generated ``__new__`` in Python,
    several times dearer (``plays`` rows are made once per play and pass, the replay's hot path)."""
    return _new_tuple(PlayRow, values)


class DealRow(NamedTuple):
    """``deals``: one deal of a valid or partial match, its result and counts."""

    match_id: str
    deal_no: int
    rules: str
    level: str
    declarers: str | None
    level_EW_before: str
    level_NS_before: str
    level_EW_after: str
    level_NS_after: str
    tribute_kind: str | None
    leader: str | None
    finish_order: list[str]
    winning_team: str
    level_gain: int
    double_win: bool
    a_attempt: bool
    a_passed: bool
    a_failed: bool
    foul: bool
    extra_deal: bool
    """The deal that broke a round the format ended level (``Ruleset.extra_deal``, rules.md §7)."""
    tricks: int | None
    """Play-derived counts (``tricks`` … ``passes``): null for a results-only deal."""
    jie_feng: int | None
    bombs_EW: int | None
    bombs_NS: int | None
    plays: int | None
    passes: int | None
    started_at: datetime | None
    ended_at: datetime | None


class DealHandRow(NamedTuple):
    """``deal_hands``: one seat's dealt hand, its starting-hand features (``replay.features``; null
    when the log does not show the hand) and how the seat did."""

    match_id: str
    deal_no: int
    seat: str
    player_id: str
    team: str
    hand: list[str] | None
    jokers: int | None
    big_jokers: int | None
    wilds: int | None
    level_cards: int | None
    natural_bombs: int | None
    straight_flush_chances: int | None
    finish_position: int | None
    bombs_played: int | None


class TributeRow(NamedTuple):
    """``tributes``: one tribute paid and its return, or one resisted tribute (``kind`` anti)."""

    kind: str
    giver: str
    receiver: str | None
    card: str | None
    return_card: str | None
    equal_double: bool | None
    anti_seats: list[str] | None
    match_id: str
    deal_no: int
    level: str
    giver_player: str | None
    receiver_player: str | None


class RulingRow(NamedTuple):
    """``rulings``: one referee ruling as recorded, with the team it is against."""

    match_id: str
    seq: int
    deal_no: int | None
    kind: str
    seat: str | None
    team: str | None
    player_id: str | None
    level_points: float | None
    match_points: float | None
    level_EW: str | None
    level_NS: str | None
    note: str | None
    t: datetime | None


class MatchRow(NamedTuple):
    """``matches``: one replayed match. The outcome fields come first: they are all a match that
    failed before its ``match_start`` was read has (its other fields are null)."""

    match_id: str
    status: str
    error_seq: int | None
    error_code: str | None
    error_message: str | None
    n_events: int
    end_reason: str | None
    winner: str | None
    ended_at: datetime | None
    revision: int = 1
    """``match_start.revision`` (corrections, docs/event-extensions.md); 1 when absent."""
    event_id: str | None = None
    event_name: str | None = None
    stage: str | None = None
    round: int | None = None
    table: str | None = None
    rules: str | None = None
    format_kind: str | None = None
    format_deals: int | None = None
    format_minutes: int | None = None
    player_E: str | None = None
    player_N: str | None = None
    player_W: str | None = None
    player_S: str | None = None
    duplicate_board: str | None = None
    duplicate_room: str | None = None
    known_seats: list[str] | None = None
    deals_played: int | None = None
    start_level_EW: str | None = None
    start_level_NS: str | None = None
    final_level_EW: str | None = None
    final_level_NS: str | None = None
    passed_a: str | None = None
    a_failures_EW: int | None = None
    a_failures_NS: int | None = None
    started_at: datetime | None = None
    utc_offset_min: int | None = None
    """The UTC offset of ``match_start``'s ``t`` in minutes: the match's local time (schemas/times.py)."""
    duration_s: float | None = None


class PlayerMatchRow(NamedTuple):
    """``player_matches``: one player's match: partner, opponents, result and finishing places."""

    match_id: str
    player_id: str
    seat: str
    team: str
    partner_id: str
    opponent_ids: list[str]
    event_id: str | None
    round: int | None
    rules: str
    status: str
    result: str | None
    final_level: str
    opp_final_level: str
    levels_gained: int
    deals_played: int
    deals_won: int
    first_places: int
    second_places: int
    third_places: int
    fourth_places: int
    a_failures: int
    started_at: datetime | None


class QuarantineRow(NamedTuple):
    """``quarantine``: a malformed input line, or the first offending event of an invalid match."""

    source_file: str | None
    line_no: int | None
    match_id: str | None
    seq: int | None
    code: str
    message: str
    payload: str | None


Row = PlayRow | DealRow | DealHandRow | TributeRow | RulingRow | MatchRow | PlayerMatchRow | QuarantineRow
"""A row of any derived table."""

ROW_FIELDS: dict[str, tuple[str, ...]] = {
    "matches": MatchRow._fields,
    "deals": DealRow._fields,
    "deal_hands": DealHandRow._fields,
    "plays": PlayRow._fields,
    "tributes": TributeRow._fields,
    "player_matches": PlayerMatchRow._fields,
    "rulings": RulingRow._fields,
    "quarantine": QuarantineRow._fields,
}
"""The fields of each derived table's row type, by table name (``schemas.tables.DERIVED``)."""

TABLES = ("matches", "deals", "deal_hands", "plays", "tributes", "player_matches", "rulings")
"""Row lists a ``MatchReplay`` holds, one per derived table but ``quarantine``."""

_STARTED_FIELDS = MatchRow._fields.index("event_id")
"""Fields of a ``matches`` row before this index are known even when ``match_start`` was not read."""


def row_dict(name: str, row: Row) -> dict[str, Any]:
    """A row of table ``name`` as a dict by field name; the ``matches`` row of a match that failed
    before its ``match_start`` was read has only the outcome fields (it never had the others)."""
    fields = ROW_FIELDS[name]
    if isinstance(row, MatchRow) and row.rules is None:
        fields = fields[:_STARTED_FIELDS]
    return dict(zip(fields, row, strict=False))


class ReplayRows(Mapping[str, list[dict[str, Any]]]):
    """The rows of one replayed match by table name. Rows are kept as built, typed (:meth:`typed`,
    what ``replay_batch`` turns into Arrow columns), and made into dicts only when a table is first
    read by name. An invalid match holds only ``matches``."""

    __slots__ = ("_dicts", "_rows")

    def __init__(self, rows: Mapping[str, Sequence[Row]]) -> None:
        self._rows = rows
        self._dicts: dict[str, list[dict[str, Any]]] = {}

    def typed(self, name: str) -> Sequence[Row]:
        """The rows of table ``name`` as built (``KeyError`` when the match has no such table)."""
        return self._rows[name]

    def __getitem__(self, name: str) -> list[dict[str, Any]]:
        dicts = self._dicts.get(name)
        if dicts is None:
            dicts = self._dicts[name] = [row_dict(name, row) for row in self._rows[name]]
        return dicts

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)
