"""The rows a replay derives, one typed definition per table (``schemas/tables.py`` holds their Arrow
schemas; ``replay.arrow`` checks the two agree, column by column, before it builds a table).

Each row kind is a ``NamedTuple``: built positionally (a ``NamedTuple`` is a tuple, so
``replay_batch`` transposes rows into Arrow columns without copying them into dicts), read by
field name everywhere else. ``plays``, about 95 rows a deal, is built as columns instead
(:class:`PlayColumns`): no tuple per row and no transpose on the replay's hot path. Field order
is the schema's column order, except for ``tributes`` and ``matches``, whose fields keep the
order their rows have always been read in as dicts (:meth:`ReplayRows.__getitem__`);
``replay.arrow`` maps every field to its column by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple, Protocol

from replay import native


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


class PlayColumns:
    """The ``plays`` rows of a match or a batch, built column by column: one list per field of
    :class:`PlayRow`, in its order. A play or pass appends its values (:meth:`add`) and a batch
    extends its lists by a match's (:meth:`extend`), so ``replay_batch`` hands each list to Arrow
    as it is, with no tuple per row and no transpose."""

    def __init__(self) -> None:
        self.match_id: list[str] = []
        self.deal_no: list[int] = []
        self.trick_no: list[int] = []
        self.seq: list[int] = []
        self.pos_in_trick: list[int] = []
        self.is_lead: list[bool] = []
        self.seat: list[str] = []
        self.player_id: list[str] = []
        self.team: list[str] = []
        self.action: list[str] = []
        self.cards: list[list[str] | None] = []
        self.combo_type: list[str | None] = []
        self.combo_rank: list[str | None] = []
        self.combo_size: list[int | None] = []
        self.bomb_class: list[str | None] = []
        self.wilds_used: list[int | None] = []
        self.reading_inferred: list[bool | None] = []
        self.table_combo_type: list[str | None] = []
        self.table_combo_rank: list[str | None] = []
        self.table_seat: list[str | None] = []
        self.left_E: list[int] = []
        self.left_N: list[int] = []
        self.left_W: list[int] = []
        self.left_S: list[int] = []
        self.left_after: list[int] = []
        self.opp_min_left: list[int | None] = []
        self.overtook_partner: list[bool | None] = []
        self.could_beat: list[bool | None] = []
        self.went_out: list[bool] = []
        self.t: list[datetime | None] = []

    def add(
        self,
        match_id: str,
        deal_no: int,
        trick_no: int,
        seq: int,
        pos_in_trick: int,
        is_lead: bool,
        seat: str,
        player_id: str,
        team: str,
        action: str,
        cards: list[str] | None,
        combo_type: str | None,
        combo_rank: str | None,
        combo_size: int | None,
        bomb_class: str | None,
        wilds_used: int | None,
        reading_inferred: bool | None,
        table_combo_type: str | None,
        table_combo_rank: str | None,
        table_seat: str | None,
        left_E: int,
        left_N: int,
        left_W: int,
        left_S: int,
        left_after: int,
        opp_min_left: int | None,
        overtook_partner: bool | None,
        could_beat: bool | None,
        went_out: bool,
        t: datetime | None,
    ) -> None:
        """Append one row, its values in :class:`PlayRow` field order."""
        self.match_id.append(match_id)
        self.deal_no.append(deal_no)
        self.trick_no.append(trick_no)
        self.seq.append(seq)
        self.pos_in_trick.append(pos_in_trick)
        self.is_lead.append(is_lead)
        self.seat.append(seat)
        self.player_id.append(player_id)
        self.team.append(team)
        self.action.append(action)
        self.cards.append(cards)
        self.combo_type.append(combo_type)
        self.combo_rank.append(combo_rank)
        self.combo_size.append(combo_size)
        self.bomb_class.append(bomb_class)
        self.wilds_used.append(wilds_used)
        self.reading_inferred.append(reading_inferred)
        self.table_combo_type.append(table_combo_type)
        self.table_combo_rank.append(table_combo_rank)
        self.table_seat.append(table_seat)
        self.left_E.append(left_E)
        self.left_N.append(left_N)
        self.left_W.append(left_W)
        self.left_S.append(left_S)
        self.left_after.append(left_after)
        self.opp_min_left.append(opp_min_left)
        self.overtook_partner.append(overtook_partner)
        self.could_beat.append(could_beat)
        self.went_out.append(went_out)
        self.t.append(t)

    def columns(self) -> list[list[Any]]:
        """The column lists in :class:`PlayRow` field order (the lists themselves, not copies)."""
        return [
            self.match_id,
            self.deal_no,
            self.trick_no,
            self.seq,
            self.pos_in_trick,
            self.is_lead,
            self.seat,
            self.player_id,
            self.team,
            self.action,
            self.cards,
            self.combo_type,
            self.combo_rank,
            self.combo_size,
            self.bomb_class,
            self.wilds_used,
            self.reading_inferred,
            self.table_combo_type,
            self.table_combo_rank,
            self.table_seat,
            self.left_E,
            self.left_N,
            self.left_W,
            self.left_S,
            self.left_after,
            self.opp_min_left,
            self.overtook_partner,
            self.could_beat,
            self.went_out,
            self.t,
        ]

    def extend(self, other: PlayColumns) -> None:
        """Append every row of ``other``."""
        for mine, theirs in zip(self.columns(), other.columns(), strict=True):
            mine.extend(theirs)

    def __len__(self) -> int:
        return len(self.match_id)

    def rows(self) -> list[PlayRow]:
        """The rows as :class:`PlayRow` tuples."""
        new = tuple.__new__
        return [new(PlayRow, values) for values in zip(*self.columns(), strict=True)]


class PlayTable(Protocol):
    """What the replay needs of its ``plays`` rows: :class:`PlayColumns`, or where it is built the
    Cython ``replay._replay.PlayBuffer`` (typed buffers that ``replay.arrow`` turns into Arrow
    arrays in C)."""

    def add(
        self,
        match_id: str,
        deal_no: int,
        trick_no: int,
        seq: int,
        pos_in_trick: int,
        is_lead: bool,
        seat: str,
        player_id: str,
        team: str,
        action: str,
        cards: list[str] | None,
        combo_type: str | None,
        combo_rank: str | None,
        combo_size: int | None,
        bomb_class: str | None,
        wilds_used: int | None,
        reading_inferred: bool | None,
        table_combo_type: str | None,
        table_combo_rank: str | None,
        table_seat: str | None,
        left_E: int,
        left_N: int,
        left_W: int,
        left_S: int,
        left_after: int,
        opp_min_left: int | None,
        overtook_partner: bool | None,
        could_beat: bool | None,
        went_out: bool,
        t: datetime | None,
    ) -> None: ...

    def extend(self, other: Any) -> None: ...

    def columns(self) -> list[list[Any]]: ...

    def rows(self) -> list[PlayRow]: ...

    def __len__(self) -> int: ...


def _play_table_class() -> Callable[[], PlayTable]:
    """The ``plays`` row store the engine uses: the Cython buffers where they are built and in use
    (``replay.native.core``), else :class:`PlayColumns`."""
    module = native.core("_replay")
    if module is None:
        return PlayColumns
    if PlayRow._fields != module.FIELDS:
        raise TypeError(f"replay._replay: its fields {module.FIELDS} are not PlayRow's {PlayRow._fields}")
    buffer: Callable[[], PlayTable] = module.PlayBuffer
    return buffer


new_play_table: Callable[[], PlayTable] = _play_table_class()
"""A new, empty ``plays`` row store (:func:`_play_table_class`)."""


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
    """The rows of one replayed match by table name. Rows are kept as built, typed (:meth:`typed`;
    ``plays`` as columns, :attr:`plays`, what ``replay_batch`` hands to Arrow), and made into dicts
    only when a table is first read by name. An invalid match holds only ``matches``."""

    __slots__ = ("_dicts", "_rows", "plays")

    def __init__(self, rows: Mapping[str, Sequence[Row]], plays: PlayTable | None = None) -> None:
        self._rows = rows
        self.plays = plays
        """The ``plays`` rows as columns (None for an invalid match, which has none)."""
        self._dicts: dict[str, list[dict[str, Any]]] = {}

    def typed(self, name: str) -> Sequence[Row]:
        """The rows of table ``name`` as built (``KeyError`` when the match has no such table)."""
        if name == "plays" and self.plays is not None:
            return self.plays.rows()
        return self._rows[name]

    def __getitem__(self, name: str) -> list[dict[str, Any]]:
        dicts = self._dicts.get(name)
        if dicts is None:
            dicts = self._dicts[name] = [row_dict(name, row) for row in self.typed(name)]
        return dicts

    def __iter__(self) -> Iterator[str]:
        yield from self._rows
        if self.plays is not None:
            yield "plays"

    def __len__(self) -> int:
        return len(self._rows) + (self.plays is not None)
