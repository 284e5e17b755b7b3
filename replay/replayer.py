"""Replay one match's events through the rules and derive its rows (events.md, rules.md §5–§8).

``replay_match`` sorts the events by ``seq``, checks framing (duplicate or missing ``seq``), the
fields of each event, then every event against the full deal and match state. The first fault
stops the replay: the match is ``invalid`` with that event's seq, code and message. A match whose
logs lack a seat's hand is replayed with the checks that remain and marked ``partial``.

Reading policy (events.md): a declared ``combo`` must be one of the cards' readings; without one,
a follower's play takes the weakest reading that beats the table and a lead the strongest reading
(by ``replay.combos.sort_key``), and the play is marked ``reading_inferred`` when there was a choice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from replay.beating import HandShape
from replay.cards import CARDS, is_card
from replay.combos import Combo, beats, bomb_class, readings
from replay.errors import ErrorCode, ReplayError
from replay.events import LEVEL_INDEX, RULING_KINDS, SEATS, TEAMS, check_event, normalise_level, parse_time
from replay.features import hand_features
from replay.moves import can_beat
from replay.rulesets import BUILTIN, Ruleset
from replay.state import (
    HAND_SIZE,
    OTHER_TEAM,
    PARTNER,
    TEAM,
    TEAM_SEATS,
    DealState,
    MatchState,
    Trick,
    finish_gain,
    level_up,
)
from replay.summary import level_winner, match_row, player_rows
from replay.tribute import TributePhase

TABLES = ("matches", "deals", "deal_hands", "plays", "tributes", "player_matches", "rulings")
"""Row lists a :class:`MatchReplay` holds, one per derived table of ``schemas.tables.DERIVED``."""


@dataclass(slots=True)
class MatchReplay:
    """The outcome of replaying one match: status, first error and the derived rows by table.

    For an invalid match only ``rows["matches"]`` is filled (one row with the error).
    """

    match_id: str
    status: str
    error: ReplayError | None
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        """True for ``valid`` and ``partial`` matches."""
        return self.status != "invalid"


class _Fault(Exception):
    """Raised inside the replay to stop at the first offending event."""

    def __init__(self, error: ReplayError) -> None:
        super().__init__(error.message)
        self.error = error


def _fail(seq: int | None, code: ErrorCode, message: str) -> _Fault:
    return _Fault(ReplayError(seq, code, message))


def _seq_key(ev: dict[str, Any]) -> int:
    return ev["seq"]


class _Replayer:
    """The state machine of one match: phases start → between ⇄ (tribute → play → deal_over) → ended."""

    def __init__(self, rulesets: Mapping[str, Ruleset]) -> None:
        self.rulesets = rulesets
        self.m: MatchState | None = None
        self.ruleset: Ruleset = BUILTIN["national"]
        self.deal: DealState | None = None
        self.tribute: TributePhase | None = None
        self.phase = "start"
        self.rows: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
        self.known: set[str] = set(SEATS)
        self.end: tuple[str | None, str | None, datetime | None] = (None, None, None)
        self.seq = 0
        self.t: datetime | None = None
        self.yellow: dict[str, int] = {}
        self.shapes: dict[str, HandShape] = {}
        """Per seat, the shape of its current hand (the ``could_beat`` shortcut), dropped when it plays."""
        self.handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "match_start": self._match_start,
            "deal_start": self._deal_start,
            "tribute": self._tribute,
            "anti_tribute": self._anti_tribute,
            "return": self._return,
            "play": self._play,
            "pass": self._pass,
            "report": self._report,
            "ruling": self._ruling,
            "deal_end": self._deal_end,
            "match_end": self._match_end,
        }

    # ---- driver ---------------------------------------------------------------------------------

    def run(self, events: list[dict[str, Any]]) -> MatchReplay:
        match_id = next((e["match"] for e in events if isinstance(e.get("match"), str)), "")
        error: ReplayError | None = None
        try:
            self._replay(events)
        except _Fault as fault:
            error = fault.error
        status = "invalid" if error is not None else "partial" if self.known != set(SEATS) else "valid"
        known = [s for s in SEATS if s in self.known]
        row = match_row(match_id, self.m, status, error, known, self.end, len(events))
        if error is not None:
            return MatchReplay(match_id, status, error, {"matches": [row]})
        assert self.m is not None
        self.rows["matches"] = [row]
        self.rows["player_matches"] = player_rows(self.m, row, self.rows["deals"])
        return MatchReplay(match_id, status, None, self.rows)

    def _replay(self, events: list[dict[str, Any]]) -> None:
        for ev in events:
            seq = ev.get("seq")
            if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
                raise _fail(
                    None, ErrorCode.MALFORMED_FIELD, f"`seq` must be a non-negative integer, got {seq!r}"
                )
        expected = 0
        for ev in sorted(events, key=_seq_key):
            seq = ev["seq"]
            if seq == expected - 1:
                raise _fail(seq, ErrorCode.DUPLICATE_SEQ, f"seq {seq} occurs more than once")
            if seq != expected:
                raise _fail(expected, ErrorCode.MISSING_SEQ, f"seq {expected} is missing (next is {seq})")
            expected = seq + 1
            self.seq = seq
            bad = check_event(ev, check_time=False)
            if bad is not None:
                raise _Fault(bad)
            if self.phase == "ended":
                raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, f"{ev['type']} after match_end")
            t = ev.get("t")
            try:
                self.t = parse_time(t) if t is not None else None
            except ValueError:
                raise self._fail(
                    ErrorCode.MALFORMED_FIELD, f"`t` must be an RFC 3339 time with offset, got {t!r}"
                ) from None
            if self.t is not None and self.m is not None:
                self.m.last_time = self.t
            self.handlers[ev["type"]](ev)
        if self.phase != "ended":
            raise _fail(
                expected,
                ErrorCode.INCOMPLETE_MATCH,
                f"the stream ends at seq {expected - 1} without match_end",
            )

    def _fail(self, code: ErrorCode, message: str) -> _Fault:
        return _fail(self.seq, code, message)

    def _need_match(self, what: str) -> MatchState:
        if self.m is None:
            raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, f"{what} before match_start")
        return self.m

    # ---- match set-up -------------------------------------------------------------------------

    def _match_start(self, ev: dict[str, Any]) -> None:
        if self.m is not None:
            raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, "a second match_start")
        ruleset = self.rulesets.get(ev["rules"])
        if ruleset is None:
            raise self._fail(
                ErrorCode.UNKNOWN_RULESET,
                f"unknown ruleset {ev['rules']!r}; expected one of {', '.join(sorted(self.rulesets))}",
            )
        self.ruleset = ruleset
        fmt = ev.get("format") or {}
        kind = fmt.get("kind", ruleset.default_format.kind)
        same = kind == ruleset.default_format.kind
        deals = fmt.get("deals", ruleset.default_format.deals if same else None)
        minutes = fmt.get("minutes", ruleset.default_format.minutes if same else None)
        if kind in ("deals", "timed_deals") and deals is None:
            raise self._fail(ErrorCode.MALFORMED_FIELD, f"format {kind} needs `deals`")
        if kind in ("timed", "timed_deals") and minutes is None:
            raise self._fail(ErrorCode.MALFORMED_FIELD, f"format {kind} needs `minutes`")
        levels = {"EW": "2", "NS": "2"}
        for team, lv in (ev.get("start_levels") or {}).items():
            levels[team] = normalise_level(lv) or "2"
        self.m = MatchState(
            match_id=ev["match"],
            rules=ruleset.id,
            seats=dict(ev["seats"]),
            start=ev,
            started_at=self.t,
            levels=dict(levels),
            start_levels=dict(levels),
            format_kind=kind,
            format_deals=deals,
            format_minutes=minutes,
        )
        self.phase = "between"

    # ---- deals ------------------------------------------------------------------------------------

    def _deadline(self) -> datetime | None:
        m = self.m
        assert m is not None
        if m.format_kind not in ("timed", "timed_deals") or m.started_at is None or m.format_minutes is None:
            return None
        return m.started_at + timedelta(minutes=m.format_minutes)

    def _format_reasons(self, now: datetime | None) -> set[str]:
        """End reasons the round format allows now (rules.md §7), ignoring A and forfeits."""
        m = self.m
        assert m is not None
        reasons: set[str] = set()
        if m.format_kind in ("deals", "timed_deals") and m.format_deals and m.deals_played >= m.format_deals:
            reasons.add("deals")
        if m.format_kind in ("timed", "timed_deals"):
            deadline = self._deadline()
            if deadline is None or now is None or now >= deadline:
                reasons.add("time")
        return reasons

    def _deal_start(self, ev: dict[str, Any]) -> None:
        m = self._need_match("deal_start")
        if self.phase in ("tribute", "play"):
            raise self._fail(
                ErrorCode.DEAL_NOT_OVER,
                f"deal_start while deal {self.deal.no if self.deal else '?'} is still being played",
            )
        if self.phase == "deal_over":
            raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, "deal_start before the previous deal's deal_end")
        if self.phase == "match_over" or m.passed_a or m.lost_on_a:
            raise self._fail(
                ErrorCode.MATCH_ALREADY_OVER,
                "deal_start after the match was decided "
                f"({'passed A' if m.passed_a else 'A failures' if m.lost_on_a else 'forfeit'})",
            )
        reasons = self._format_reasons(self.t) if m.deals_played else set()
        if self.t is None or self._deadline() is None:
            reasons.discard("time")
        if reasons:
            if not self._extra_deal_due():
                raise self._fail(
                    ErrorCode.MATCH_ALREADY_OVER,
                    f"deal_start after the {m.format_kind} format "
                    f"ended the match (deals {m.deals_played}, rules.md §7)",
                )
            m.extra_deal = True
        no = ev["deal"]
        if no != m.deals_played + 1:
            raise self._fail(ErrorCode.MALFORMED_FIELD, f"deal number {no}; expected {m.deals_played + 1}")
        declarers = m.next_declarers
        if ev["declarers"] != declarers:
            raise self._fail(
                ErrorCode.WRONG_DECLARERS,
                f"declarers {ev['declarers']}; expected {declarers} "
                "(the previous deal's 1st team, rules.md §2)",
            )
        level = normalise_level(ev["level"])
        assert level is not None
        allowed = [m.levels[declarers]] if declarers else sorted({m.levels["EW"], m.levels["NS"]})
        if level not in allowed:
            raise self._fail(
                ErrorCode.WRONG_LEVEL,
                f"deal level {level}; expected {' or '.join(allowed)} (the declarers' level, rules.md §2)",
            )
        hands: dict[str, Counter[str] | None] = {}
        dealt: dict[str, list[str] | None] = {}
        deck: Counter[str] = Counter()
        for seat in SEATS:
            cards = ev["hands"].get(seat)
            if cards is None:
                hands[seat] = dealt[seat] = None
                self.known.discard(seat)
                continue
            if len(cards) != HAND_SIZE:
                raise self._fail(
                    ErrorCode.WRONG_HAND_SIZE, f"{seat}'s hand holds {len(cards)} cards; expected {HAND_SIZE}"
                )
            bad = [c for c in cards if not is_card(c)]
            if bad:
                raise self._fail(ErrorCode.BAD_DECK, f"{seat}'s hand holds {bad[0]!r}, not a card")
            hands[seat] = Counter(cards)
            dealt[seat] = list(cards)
            deck.update(cards)
        over = sorted(c for c, n in deck.items() if n > 2)
        if over:
            raise self._fail(
                ErrorCode.BAD_DECK,
                f"the hands hold {over[0]} {deck[over[0]]} times; two decks hold "
                "every card twice (rules.md §1)",
            )
        leader = ev.get("leader")
        if no == 1 and leader is None:
            raise self._fail(ErrorCode.MALFORMED_FIELD, "deal_start of the first deal needs `leader`")
        self.deal = DealState(
            no=no,
            level=level,
            declarers=declarers,
            seq=self.seq,
            hands=hands,
            dealt=dealt,
            counts=dict.fromkeys(SEATS, HAND_SIZE),
            claimed_leader=leader,
            started_at=self.t,
            levels_before=dict(m.levels),
        )
        due = "none" if no == 1 or m.prev_foul else "double" if m.prev_double_win else "single"
        self.tribute = TributePhase(self.ruleset, self.deal, due, m.prev_order)
        self.shapes = {}
        self.phase = "tribute"

    def _extra_deal_due(self) -> bool:
        """``extra_deal`` tie-break (rules.md §7): one more deal when the format ends level."""
        m = self.m
        assert m is not None
        return (
            self.ruleset.draw_breaker == "extra_deal" and not m.extra_deal and level_winner(m.levels) is None
        )

    # ---- tribute ----------------------------------------------------------------------------------

    def _in_tribute(self, what: str) -> TributePhase:
        self._need_match(what)
        if self.phase != "tribute" or self.tribute is None:
            raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, f"{what} outside a deal's tribute phase")
        return self.tribute

    def _check(self, error: ReplayError | None) -> None:
        if error is not None:
            raise _Fault(error)

    def _tribute(self, ev: dict[str, Any]) -> None:
        self._check(self._in_tribute("tribute").on_tribute(self.seq, ev["from"], ev["to"], ev["card"]))

    def _anti_tribute(self, ev: dict[str, Any]) -> None:
        self._check(self._in_tribute("anti_tribute").on_anti(self.seq, ev["seats"]))

    def _return(self, ev: dict[str, Any]) -> None:
        self._check(self._in_tribute("return").on_return(self.seq, ev["from"], ev["to"], ev["card"]))

    # ---- play -------------------------------------------------------------------------------------

    def _start_play(self, seat: str) -> None:
        """First action of a deal: tribute phase complete, then the leader rules.md §5/§6 names."""
        m, d, tp = self.m, self.deal, self.tribute
        assert m is not None and d is not None and tp is not None
        self._check(tp.check_complete(self.seq))
        allowed = tp.leaders()
        if not allowed:
            allowed = (d.claimed_leader,) if d.no == 1 else TEAM_SEATS[m.prev_winner or "EW"]
        claimed = d.claimed_leader
        if claimed is not None and claimed not in allowed:
            raise _fail(
                d.seq,
                ErrorCode.WRONG_LEADER,
                f"deal_start names leader {claimed}; expected "
                f"{' or '.join(a for a in allowed if a)} (rules.md §5/§6)",
            )
        leader = claimed or (seat if seat in allowed else allowed[0])
        if seat != leader:
            raise self._fail(
                ErrorCode.WRONG_LEADER,
                f"first play of deal {d.no} by {seat}; expected the leader {leader} (rules.md §5/§6)",
            )
        d.leader = d.turn = leader
        d.tribute_kind = tp.kind
        self.phase = "play"

    def _in_play(self, ev: dict[str, Any]) -> DealState:
        self._need_match(ev["type"])
        if self.phase == "tribute":
            self._start_play(ev["seat"])
        elif self.phase != "play":
            where = "after the deal ended" if self.phase == "deal_over" else "outside a deal"
            raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, f"{ev['type']} {where}")
        d = self.deal
        assert d is not None
        seat = ev["seat"]
        if seat != d.turn:
            why = " (out of cards)" if d.counts[seat] == 0 else ""
            raise self._fail(
                ErrorCode.OUT_OF_TURN,
                f"{ev['type']} by {seat}{why}; it is {d.turn}'s turn "
                "(E → N → W → S, skipping seats that are out, rules.md §5)",
            )
        return d

    def _row(self, d: DealState, ev: dict[str, Any], seat: str) -> dict[str, Any]:
        m = self.m
        assert m is not None
        trick = d.trick
        table = trick.table
        counts = d.counts
        a, b = _OPPONENTS[seat]
        ca, cb = counts[a], counts[b]
        return {
            "match_id": m.match_id,
            "deal_no": d.no,
            "trick_no": trick.no,
            "seq": self.seq,
            "pos_in_trick": trick.pos,
            "is_lead": table is None,
            "seat": seat,
            "player_id": m.seats[seat],
            "team": TEAM[seat],
            "action": ev["type"],
            "table_combo_type": table.type if table else None,
            "table_combo_rank": table.rank if table else None,
            "table_seat": trick.table_seat,
            "left_E": counts["E"],
            "left_N": counts["N"],
            "left_W": counts["W"],
            "left_S": counts["S"],
            "opp_min_left": (min(ca, cb) if ca and cb else ca or cb or None),
            "t": self.t,
        }

    def _play(self, ev: dict[str, Any]) -> None:
        d = self._in_play(ev)
        seat, cards = ev["seat"], ev["cards"]
        hand = d.hands[seat]
        if hand is None or any(hand.get(c, 0) == 0 for c in cards):
            bad = [c for c in cards if c not in _CARD_SET]
            if bad:
                raise self._fail(ErrorCode.MALFORMED_FIELD, f"play by {seat}: {bad[0]!r} is not a card")
        if len(cards) > d.counts[seat]:
            raise self._fail(
                ErrorCode.CARD_NOT_IN_HAND, f"{seat} plays {len(cards)} cards but holds {d.counts[seat]}"
            )
        if hand is not None:
            missing = (
                [c for c, n in Counter(cards).items() if hand.get(c, 0) < n]
                if len(cards) > 1
                else (cards if hand.get(cards[0], 0) == 0 else [])
            )
            if missing:
                raise self._fail(ErrorCode.CARD_NOT_IN_HAND, f"{seat} plays {' '.join(missing)}, not in hand")
        level = d.level
        options = _readings(cards, level)
        if not self.ruleset.full_house_joker_pair:
            options = [r for r in options if not (r.type == "full_house" and _joker_pair(cards))]
        if not options:
            raise self._fail(
                ErrorCode.NOT_A_COMBINATION,
                f"{' '.join(cards)} is no combination at level {level} (rules.md §3)",
            )
        table = d.trick.table
        declared = ev.get("combo")
        if declared is not None:
            chosen = next(
                (r for r in options if r.type == declared["type"] and r.rank == declared["rank"]), None
            )
            if chosen is None:
                found = ", ".join(f"{r.type} {r.rank}" for r in options)
                raise self._fail(
                    ErrorCode.BAD_READING,
                    f"declared {declared['type']} {declared['rank']} is not a "
                    f"reading of {' '.join(cards)}; readings: {found}",
                )
            if table is not None and not beats(chosen, table, level):
                raise self._fail(ErrorCode.DOES_NOT_BEAT, f"{chosen} does not beat {table} (rules.md §4)")
        elif table is not None:
            chosen = next((r for r in options if beats(r, table, level)), None)
            if chosen is None:
                raise self._fail(
                    ErrorCode.DOES_NOT_BEAT,
                    f"{' '.join(cards)} ({options[-1]}) does not beat {table} (rules.md §4)",
                )
        else:
            chosen = options[-1]
        row = self._row(d, ev, seat)
        if hand is not None:
            for c in cards:
                left = hand[c] - 1
                if left:
                    hand[c] = left
                else:
                    del hand[c]
        d.counts[seat] -= len(cards)
        self.shapes.pop(seat, None)
        bc = bomb_class(chosen)
        if bc is not None:
            d.bombs[seat] += 1
        d.plays += 1
        went_out = d.counts[seat] == 0
        row.update(
            cards=list(cards),
            combo_type=chosen.type,
            combo_rank=chosen.rank,
            combo_size=chosen.size,
            bomb_class=bc,
            wilds_used=cards.count("H" + level),
            reading_inferred=declared is None and len(options) > 1,
            left_after=d.counts[seat],
            overtook_partner=d.trick.table_seat == PARTNER[seat],
            could_beat=None,
            went_out=went_out,
        )
        self.rows["plays"].append(row)
        trick = d.trick
        trick.table, trick.table_seat, trick.passes = chosen, seat, 0
        trick.pos += 1
        if went_out:
            d.out.append(seat)
            out = d.out
            if len(out) == 3 or (len(out) == 2 and TEAM[out[0]] == TEAM[out[1]]):
                d.over = True
                d.turn = None
                self.phase = "deal_over"
                return
        d.turn = d.next_active(seat)

    def _pass(self, ev: dict[str, Any]) -> None:
        d = self._in_play(ev)
        seat = ev["seat"]
        trick = d.trick
        table = trick.table
        if table is None:
            raise self._fail(ErrorCode.PASS_ON_LEAD, f"{seat} passes but must lead (rules.md §5)")
        hand = d.hands[seat]
        row = self._row(d, ev, seat)
        could = None
        if hand is not None:
            if bomb_class(table) is None:
                shape = self.shapes.get(seat)
                if shape is None:
                    shape = self.shapes[seat] = HandShape(hand, d.level)
                if shape.surely_beats(table, d.level):
                    could = True
            if could is None:
                could = can_beat(
                    list(hand.elements()),
                    d.level,
                    table,
                    full_house_joker_pair=self.ruleset.full_house_joker_pair,
                )
        row.update(
            cards=None,
            combo_type=None,
            combo_rank=None,
            combo_size=None,
            bomb_class=None,
            wilds_used=None,
            reading_inferred=None,
            left_after=d.counts[seat],
            overtook_partner=None,
            could_beat=could,
            went_out=False,
        )
        self.rows["plays"].append(row)
        d.passes += 1
        trick.passes += 1
        trick.pos += 1
        winner = trick.table_seat
        assert winner is not None
        others = 4 - len(d.out) - (d.counts[winner] > 0)
        if trick.passes < others:
            d.turn = d.next_active(seat)
            return
        if d.counts[winner] == 0:
            d.jie_feng += 1
            winner = PARTNER[winner]
        d.trick = Trick(no=trick.no + 1)
        d.turn = winner

    def _report(self, ev: dict[str, Any]) -> None:
        self._need_match("report")

    # ---- rulings ----------------------------------------------------------------------------------

    def _ruling(self, ev: dict[str, Any]) -> None:
        m = self._need_match("ruling")
        kind = ev["kind"]
        if kind not in RULING_KINDS:
            raise self._fail(
                ErrorCode.BAD_RULING,
                f"unknown ruling kind {kind!r}; expected one of {', '.join(sorted(RULING_KINDS))}",
            )
        seat, team = ev.get("seat"), ev.get("team")
        if seat is not None and seat not in SEATS:
            raise self._fail(ErrorCode.BAD_RULING, f"ruling seat {seat!r} is not E, N, W or S")
        if team is not None and team not in TEAMS:
            raise self._fail(ErrorCode.BAD_RULING, f"ruling team {team!r} is not EW or NS")
        side = team or (TEAM[seat] if seat else None)
        if side is None and kind in ("foul", "red_card", "forfeit_match", "deduction", "yellow_card"):
            raise self._fail(ErrorCode.BAD_RULING, f"a {kind} ruling needs `seat` or `team`")
        levels = ev.get("levels")
        if kind == "level_adjust" and not levels:
            raise self._fail(ErrorCode.BAD_RULING, "a level_adjust ruling needs `levels`")
        points = ev.get("points") or {}
        d = self.deal if self.phase in ("tribute", "play", "deal_over") else None
        self.rows["rulings"].append(
            {
                "match_id": m.match_id,
                "seq": self.seq,
                "deal_no": d.no if d else None,
                "kind": kind,
                "seat": seat,
                "team": side,
                "player_id": m.seats[seat] if seat else None,
                "level_points": points.get("level_points"),
                "match_points": points.get("match_points"),
                "level_EW": normalise_level((levels or {}).get("EW")),
                "level_NS": normalise_level((levels or {}).get("NS")),
                "note": ev.get("note"),
                "t": self.t,
            }
        )
        if kind == "foul":
            if self.phase not in ("tribute", "play") or self.deal is None:
                raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, "a foul ruling outside a deal in play")
            self.deal.foul_team = side
            self.deal.over = True
            self.phase = "deal_over"
        elif kind in ("red_card", "forfeit_match") or (
            kind == "yellow_card" and self._third_yellow(seat, side)
        ):
            m.forfeited_by = m.forfeited_by or side
            self.phase = "match_over"
        elif kind == "level_adjust":
            for tm, lv in (levels or {}).items():
                m.levels[tm] = normalise_level(lv) or m.levels[tm]

    def _third_yellow(self, seat: str | None, team: str | None) -> bool:
        """A player's third yellow card in a round is a red card: the round is lost (rules.md §8 bcta)."""
        key = seat or team or ""
        self.yellow[key] = self.yellow.get(key, 0) + 1
        return self.yellow[key] >= 3

    # ---- results ----------------------------------------------------------------------------------

    def _deal_end(self, ev: dict[str, Any]) -> None:
        m = self._need_match("deal_end")
        d = self.deal
        if self.phase in ("tribute", "play"):
            raise self._fail(
                ErrorCode.DEAL_NOT_OVER,
                f"deal_end while deal {d.no if d else '?'} is still being "
                f"played (out so far: {', '.join(d.out) if d else ''})",
            )
        if self.phase != "deal_over" or d is None:
            raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, "deal_end outside a deal")
        order = self._finish_order(d, ev["order"])
        winner = TEAM[order[0]]
        double = d.foul_team is not None or len(d.out) == 2
        gain = 3 if double else finish_gain(order)
        before = dict(m.levels)
        after = dict(before)
        max_level = self.ruleset.max_level
        after[winner] = level_up(before[winner], gain, max_level)
        real_gain = LEVEL_INDEX[after[winner]] - LEVEL_INDEX[before[winner]]
        a_attempt, a_passed, a_failed = self._a_result(d, order, double, after)
        reported = ev.get("levels")
        if reported is not None:
            for team, lv in reported.items():
                if normalise_level(lv) != after[team]:
                    raise self._fail(
                        ErrorCode.WRONG_LEVELS,
                        f"deal_end levels {reported}; derived "
                        f"{{'EW': {after['EW']!r}, 'NS': {after['NS']!r}}} (rules.md §5.8, §7)",
                    )
        m.levels = after
        self._emit_deal(d, order, winner, real_gain, double, (a_attempt, a_passed, a_failed), before)
        m.deals_played += 1
        m.prev_order = order
        m.prev_double_win = double
        m.prev_foul = d.foul_team is not None
        m.prev_winner = winner
        m.next_declarers = winner
        m.last_declarers = d.declarers
        self.phase = "between"

    def _finish_order(self, d: DealState, logged: list[str]) -> list[str]:
        """Check ``deal_end.order`` against the play; return the order to record (rules.md §5.5–§5.7)."""
        if d.foul_team is not None:
            winners = set(TEAM_SEATS[OTHER_TEAM[d.foul_team]])
            if len(logged) < 2 or set(logged[:2]) != winners:
                raise self._fail(
                    ErrorCode.WRONG_FINISH_ORDER,
                    f"order {logged}; after {d.foul_team}'s foul the "
                    f"deal is a double win for {OTHER_TEAM[d.foul_team]} (rules.md §8)",
                )
            return list(logged)
        out = d.out
        rest = [s for s in SEATS if s not in out]
        derived = out + rest if len(out) == 3 else list(out)
        need = len(out)
        ok = len(logged) >= need and logged[:need] == out
        if ok and len(out) == 3 and len(logged) == 4:
            ok = logged[3] == rest[0]
        if not ok:
            tail = " (then the other two in any order)" if len(out) == 2 else ""
            raise self._fail(ErrorCode.WRONG_FINISH_ORDER, f"order {logged}; the play gives {derived}{tail}")
        return list(logged) if len(logged) == 4 else derived

    def _a_result(
        self, d: DealState, order: list[str], double: bool, after: dict[str, str]
    ) -> tuple[bool, bool, bool]:
        """Passing A and failures at A (rules.md §7, §10) for the deal's declarers; updates ``after``."""
        m = self.m
        assert m is not None
        rule = self.ruleset.a
        team = d.declarers
        top = self.ruleset.max_level
        if team is None or d.level != top or d.levels_before[team] != top:
            return False, False, False
        first = TEAM[order[0]] == team
        partner = PARTNER[order[0]]
        pos = 2 if double else order.index(partner) + 1 if partner in order else 4
        passed = first and (pos == 2 if rule.pass_rule == "first_and_second" else pos != 4)
        if passed:
            m.passed_a = team
            return True, True, False
        counts = rule.failure_counts == "any_unpassed" or (first and pos == 4)
        if counts:
            m.a_failures[team] += 1
            if rule.failure_limit is not None and m.a_failures[team] >= rule.failure_limit:
                if rule.failure_action == "lose_round":
                    m.lost_on_a = team
                elif rule.failure_action == "back_to_two":
                    after[team] = "2"
                    m.a_failures[team] = 0
        return True, False, True

    def _emit_deal(
        self,
        d: DealState,
        order: list[str],
        winner: str,
        gain: int,
        double: bool,
        a: tuple[bool, bool, bool],
        before: dict[str, str],
    ) -> None:
        m = self.m
        assert m is not None and self.tribute is not None
        after = m.levels
        self.rows["deals"].append(
            {
                "match_id": m.match_id,
                "deal_no": d.no,
                "rules": m.rules,
                "level": d.level,
                "declarers": d.declarers,
                "level_EW_before": before["EW"],
                "level_NS_before": before["NS"],
                "level_EW_after": after["EW"],
                "level_NS_after": after["NS"],
                "tribute_kind": self.tribute.kind,
                "leader": d.leader,
                "finish_order": order,
                "winning_team": winner,
                "level_gain": gain,
                "double_win": double,
                "a_attempt": a[0],
                "a_passed": a[1],
                "a_failed": a[2],
                "foul": d.foul_team is not None,
                "tricks": d.trick.no if d.trick.table else d.trick.no - 1,
                "jie_feng": d.jie_feng,
                "bombs_EW": d.bombs["E"] + d.bombs["W"],
                "bombs_NS": d.bombs["N"] + d.bombs["S"],
                "plays": d.plays,
                "passes": d.passes,
                "started_at": d.started_at,
                "ended_at": self.t,
            }
        )
        for seat in SEATS:
            cards = d.dealt[seat]
            feats = hand_features(cards, d.level) if cards is not None else dict.fromkeys(_FEATURES)
            self.rows["deal_hands"].append(
                {
                    "match_id": m.match_id,
                    "deal_no": d.no,
                    "seat": seat,
                    "player_id": m.seats[seat],
                    "team": TEAM[seat],
                    "hand": cards,
                    **feats,
                    "finish_position": order.index(seat) + 1 if seat in order else None,
                    "bombs_played": d.bombs[seat],
                }
            )
        for r in self.tribute.rows():
            r.update(
                match_id=m.match_id,
                deal_no=d.no,
                level=d.level,
                giver_player=m.seats.get(r["giver"]) if r["giver"] else None,
                receiver_player=m.seats.get(r["receiver"]) if r["receiver"] else None,
            )
            self.rows["tributes"].append(r)

    def _match_end(self, ev: dict[str, Any]) -> None:
        m = self._need_match("match_end")
        reason = ev["reason"]
        if self.phase in ("tribute", "play", "deal_over") and reason != "abandoned":
            raise self._fail(
                ErrorCode.DEAL_NOT_OVER,
                f"match_end ({reason}) while deal {self.deal.no if self.deal else '?'} is not finished",
            )
        if m.forfeited_by:
            reasons, winner = {"forfeit"}, OTHER_TEAM[m.forfeited_by]
        elif m.lost_on_a:
            reasons, winner = {"a_failures"}, OTHER_TEAM[m.lost_on_a]
        elif m.passed_a:
            reasons, winner = {"passed_a"}, m.passed_a
        else:
            reasons = self._format_reasons(self.t or m.last_time)
            winner = level_winner(m.levels)
            if reasons and winner is None:
                if self._extra_deal_due():
                    raise self._fail(
                        ErrorCode.MATCH_NOT_OVER, "levels are equal: one extra deal is due (rules.md §7)"
                    )
                if m.extra_deal:
                    winner = m.prev_winner
                elif self.ruleset.draw_breaker == "declarers":
                    winner = m.last_declarers or m.prev_winner
        if reason == "abandoned":
            winner = None
        elif not reasons:
            raise self._fail(
                ErrorCode.MATCH_NOT_OVER,
                f"match_end ({reason}) but the {m.format_kind} format goes "
                f"on after {m.deals_played} deals (rules.md §7)",
            )
        elif reason not in reasons:
            raise self._fail(
                ErrorCode.WRONG_MATCH_RESULT,
                f"match_end reason {reason}; derived {' or '.join(sorted(reasons))}",
            )
        if "winner" in ev and ev["winner"] != winner:
            raise self._fail(
                ErrorCode.WRONG_MATCH_RESULT, f"match_end winner {ev['winner']}; derived {winner}"
            )
        reported = ev.get("levels")
        if reported is not None and any(normalise_level(lv) != m.levels[t] for t, lv in reported.items()):
            raise self._fail(ErrorCode.WRONG_LEVELS, f"match_end levels {reported}; derived {m.levels}")
        self.end = (reason, winner, self.t)
        self.phase = "ended"


_CARD_SET = frozenset(CARDS)
_OPPONENTS: dict[str, tuple[str, str]] = {s: TEAM_SEATS[OTHER_TEAM[TEAM[s]]] for s in SEATS}

_READINGS: dict[tuple[tuple[str, ...], str], list[Combo]] = {}


def _readings(cards: list[str], level: str) -> list[Combo]:
    """``replay.combos.readings`` memoised by the sorted cards (plays repeat a lot across deals)."""
    key = (tuple(sorted(cards)), level)
    hit = _READINGS.get(key)
    if hit is None:
        if len(_READINGS) > 200_000:
            _READINGS.clear()
        hit = _READINGS[key] = readings(cards, level)
    return hit


_FEATURES = ("jokers", "big_jokers", "wilds", "level_cards", "natural_bombs", "straight_flush_chances")


def _joker_pair(cards: list[str]) -> bool:
    return cards.count("SB") == 2 or cards.count("HR") == 2


def replay_match(events: list[dict[str, Any]], rulesets: Mapping[str, Ruleset] | None = None) -> MatchReplay:
    """Replay the parsed events of one match (any order; sorted by ``seq``) and derive its rows.

    ``rulesets`` maps ruleset ids to rulesets (default: the built-in ones, ``replay.rulesets.BUILTIN``).
    Pure: no I/O. A stream without ``match_end`` is invalid with ``incomplete_match``.
    """
    return _Replayer(rulesets or BUILTIN).run(events)
