"""Replay one match's events through the rules and derive its rows (events.md, rules.md §5–§8).

``replay_match`` sorts the events by ``seq``, checks framing (duplicate or missing ``seq``), the
fields of each event, then every event against the full deal and match state. The first fault
stops the replay: the match is ``invalid`` with that event's seq, code and message. A match whose
logs lack a seat's hand is replayed with the checks that remain and marked ``partial``.

Reading policy (events.md): a declared ``combo`` must be one of the cards' readings; without one,
a follower's play takes the weakest reading that beats the table and a lead the strongest reading
(by ``replay.combos.sort_key``), and the play is marked ``reading_inferred`` when there was a choice
(``replay.reading``).

This module is the state machine of a match; what a ruling costs is ``replay.penalties``, the rows
it derives are built by ``replay.output`` (typed as ``replay.rows``).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from replay import native
from replay.dealing import open_deal
from replay.errors import ErrorCode, ReplayError
from replay.events import LEVELS, check_event, normalise_level, parse_time
from replay.faults import Fault, fault
from replay.finish import end_results_only, finish_order
from replay.outcome import extra_deal_due, level_outcome, level_winner, round_winner
from replay.output import DealResult, MatchRows
from replay.penalties import Penalties, ruled_side, ruling_fault
from replay.play import PlayPhase
from replay.rows import ReplayRows
from replay.rulesets import BUILTIN, Ruleset
from replay.state import DealState, MatchState
from replay.summary import MatchEnd, match_row
from replay.tribute import TributePhase
from schemas.vocabulary import OTHER_TEAM, SEATS, TEAM, TEAMS


@dataclass(slots=True)
class MatchReplay:
    """The outcome of replaying one match: status, first error and the derived rows by table.

    For an invalid match only ``rows["matches"]`` is filled (one row with the error).
    """

    match_id: str
    status: str
    error: ReplayError | None
    rows: ReplayRows

    @property
    def valid(self) -> bool:
        """True for ``valid`` and ``partial`` matches."""
        return self.status != "invalid"


def _fast_check() -> Callable[[dict[str, Any]], bool] | None:
    """``replay._replay.well_formed`` where the Cython module is built and in use
    (``replay.native.core``): ``play`` and ``pass`` events, nine in ten, are checked without
    ``check_event``'s lookups of the event type's rules; anything it does not pass goes to
    ``check_event``."""
    module = native.core("_replay")
    if module is None:
        return None
    check: Callable[[dict[str, Any]], bool] = module.well_formed
    return check


_WELL_FORMED = _fast_check()


def _seq_key(ev: dict[str, Any]) -> int:
    seq: int = ev["seq"]
    return seq


def _in_seq_order(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], Fault | None]:
    """The events in ``seq`` order, cut before the first framing fault (events.md "Framing"),
    and that fault: a duplicate or missing ``seq`` is reported once the events before it replay.

    A ``seq`` that is not a non-negative integer is a fault at once. Logs are nearly always
    written in order, so events already numbered 0, 1, 2, … are taken as they are.
    """
    seqs: list[Any] = [ev.get("seq") for ev in events]
    if set(map(type, seqs)) != {int} or min(seqs) < 0:
        for seq in seqs:
            if type(seq) is not int or seq < 0:
                raise fault(
                    None, ErrorCode.MALFORMED_FIELD, f"`seq` must be a non-negative integer, got {seq!r}"
                )
    if seqs == list(range(len(seqs))):
        return events, None
    ordered = sorted(events, key=_seq_key)
    for expected, ev in enumerate(ordered):
        seq = ev["seq"]
        if seq != expected:
            if seq == expected - 1:
                gap = fault(seq, ErrorCode.DUPLICATE_SEQ, f"seq {seq} occurs more than once")
            else:
                gap = fault(expected, ErrorCode.MISSING_SEQ, f"seq {expected} is missing (next is {seq})")
            return ordered[:expected], gap
    return ordered, None


class _Replayer:
    """The state machine of one match: phases start → between ⇄ (tribute → play → deal_over) → ended."""

    def __init__(self, rulesets: Mapping[str, Ruleset]) -> None:
        self.rulesets = rulesets
        self.m: MatchState | None = None
        self.ruleset: Ruleset = BUILTIN["national"]
        self.deal: DealState | None = None
        self.tribute: TributePhase | None = None
        self.phase = "start"
        self.out = MatchRows()
        self.penalties = Penalties(self.ruleset)
        self.known: set[str] = set(SEATS)
        self.end: MatchEnd = (None, None, None)
        self.seq = 0
        self.t: datetime | None = None
        self.playing: PlayPhase | None = None
        self.results_only_deals = 0
        """Deals ended as results-only deals (docs/event-extensions.md)."""
        self.played_deals = 0
        """Deals ended otherwise (played, or forfeited with hands shown)."""

    # ---- driver ---------------------------------------------------------------------------------

    def run(self, events: list[dict[str, Any]]) -> MatchReplay:
        match_id = next((e["match"] for e in events if isinstance(e.get("match"), str)), "")
        error: ReplayError | None = None
        try:
            self._replay(events, match_id)
        except Fault as stop:
            error = stop.error
        if error is not None:
            status = "invalid"
        elif self._results_only():
            status = "results_only"
        else:
            status = "partial" if self.known != set(SEATS) else "valid"
        known = [s for s in SEATS if s in self.known]
        row = match_row(match_id, self.m, status, error, known, self.end, len(events))
        if error is not None:
            return MatchReplay(match_id, status, error, ReplayRows({"matches": [row]}))
        assert self.m is not None
        return MatchReplay(match_id, status, None, self.out.finish(row, self.m))

    def _results_only(self) -> bool:
        """Whether every deal of the match, including one a forfeit cut short, is results-only."""
        ro, played = self.results_only_deals, self.played_deals
        d = self.deal
        unfinished = self.phase in ("tribute", "play", "deal_over", "match_over")
        if d is not None and unfinished and d.no > ro + played:
            ro, played = ro + d.results_only, played + (not d.results_only)
        return ro > 0 and played == 0

    def _replay(self, events: list[dict[str, Any]], match_id: str) -> None:
        ordered, framing = _in_seq_order(events)
        handlers = _HANDLERS
        well_formed = _WELL_FORMED
        for seq, ev in enumerate(ordered):
            self.seq = seq
            if well_formed is None or not well_formed(ev):
                bad = check_event(ev, check_time=False)
                if bad is not None:
                    raise Fault(bad)
            if ev.get("match") != match_id:
                raise self._fail(
                    ErrorCode.MALFORMED_FIELD,
                    f"`match` must be this stream's match id {match_id!r}, got {ev.get('match')!r}",
                )
            if self.phase == "ended":
                raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, f"{ev['type']} after match_end")
            t = ev.get("t")
            if t is not None:
                try:
                    t = parse_time(t)
                except ValueError:
                    raise self._fail(
                        ErrorCode.MALFORMED_FIELD, f"`t` must be an RFC 3339 time with offset, got {t!r}"
                    ) from None
                if self.m is not None:
                    self.m.last_time = t
                    if self.m.first_time is None:
                        self.m.first_time = t
            self.t = t
            handlers[ev["type"]](self, ev)
        if framing is not None:
            raise framing
        expected = len(ordered)
        if self.phase != "ended":
            raise fault(
                expected,
                ErrorCode.INCOMPLETE_MATCH,
                f"the stream ends at seq {expected - 1} without match_end",
            )

    def _fail(self, code: ErrorCode, message: str) -> Fault:
        return fault(self.seq, code, message)

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
        self.penalties = Penalties(ruleset)
        fmt = ev.get("format") or {}
        kind = fmt.get("kind", ruleset.default_format.kind)
        same = kind == ruleset.default_format.kind
        deals = fmt.get("deals", ruleset.default_format.deals if same else None)
        minutes = fmt.get("minutes", ruleset.default_format.minutes if same else None)
        if kind in ("deals", "timed_deals") and deals is None:
            raise self._fail(ErrorCode.MALFORMED_FIELD, f"format {kind} needs `deals`")
        if kind in ("timed", "timed_deals") and minutes is None:
            raise self._fail(ErrorCode.MALFORMED_FIELD, f"format {kind} needs `minutes`")
        state = ev.get("start_state") or {}
        levels = dict.fromkeys(TEAMS, LEVELS[0])
        for team, lv in (state.get("levels") or ev.get("start_levels") or {}).items():
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
            level_round_breaks=ruleset.extra_deal_breaks(ev.get("event")),
        )
        if state:
            self._resume(self.m, state)
        self.phase = "between"

    @staticmethod
    def _resume(m: MatchState, state: dict[str, Any]) -> None:
        """Set the match up as it stands before deal 1 from ``match_start.start_state``
        (docs/event-extensions.md): deal 1 is then checked like a later deal — declarers and
        level (rules.md §2), and the tribute ``previous_order`` implies (rules.md §6)."""
        order = state.get("previous_order")
        if order:
            m.prev_order = list(order)
            m.prev_double_win = TEAM[order[0]] == TEAM[order[1]]
            m.prev_winner = TEAM[order[0]]
        m.next_declarers = state.get("declarers") or m.prev_winner

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
        extra = bool(reasons)
        if extra:
            if not self._extra_deal_due():
                raise self._fail(
                    ErrorCode.MATCH_ALREADY_OVER,
                    f"deal_start after the {m.format_kind} format "
                    f"ended the match (deals {m.deals_played}, rules.md §7){self._why_no_extra_deal()}",
                )
            m.extra_deal = True
        first_rules = extra and self.ruleset.extra_deal.first_deal_rules
        self.deal = open_deal(self.seq, ev, m, (extra, first_rules), self.t, self.known)
        if first_rules or m.prev_order is None or m.prev_foul:
            due = "none"
        else:
            due = "double" if m.prev_double_win else "single"
        self.tribute = TributePhase(self.ruleset, self.deal, due, m.prev_order)
        self.playing = PlayPhase(self.ruleset, m, self.deal, self.out)
        self.penalties.new_deal()
        self.phase = "tribute"

    def _extra_deal_due(self) -> bool:
        """``extra_deal`` tie-break (rules.md §7): one more deal when the format ends level, in the
        rounds ``Ruleset.extra_deal.rounds`` names (every one, the event's last, a knockout's), and
        another while the levels stay equal under ``until_decided``."""
        m = self.m
        assert m is not None
        return extra_deal_due(self.ruleset, m.level_round_breaks, m.extra_deal, m.levels)

    def _why_no_extra_deal(self) -> str:
        """Why a level round gets no extra deal where the ruleset has one, for a fault message."""
        m = self.m
        assert m is not None
        if self.ruleset.draw_breaker != "extra_deal" or m.extra_deal or level_winner(m.levels) is not None:
            return ""
        where = _EXTRA_DEAL_SCOPE.get(self.ruleset.extra_deal.rounds)
        return f"; an extra deal breaks a level round only {where}" if where else ""

    # ---- tribute ----------------------------------------------------------------------------------

    def _in_tribute(self, what: str) -> TributePhase:
        self._need_match(what)
        if self.phase != "tribute" or self.tribute is None:
            raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, f"{what} outside a deal's tribute phase")
        return self.tribute

    def _check(self, error: ReplayError | None) -> None:
        if error is not None:
            raise Fault(error)

    def _tribute(self, ev: dict[str, Any]) -> None:
        self._check(self._in_tribute("tribute").on_tribute(self.seq, ev["from"], ev["to"], ev["card"]))

    def _anti_tribute(self, ev: dict[str, Any]) -> None:
        self._check(self._in_tribute("anti_tribute").on_anti(self.seq, ev["seats"]))

    def _return(self, ev: dict[str, Any]) -> None:
        self._check(self._in_tribute("return").on_return(self.seq, ev["from"], ev["to"], ev["card"]))

    # ---- play -------------------------------------------------------------------------------------

    def _to_play(self, ev: dict[str, Any]) -> PlayPhase:
        """The deal's play, started by this first ``play`` or ``pass`` after the tribute phase."""
        self._need_match(ev["type"])
        playing, tp = self.playing, self.tribute
        if self.phase != "tribute" or playing is None or tp is None:
            where = "after the deal ended" if self.phase == "deal_over" else "outside a deal"
            raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, f"{ev['type']} {where}")
        playing.start(self.seq, ev["seat"], tp)
        self.phase = "play"
        return playing

    def _play(self, ev: dict[str, Any]) -> None:
        playing = self.playing if self.phase == "play" else self._to_play(ev)
        assert playing is not None
        if playing.play(self.seq, ev, self.t):
            self.phase = "deal_over"

    def _pass(self, ev: dict[str, Any]) -> None:
        playing = self.playing if self.phase == "play" else self._to_play(ev)
        assert playing is not None
        playing.pass_(self.seq, ev, self.t)

    def _report(self, ev: dict[str, Any]) -> None:
        self._need_match("report")

    # ---- rulings ----------------------------------------------------------------------------------

    def _ruling(self, ev: dict[str, Any]) -> None:
        """A referee ruling: recorded as a ``rulings`` row, then applied (``replay.penalties``)."""
        m = self._need_match("ruling")
        bad = ruling_fault(ev)
        if bad is not None:
            raise self._fail(ErrorCode.BAD_RULING, bad)
        kind, seat, side = ev["kind"], ev.get("seat"), ruled_side(ev)
        in_deal = self.phase in ("tribute", "play")
        d = self.deal if in_deal or self.phase == "deal_over" else None
        self.out.ruling(m, ev, self.seq, d.no if d else None, side, self.t)
        if kind == "level_adjust":
            for tm, lv in ev["levels"].items():
                m.levels[tm] = normalise_level(lv) or m.levels[tm]
        elif kind == "rank_last":
            self._rank_last(ev["seat"])
        elif side is not None:
            penalty = self.penalties.judge(kind, seat or side, side, in_deal)
            if penalty.effect == "forfeit_deal":
                self._forfeit_deal(side, penalty.reason)
            elif penalty.effect == "lose_round":
                self._lose_round(side)

    def _forfeit_deal(self, team: str, what: str) -> None:
        """The deal in play is forfeited by ``team``: a double win for the other team (rules.md §8)."""
        if self.phase not in ("tribute", "play") or self.deal is None:
            raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, f"{what} outside a deal in play")
        self.deal.foul_team = team
        self.deal.over = True
        self.phase = "deal_over"

    def _rank_last(self, seat: str) -> None:
        """A ``rank_last`` ruling (docs/event-extensions.md; national Art. 11 判罰 2(3), huaian
        Art. 18 ④, jiangsu 报牌): ``seat`` is placed last in the finishing order of the deal in play
        when it ends (``_finish_order``); the play itself goes on unchanged. Ruled again, the seat
        moves behind any seat ruled last before it."""
        d = self.deal
        if self.phase not in ("tribute", "play", "deal_over") or d is None:
            raise self._fail(
                ErrorCode.EVENT_OUT_OF_PLACE,
                f"a rank_last ruling against {seat} outside a deal: it ranks a seat last in the deal in play",
            )
        if seat in d.ranked_last:
            d.ranked_last.remove(seat)
        d.ranked_last.append(seat)

    def _lose_round(self, team: str) -> None:
        """``team`` loses the round (match) at once: forfeit, red cards, too many fouls (rules.md §8)."""
        m = self.m
        assert m is not None
        m.forfeited_by = m.forfeited_by or team
        self.phase = "match_over"

    # ---- results ----------------------------------------------------------------------------------

    def _deal_end(self, ev: dict[str, Any]) -> None:
        m = self._need_match("deal_end")
        d, tp = self.deal, self.tribute
        if self.phase == "tribute" and d is not None and tp is not None and d.results_only:
            end_results_only(self.seq, self.ruleset, d, tp, ev["order"])
            self.phase = "deal_over"
        if self.phase in ("tribute", "play"):
            raise self._fail(
                ErrorCode.DEAL_NOT_OVER,
                f"deal_end while deal {d.no if d else '?'} is still being "
                f"played (out so far: {', '.join(d.out) if d else ''})",
            )
        if self.phase != "deal_over" or d is None:
            raise self._fail(ErrorCode.EVENT_OUT_OF_PLACE, "deal_end outside a deal")
        order = finish_order(self.seq, self.ruleset, d, ev["order"])
        before = dict(m.levels)
        result = level_outcome(
            self.ruleset,
            before,
            d.declarers,
            d.level,
            order,
            m.a_failures,
            forfeit=d.foul_team is not None,
            extra_deal=d.extra_deal,
        )
        after = result.levels
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
        m.a_failures = result.failures
        if result.end == "passed_a":
            m.passed_a = result.match_winner
        elif result.end == "a_failures":
            m.lost_on_a = d.declarers
        assert tp is not None
        a = (result.a_attempt, result.a_passed, result.a_failed)
        row = DealResult(order, result.winner, result.raised, result.double, a, before)
        self.out.deal(m, d, tp, row, self.t)
        m.deals_played += 1
        m.prev_order = order
        m.prev_double_win = result.double
        m.prev_foul = d.foul_team is not None
        m.prev_winner = m.next_declarers = result.winner
        m.last_declarers = d.declarers
        if d.results_only:
            self.results_only_deals += 1
        else:
            self.played_deals += 1
        self.phase = "between"

    def _match_end(self, ev: dict[str, Any]) -> None:
        m = self._need_match("match_end")
        reason = ev["reason"]
        if self.phase in ("tribute", "play", "deal_over") and reason != "abandoned":
            raise self._fail(
                ErrorCode.DEAL_NOT_OVER,
                f"match_end ({reason}) while deal {self.deal.no if self.deal else '?'} is not finished",
            )
        winner: str | None
        if m.forfeited_by:
            reasons, winner = {"forfeit"}, OTHER_TEAM[m.forfeited_by]
        elif m.lost_on_a:
            reasons, winner = {"a_failures"}, OTHER_TEAM[m.lost_on_a]
        elif m.passed_a:
            reasons, winner = {"passed_a"}, m.passed_a
        else:
            reasons = self._format_reasons(self.t or m.last_time)
            if reasons and self._extra_deal_due():
                raise self._fail(
                    ErrorCode.MATCH_NOT_OVER, "levels are equal: one extra deal is due (rules.md §7)"
                )
            winner = round_winner(self.ruleset, m.levels, m.last_declarers, m.prev_winner, m.extra_deal)
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


_EXTRA_DEAL_SCOPE: dict[str, str] = {
    "last": "in the event's last round (`event.last_round`)",
    "knockout": "in a knockout stage's rounds (`event.stage`, e.g. `knockout`)",
}
"""Where a ruleset's extra deal applies, by ``ExtraDeal.rounds``, for a fault message."""


_HANDLERS: dict[str, Callable[[_Replayer, dict[str, Any]], None]] = {
    "match_start": _Replayer._match_start,
    "deal_start": _Replayer._deal_start,
    "tribute": _Replayer._tribute,
    "anti_tribute": _Replayer._anti_tribute,
    "return": _Replayer._return,
    "play": _Replayer._play,
    "pass": _Replayer._pass,
    "report": _Replayer._report,
    "ruling": _Replayer._ruling,
    "deal_end": _Replayer._deal_end,
    "match_end": _Replayer._match_end,
}
"""The handler of each event type (a class-level table: bound methods held by the instance
would make every replayer a reference cycle left to the garbage collector)."""


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for the duration of a replay.

    A replay allocates tens of thousands of small tuples and lists and creates no reference
    cycles, but each allocation burst triggers collections that traverse every live object of
    the caller (all parsed events of a batch): about 15 % of replay time. Reference counting
    still frees everything; the collector resumes (if it was on) when the block ends.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def replay_match(events: list[dict[str, Any]], rulesets: Mapping[str, Ruleset] | None = None) -> MatchReplay:
    """Replay the parsed events of one match (any order; sorted by ``seq``) and derive its rows.

    ``rulesets`` maps ruleset ids to rulesets (default: the built-in ones, ``replay.rulesets.BUILTIN``).
    Pure: no I/O. A stream without ``match_end`` is invalid with ``incomplete_match``.
    """
    with paused_gc():
        return _Replayer(rulesets or BUILTIN).run(events)
