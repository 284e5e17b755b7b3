"""The rows of one match, built as its replay goes (``replay.rows`` defines them): a ``plays`` row per
play and pass, the ``deals``, ``deal_hands`` and ``tributes`` rows of each finished deal, a
``rulings`` row per ruling, and at the end the ``matches`` and ``player_matches`` rows.

The replayer decides what happened; :class:`MatchRows` only records it, reading the deal and match
state it is handed and changing none of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from replay.combos import Combo
from replay.events import normalise_level
from replay.features import hand_features
from replay.rows import (
    DealHandRow,
    DealRow,
    MatchRow,
    ReplayRows,
    Row,
    RulingRow,
    TributeRow,
    new_play_table,
)
from replay.state import DealState, MatchState
from replay.summary import player_rows
from replay.tribute import TributePhase
from schemas.vocabulary import OTHER_TEAM, PARTNER, SEATS, TEAM, TEAM_SEATS

_OPPONENTS: dict[str, tuple[str, str]] = {s: TEAM_SEATS[OTHER_TEAM[TEAM[s]]] for s in SEATS}

_UNKNOWN_HAND: tuple[None, None, None, None, None, None] = (None, None, None, None, None, None)
"""The starting-hand features of a hand the log does not show."""


def _opp_min_left(counts: dict[str, int], seat: str) -> int | None:
    """Fewest cards an opponent of ``seat`` still holding cards has (None when both are out); a
    play changes only its own seat's count, so this is the same before and after it."""
    a, b = _OPPONENTS[seat]
    ca, cb = counts[a], counts[b]
    return min(ca, cb) if ca and cb else ca or cb or None


class DealResult:
    """How a deal ended, as the ``deals`` row records it (rules.md §5.5–§5.8, §7)."""

    __slots__ = ("a_attempt", "a_failed", "a_passed", "double", "gain", "levels_before", "order", "winner")

    def __init__(
        self,
        order: list[str],
        winner: str,
        gain: int,
        double: bool,
        a: tuple[bool, bool, bool],
        levels_before: dict[str, str],
    ) -> None:
        self.order = order
        """Seats by finishing position."""
        self.winner = winner
        self.gain = gain
        """Levels the winners actually went up (capped at the top level)."""
        self.double = double
        self.a_attempt, self.a_passed, self.a_failed = a
        self.levels_before = levels_before


class MatchRows:
    """Row lists of one match under replay."""

    def __init__(self) -> None:
        self.plays = new_play_table()
        self.deals: list[DealRow] = []
        self.deal_hands: list[DealHandRow] = []
        self.tributes: list[TributeRow] = []
        self.rulings: list[RulingRow] = []

    def play(
        self,
        m: MatchState,
        d: DealState,
        seq: int,
        seat: str,
        cards: list[str],
        reading: tuple[Combo, str | None, bool],
        left_before: tuple[int, int, int, int],
        t: datetime | None,
    ) -> None:
        """The ``plays`` row of a play by ``seat``, before the trick takes it: ``reading`` is the
        combination the cards are taken as, its bomb class and whether the replay chose it among
        several; the seat's cards are already taken from its count."""
        chosen, bomb, inferred = reading
        left_e, left_n, left_w, left_s = left_before
        trick = d.trick
        table = trick.table
        counts = d.counts
        left = counts[seat]
        self.plays.add(
            m.match_id,
            d.no,
            trick.no,
            seq,
            trick.pos,
            table is None,
            seat,
            m.seats[seat],
            TEAM[seat],
            "play",
            list(cards),
            chosen.type,
            chosen.rank,
            chosen.size,
            bomb,
            cards.count(d.wild),
            inferred,
            table.type if table else None,
            table.rank if table else None,
            trick.table_seat,
            left_e,
            left_n,
            left_w,
            left_s,
            left,
            _opp_min_left(counts, seat),
            trick.table_seat == PARTNER[seat],
            None,
            left == 0,
            t,
        )

    def pass_(
        self, m: MatchState, d: DealState, seq: int, seat: str, could_beat: bool | None, t: datetime | None
    ) -> None:
        """The ``plays`` row of a pass by ``seat`` (``could_beat``: None when its hand is unknown)."""
        trick = d.trick
        table = trick.table
        assert table is not None
        counts = d.counts
        self.plays.add(
            m.match_id,
            d.no,
            trick.no,
            seq,
            trick.pos,
            False,
            seat,
            m.seats[seat],
            TEAM[seat],
            "pass",
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            table.type,
            table.rank,
            trick.table_seat,
            counts["E"],
            counts["N"],
            counts["W"],
            counts["S"],
            counts[seat],
            _opp_min_left(counts, seat),
            None,
            could_beat,
            False,
            t,
        )

    def deal(self, m: MatchState, d: DealState, tp: TributePhase, r: DealResult, t: datetime | None) -> None:
        """The ``deals`` row, the four ``deal_hands`` rows and the ``tributes`` rows of a finished deal;
        ``m.levels`` are the levels after it."""
        after = m.levels
        before = r.levels_before
        order = r.order
        ro = d.results_only  # no play: its counts are unknown, not 0 (docs/event-extensions.md)
        self.deals.append(
            DealRow(
                match_id=m.match_id,
                deal_no=d.no,
                rules=m.rules,
                level=d.level,
                declarers=d.declarers,
                level_EW_before=before["EW"],
                level_NS_before=before["NS"],
                level_EW_after=after["EW"],
                level_NS_after=after["NS"],
                tribute_kind=d.tribute_kind if ro else tp.kind,
                leader=d.leader,
                finish_order=order,
                winning_team=r.winner,
                level_gain=r.gain,
                double_win=r.double,
                a_attempt=r.a_attempt,
                a_passed=r.a_passed,
                a_failed=r.a_failed,
                foul=d.foul_team is not None,
                extra_deal=d.extra_deal,
                tricks=None if ro else d.trick.no if d.trick.table else d.trick.no - 1,
                jie_feng=None if ro else d.jie_feng,
                bombs_EW=None if ro else d.bombs["E"] + d.bombs["W"],
                bombs_NS=None if ro else d.bombs["N"] + d.bombs["S"],
                plays=None if ro else d.plays,
                passes=None if ro else d.passes,
                started_at=d.started_at,
                ended_at=t,
            )
        )
        for seat in SEATS:
            cards = d.dealt[seat]
            features: tuple[int | None, int | None, int | None, int | None, int | None, int | None] = (
                hand_features(cards, d.level) if cards is not None else _UNKNOWN_HAND
            )
            self.deal_hands.append(
                DealHandRow(
                    m.match_id,
                    d.no,
                    seat,
                    m.seats[seat],
                    TEAM[seat],
                    cards,
                    *features,
                    order.index(seat) + 1 if seat in order else None,
                    None if ro else d.bombs[seat],
                )
            )
        self._tributes(m, d, tp)

    def _tributes(self, m: MatchState, d: DealState, tp: TributePhase) -> None:
        """One row per tribute paid, or per would-be tributer of a resisted tribute."""
        seats = m.seats
        if tp.anti_seats is not None:
            for giver in tp.givers:
                self.tributes.append(
                    TributeRow(
                        kind="anti",
                        giver=giver,
                        receiver=None,
                        card=None,
                        return_card=None,
                        equal_double=None,
                        anti_seats=tp.anti_seats,
                        match_id=m.match_id,
                        deal_no=d.no,
                        level=d.level,
                        giver_player=seats.get(giver),
                        receiver_player=None,
                    )
                )
            return
        equal = tp.equal_double()
        for p in tp.payments:
            self.tributes.append(
                TributeRow(
                    kind=tp.due,
                    giver=p.giver,
                    receiver=p.receiver,
                    card=p.card,
                    return_card=p.return_card,
                    equal_double=equal,
                    anti_seats=None,
                    match_id=m.match_id,
                    deal_no=d.no,
                    level=d.level,
                    giver_player=seats.get(p.giver),
                    receiver_player=seats.get(p.receiver),
                )
            )

    def ruling(
        self,
        m: MatchState,
        ev: dict[str, Any],
        seq: int,
        deal_no: int | None,
        team: str | None,
        t: datetime | None,
    ) -> None:
        """The ``rulings`` row of a well-formed ruling against ``team`` (``replay.penalties``)."""
        seat = ev.get("seat")
        points = ev.get("points") or {}
        levels = ev.get("levels") or {}
        self.rulings.append(
            RulingRow(
                match_id=m.match_id,
                seq=seq,
                deal_no=deal_no,
                kind=ev["kind"],
                seat=seat,
                team=team,
                player_id=m.seats[seat] if seat else None,
                level_points=points.get("level_points"),
                match_points=points.get("match_points"),
                level_EW=normalise_level(levels.get("EW")),
                level_NS=normalise_level(levels.get("NS")),
                note=ev.get("note"),
                t=t,
            )
        )

    def finish(self, match: MatchRow, m: MatchState) -> ReplayRows:
        """Every row of a valid or partial match, with its ``matches`` row."""
        tables: dict[str, Sequence[Row]] = {
            "matches": [match],
            "deals": self.deals,
            "deal_hands": self.deal_hands,
            "tributes": self.tributes,
            "player_matches": player_rows(m, match, self.deals),
            "rulings": self.rulings,
        }
        return ReplayRows(tables, self.plays)
