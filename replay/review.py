"""Decision review of logged deals with the exact endgame solver.

:func:`review_match` follows a v1 log (events.md) once, from the first event to the last: the
dealt hands, the tribute and return cards moved (rules.md §6), then every play and pass: on a
tally of the cards each seat holds until the window (:meth:`~replay.solver.Solver.tally_step`),
from its first decision through :meth:`~replay.solver.Solver.step`, the transition the solver
searches with, on the solver's own states (no position is rebuilt per decision); and the
match's levels and failures at A from each deal's result (:func:`~replay.outcome.level_outcome`,
resynchronised with ``deal_end.levels`` and rulings that set levels). The log is assumed valid
(``replay_match`` says so); what the review relies on (turns, cards held, the window's plays) is
still checked, and a log it cannot follow is a ``ValueError``.

Each deal's decisions are scored from the first position in the window (at most
``max_cards_left`` cards in all hands) the budget can solve until the deal ends: the value before
it, the best value reachable, the value after the action taken (all for the deciding team, in
levels, rules.md §5.8) and the loss, best − after; and the same two outcomes in match terms, the
deciding team's chance to win the match (:mod:`replay.match_value`). Positions are solved from
the end of the deal backwards by one :class:`~replay.solver.Solver`, so each solve reuses the
transposition table of the later ones; the review stops at the first (latest-to-earliest)
position its budget cannot solve, so the rows are the longest solvable tail of the window.

Every verdict says its kind (:data:`EXACT`: all four hands visible, double-dummy) and whether the
decision was a choice at all (:data:`CHOICES`): a pass by a player with no legal play, or a
position where every legal action is worth the same, is counted but not scored.
:func:`review_deal` and :func:`position_before` are the one-deal views. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from replay.cards import sort_cards
from replay.combos import Combo, beat_key
from replay.events import normalise_level
from replay.match_value import MatchState, outcome_chance
from replay.moves import Move
from replay.outcome import level_outcome
from replay.replayer import paused_gc
from replay.rulesets import BUILTIN, Ruleset
from replay.seats import SEATS, TEAM
from replay.solver import (
    DEFAULT_BUDGET,
    Action,
    Budget,
    DealEnd,
    Position,
    SearchState,
    Solver,
    reading_of,
)

DEAL_ENDING_RULINGS = frozenset({"foul", "red_card", "yellow_card", "forfeit_match"})
"""Rulings that can end a deal in play (rules.md §8): the rebuild of a deal stops at them."""


EXACT: Final = "double_dummy"
"""The kind of an exact verdict: solved with all four hands visible (double-dummy)."""

CHOICES: Final = ("real", "forced", "all_equal")
"""Whether a decision was a choice: ``forced``, a pass with no legal play (rules.md §5.3);
``all_equal``, every legal action reaches the same value; ``real`` otherwise (only these are scored)."""

PHASES: Final = ("lead", "follow", "pass", "bomb", "jie_feng")
"""What a decision was: a lead, a play onto the table, a pass, a bomb onto the table, or the lead
of a player whose partner went out on the trick's last play (接风, rules.md §5.6)."""

DEAL_STATUSES: Final = ("complete", "partial", "unsolved", "outside_window", "hidden_hands", "no_play")
"""What the review of a deal could do: every decision in the window solved, a tail of them, none
(the budget ran out at the last one), no decision in the window (the deal ended with more cards
in hand), the log shows fewer than four hands, or no play or pass was logged."""


@dataclass(frozen=True, slots=True)
class DecisionReview:
    """One reviewed play or pass: values in levels for the deciding ``team`` (rules.md §5.8).

    ``value_before`` is the position's value and ``best_value`` the most any action reaches; under
    exact play they are equal (both kept). ``loss`` = ``best_value`` −
    ``value_after`` ≥ 0, 0 exactly when ``action`` is one of ``best_moves``. ``hand``: the
    player's cards before the decision; ``held``: the cards each seat holds then (:data:`SEATS`
    order). ``win_best`` and ``win_after``: the team's chance to win
    the match after the deal ends at ``best_value`` and at ``value_after``
    (:mod:`replay.match_value`; ``None`` when the match state is unknown).
    """

    seq: int
    seat: str
    team: str
    action: Action
    cards_left: int
    value_before: int
    best_value: int
    value_after: int
    loss: int
    best_moves: tuple[Action, ...]
    nodes: int
    hand: tuple[str, ...] = ()
    choice: str = "real"
    phase: str = "lead"
    kind: str = EXACT
    win_best: float | None = None
    win_after: float | None = None
    held: tuple[int, ...] = ()

    @property
    def match_loss(self) -> float | None:
        """The match-winning chance the action gave away: ``win_best`` − ``win_after`` (≥ 0)."""
        if self.win_best is None or self.win_after is None:
            return None
        return max(0.0, self.win_best - self.win_after)


@dataclass(frozen=True, slots=True)
class DealReview:
    """The review of one deal: its rows (log order), the plays and passes the log shows, how many
    of them fall in the window, the fewest cards in all hands at any of them, and the
    :data:`DEAL_STATUSES` word for what the review could do."""

    deal: int
    rows: tuple[DecisionReview, ...]
    decisions: int
    in_window: int
    fewest_cards: int | None
    status: str


@dataclass(frozen=True, slots=True)
class _Step:
    """A logged decision: its seq, the solver state before it, the action taken, its phase and
    the cards in all hands before it."""

    seq: int
    state: SearchState
    action: Action
    phase: str
    cards_left: int


def _ordered(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return sorted(events, key=lambda e: int(e["seq"]))


def _ruleset(events: list[Mapping[str, Any]], rulesets: Mapping[str, Ruleset] | None) -> Ruleset:
    start = next((e for e in events if e.get("type") == "match_start"), None)
    if start is None:
        raise ValueError("the events hold no match_start (it names the ruleset)")
    found = (rulesets or BUILTIN).get(start["rules"])
    if found is None:
        raise ValueError(f"unknown ruleset {start['rules']!r}")
    return found


def action_of(position: Position, ev: Mapping[str, Any]) -> Action:
    """The action of a logged play or pass event in ``position``, read as the replay reads it
    (events.md "Combination reading")."""
    if ev["type"] == "pass":
        return None
    cards = list(ev["cards"])
    declared = ev.get("combo")
    reading = (declared["type"], declared["rank"]) if declared is not None else None
    return Move(sort_cards(cards), reading_of(position, cards, reading))


def _phase(solver: Solver, state: SearchState, action: Action, jie_feng: bool) -> str:
    """The :data:`PHASES` word for ``action`` taken in ``state``."""
    return decision_phase(state[2] is None, action, solver.level, jie_feng)


def leads_by_jie_feng(
    passed: bool, table_cleared: bool, next_turn: int | str, trick_winner: int | str | None
) -> bool:
    """Whether the next lead is 接风 (§5.6): a pass ended the trick and the lead goes to someone
    other than the trick's winner (who went out on its last play)."""
    return passed and table_cleared and next_turn != trick_winner


def decision_phase(leading: bool, action: Action, level: str, jie_feng: bool) -> str:
    """The :data:`PHASES` word for ``action``: ``leading`` when the table is empty, ``jie_feng``
    when that lead came to the partner of a player who went out on the trick's last play (§5.6)."""
    if leading:
        return "jie_feng" if jie_feng else "lead"
    if action is None:
        return "pass"
    return "bomb" if beat_key(action.combo, level)[0] > 0 else "follow"


@dataclass(slots=True)
class _DealLog:
    """A deal followed through the log: its solver, its decisions (how many, the fewest cards in
    all hands at any of them, and the steps of those in the window), what follows the last one
    (the :class:`DealEnd`, or the state the log stops at), and the index of the event after it."""

    solver: Solver
    decisions: int
    fewest: int | None
    steps: list[_Step]
    end: DealEnd | SearchState | None
    next_index: int


def _follow_deal(events: list[Mapping[str, Any]], start: int, ruleset: Ruleset,
                 max_cards_left: int | None = None) -> _DealLog:
    """Follow the deal whose ``deal_start`` is ``events[start]`` to its last play or pass.

    Decisions with more than ``max_cards_left`` cards in all hands (none when ``None``) are
    followed on a tally (:meth:`~replay.solver.Solver.tally_step`: turns, tricks and going out,
    each play's cards taken from its hand, no reading worked out); the solver's state is built
    at the first decision in the window, its table read from the trick's plays as the replay
    reads them, and every decision from there on is stepped and checked by
    :meth:`~replay.solver.Solver.step`."""
    ev = events[start]
    hands = {s: list(ev.get("hands", {}).get(s) or ()) for s in SEATS}
    if any(len(h) == 0 for h in hands.values()):
        raise ValueError(f"deal {ev.get('deal')} does not show all four hands")
    level = normalise_level(ev["level"])
    if level is None:
        raise ValueError(f"deal {ev.get('deal')} has no valid level")
    solver = Solver(level, ruleset)
    steps: list[_Step] = []
    decisions, held, fewest = 0, 0, None
    tally: SearchState | None = None
    trick: list[Mapping[str, Any]] = []
    """The plays of the trick in progress while on the tally."""
    state: SearchState | None = None
    jie_feng = False
    i = start + 1
    while i < len(events):
        ev = events[i]
        kind = ev["type"]
        if kind == "play" or kind == "pass":
            if tally is None and state is None:
                tally = solver.tally([len(hands[s]) for s in SEATS], ev["seat"])
                held = sum(tally[0])
            if tally is not None and (max_cards_left is None or held <= max_cards_left):
                state = _window_entry(solver, hands, tally, trick)
                tally = None
            current = state if state is not None else tally
            assert current is not None
            if ev["seat"] != SEATS[current[1]]:
                raise ValueError(f"seq {ev['seq']}: {ev['seat']} acts but it is {SEATS[current[1]]}'s turn")
            decisions += 1
            fewest = held if fewest is None else min(fewest, held)
            after: SearchState | DealEnd
            if state is not None:
                action = _action(solver, state, ev)
                phase = _phase(solver, state, action, jie_feng)
                steps.append(_Step(int(ev["seq"]), state, action, phase, held))
                held -= 0 if action is None else len(action.cards)
                after = solver.step(state, action)
                passed = action is None
            else:
                passed = kind == "pass"
                if passed:
                    after = solver.tally_step(current, None)
                else:
                    cards = ev["cards"]
                    _take_cards(hands[ev["seat"]], cards, ev)
                    after = solver.tally_step(current, len(cards))
                    held -= len(cards)
                    if current[2] is None:
                        trick = [ev]
                    else:
                        trick.append(ev)
            if isinstance(after, DealEnd):
                return _DealLog(solver, decisions, fewest, steps, after, i + 1)
            jie_feng = leads_by_jie_feng(passed, after[2] is None, after[1], current[4])
            if state is not None:
                state = after
            else:
                tally = after
        elif kind == "tribute" or kind == "return":
            if tally is None and state is None:
                hands[ev["from"]].remove(ev["card"])
                hands[ev["to"]].append(ev["card"])
        elif kind in ("deal_end", "deal_start", "match_end") or (
            kind == "ruling" and ev.get("kind") in DEAL_ENDING_RULINGS
        ):
            break
        i += 1
    return _DealLog(solver, decisions, fewest, steps, state, i)


def _take_cards(hand: list[str], cards: Sequence[str], ev: Mapping[str, Any]) -> None:
    """Take a play's cards from the hand of its seat (each the first of its kind there); a card
    the hand does not hold is an error naming the event."""
    for card in cards:
        try:
            hand.remove(card)
        except ValueError:
            raise ValueError(f"seq {ev['seq']}: {ev['seat']} does not hold {card}") from None


def _window_entry(solver: Solver, hands: Mapping[str, list[str]], tally: SearchState,
                  trick: Sequence[Mapping[str, Any]]) -> SearchState:
    """The solver's state for a tally: the hands left, and the table read from the trick's plays
    in order (events.md "Combination reading"), as the replay reads them."""
    _, turn, table, _, tseat, passes, out = tally
    read: Combo | None = None
    if table is not None:
        for ev in trick:
            read = solver.reading(read, ev["cards"], _declared(ev))
    position = Position({s: tuple(h) for s, h in hands.items()}, solver.level, solver.ruleset, SEATS[turn],
                        read, SEATS[tseat] if tseat >= 0 else None, passes, tuple(SEATS[i] for i in out))
    return solver.state_of(position)


def _action(solver: Solver, state: SearchState, ev: Mapping[str, Any]) -> Action:
    if ev["type"] == "pass":
        return None
    cards = list(ev["cards"])
    return Move(sort_cards(cards), solver.reading(state[2], cards, _declared(ev)))


def _declared(ev: Mapping[str, Any]) -> tuple[str, str] | None:
    """The (type, rank) a play event declares, if any."""
    declared = ev.get("combo")
    return (declared["type"], declared["rank"]) if declared is not None else None


def deal_start_index(events: Sequence[Mapping[str, Any]], before_seq: int | None, deal: int | None) -> int:
    """Index of the ``deal_start`` of deal number ``deal``, or of the last one before ``before_seq``,
    or of the only one."""
    starts = [i for i, e in enumerate(events) if e.get("type") == "deal_start"]
    if deal is not None:
        starts = [i for i in starts if events[i].get("deal") == deal]
    elif before_seq is not None:
        starts = [i for i in starts if int(events[i]["seq"]) < before_seq][-1:]
    elif len(starts) > 1:
        raise ValueError("the events hold several deals: name the one to review")
    if not starts:
        raise ValueError("no such deal in the events")
    return starts[-1]


def position_before(
    events: Sequence[Mapping[str, Any]], seq: int, rulesets: Mapping[str, Ruleset] | None = None
) -> Position:
    """The position just before event ``seq``, a play or pass of a v1 log (the events of its match,
    any order; ``rulesets`` as for ``replay_match``). ``ValueError`` when ``seq`` is no play or
    pass of a deal whose four hands the log shows, or the log cannot be followed up to it."""
    ordered = _ordered(events)
    log = _follow_deal(ordered, deal_start_index(ordered, seq, None), _ruleset(ordered, rulesets))
    for step in log.steps:
        if step.seq == seq:
            return log.solver.position_of(step.state)
    raise ValueError(f"seq {seq} is no play or pass of a deal in play")


class _MatchTrack:
    """The match's levels and failures at A before each deal (rules.md §7), as the log's results
    make them: :func:`~replay.outcome.level_outcome` on each ``deal_end`` order, its ``levels``
    and a ruling's ``levels`` taken when the log gives them."""

    def __init__(self, ruleset: Ruleset, start: Mapping[str, Any]) -> None:
        self.ruleset = ruleset
        given = start.get("start_levels") or {}
        self.levels = {t: normalise_level(given.get(t, "2")) or "2" for t in ("EW", "NS")}
        self.failures = {"EW": 0, "NS": 0}
        fmt = start.get("format") or {}
        counted = fmt.get("kind") in ("deals", "timed_deals")
        self.format_deals: int | None = fmt.get("deals") if counted else None
        self.declarers: str | None = None
        self.deal_level = "2"
        self.deal_no = 0
        self.forfeit = False

    def deal_start(self, ev: Mapping[str, Any]) -> None:
        self.declarers = ev.get("declarers")
        self.deal_level = normalise_level(ev.get("level")) or "2"
        self.deal_no = int(ev.get("deal") or self.deal_no + 1)
        self.forfeit = False

    def state(self) -> MatchState:
        """The match before the current deal."""
        after = None if self.format_deals is None else max(self.format_deals - self.deal_no, 0)
        return MatchState.of(self.levels, self.failures, self.declarers, self.deal_level, after)

    def event(self, ev: Mapping[str, Any]) -> None:
        """Take a ``deal_end`` or ruling into the levels and failures."""
        kind = ev["type"]
        if kind == "ruling":
            self.forfeit = self.forfeit or ev.get("kind") in ("foul", "red_card")
            self._take_levels(ev.get("levels"))
        elif kind == "deal_end" and ev.get("order"):
            outcome = level_outcome(self.ruleset, self.levels, self.declarers, self.deal_level,
                                    ev["order"], self.failures, forfeit=self.forfeit)
            self.levels, self.failures = dict(outcome.levels), dict(outcome.failures)
            self._take_levels(ev.get("levels"))

    def _take_levels(self, levels: Mapping[str, str] | None) -> None:
        for team, level in (levels or {}).items():
            known = normalise_level(level)
            if team in self.levels and known is not None:
                self.levels[team] = known


def match_state_at(ordered: Sequence[Mapping[str, Any]], deal_index: int, ruleset: Ruleset) -> MatchState:
    """The match before the deal whose ``deal_start`` is ``ordered[deal_index]`` (its match's
    events in seq order), as the log's results make it (:class:`_MatchTrack`)."""
    start = next((e for e in ordered if e.get("type") == "match_start"), {})
    track = _MatchTrack(ruleset, start)
    for ev in ordered[:deal_index]:
        if ev.get("type") == "deal_start":
            track.deal_start(ev)
        else:
            track.event(ev)
    track.deal_start(ordered[deal_index])
    return track.state()


def review_match(
    events: Sequence[Mapping[str, Any]],
    budget: Budget = DEFAULT_BUDGET,
    *,
    max_cards_left: int | None = None,
    deals: Sequence[int] | None = None,
    rulesets: Mapping[str, Ruleset] | None = None,
) -> list[DealReview]:
    """Review every deal of a match (``deals``: only these numbers) in one pass over its events
    (module docstring), in deal order. ``budget`` applies to each position; only the decisions
    with at most ``max_cards_left`` cards in all hands are considered (``None``: all). The cyclic
    garbage collector is paused meanwhile, as for a replay (``replay.replayer.paused_gc``)."""
    with paused_gc():
        return _review_match(_ordered(events), budget, max_cards_left, deals, rulesets)


def _review_match(ordered: list[Mapping[str, Any]], budget: Budget, max_cards_left: int | None,
                  deals: Sequence[int] | None, rulesets: Mapping[str, Ruleset] | None) -> list[DealReview]:
    ruleset = _ruleset(ordered, rulesets)
    start = next(e for e in ordered if e.get("type") == "match_start")
    track = _MatchTrack(ruleset, start)
    wanted = None if deals is None else set(deals)
    out: list[DealReview] = []
    i = 0
    while i < len(ordered):
        ev = ordered[i]
        if ev.get("type") != "deal_start":
            track.event(ev)
            i += 1
            continue
        track.deal_start(ev)
        deal_no = track.deal_no
        if wanted is not None and deal_no not in wanted:
            i += 1
            continue
        if any(not (ev.get("hands") or {}).get(s) for s in SEATS):
            out.append(DealReview(deal_no, (), 0, 0, None, "hidden_hands"))
            i += 1
            continue
        log = _follow_deal(ordered, i, ruleset, max_cards_left)
        out.append(_review_log(deal_no, log, budget, max_cards_left, track.state()))
        i = max(log.next_index, i + 1)
    return out


def review_deal(
    events: Sequence[Mapping[str, Any]],
    budget: Budget = DEFAULT_BUDGET,
    *,
    deal: int | None = None,
    max_cards_left: int | None = None,
    rulesets: Mapping[str, Ruleset] | None = None,
) -> list[DecisionReview]:
    """The rows of one deal's review (:func:`review_deal_report`)."""
    return list(review_deal_report(events, budget, deal=deal, max_cards_left=max_cards_left,
                                   rulesets=rulesets).rows)


def review_deal_report(
    events: Sequence[Mapping[str, Any]],
    budget: Budget = DEFAULT_BUDGET,
    *,
    deal: int | None = None,
    max_cards_left: int | None = None,
    rulesets: Mapping[str, Ruleset] | None = None,
) -> DealReview:
    """Review one deal (module docstring). ``events``: the events of its match (``match_start``
    names the ruleset); ``deal``: its number, needed when the events hold several deals.
    ``ValueError`` when the deal is not in the events or does not show all four hands."""
    ordered = _ordered(events)
    index = deal_start_index(ordered, None, deal)
    number = ordered[index].get("deal")
    if any(not (ordered[index].get("hands") or {}).get(s) for s in SEATS):
        raise ValueError(f"deal {number} does not show all four hands")
    found = review_match(ordered, budget, max_cards_left=max_cards_left,
                         deals=None if number is None else [int(number)], rulesets=rulesets)
    if not found:
        raise ValueError("no such deal in the events")
    return found[-1]


def _review_log(deal_no: int, log: _DealLog, budget: Budget, max_cards_left: int | None,
                match: MatchState) -> DealReview:
    """Solve a followed deal's decisions in the window, from its end backwards."""
    solver, end, steps, decisions, fewest = log.solver, log.end, log.steps, log.decisions, log.fewest
    if not decisions:
        return DealReview(deal_no, (), 0, 0, None, "no_play")
    if not steps:
        return DealReview(deal_no, (), decisions, 0, fewest, "outside_window")
    after: DealEnd | tuple[str, int]
    """What follows the current decision: the end of the deal, or the team to move next and its value."""
    if isinstance(end, DealEnd):
        after = end
    else:
        last = solver.solve_state(end, budget) if end is not None else None
        if end is None or last is None or last.value is None:
            return DealReview(deal_no, (), decisions, len(steps), fewest, "unsolved")
        after = (TEAM[SEATS[end[1]]], last.value)
    rows: list[DecisionReview] = []
    chances: dict[tuple[str, int], float] = {}
    for step in reversed(steps):
        state = step.state
        solution = solver.solve_state(state, budget)
        if solution.value is None:
            break
        seat = SEATS[state[1]]
        team = TEAM[seat]
        if isinstance(after, DealEnd):
            value_after = after.value_for(team)
        else:
            value_after = after[1] if after[0] == team else -after[1]
        best = solution.value
        for v in (best, value_after):
            if (team, v) not in chances:
                chances[(team, v)] = outcome_chance(solver.ruleset, match, team, v)
        rows.append(
            DecisionReview(
                seq=step.seq,
                seat=seat,
                team=team,
                action=step.action,
                cards_left=step.cards_left,
                value_before=best,
                best_value=best,
                value_after=value_after,
                loss=best - value_after,
                best_moves=solution.best_moves,
                nodes=solution.nodes,
                hand=solver.hand(state, seat),
                held=tuple(len(solver.hand(state, s)) for s in SEATS),
                choice=_choice(solver, state, solution.best_moves),
                phase=step.phase,
                win_best=chances[(team, best)],
                win_after=chances[(team, value_after)],
            )
        )
        after = (team, best)
    rows.reverse()
    status = "complete" if len(rows) == len(steps) else "partial" if rows else "unsolved"
    return DealReview(deal_no, tuple(rows), decisions, len(steps), fewest, status)


def _choice(solver: Solver, state: SearchState, best: tuple[Action, ...]) -> str:
    """The :data:`CHOICES` word for the decision in ``state`` whose best actions are ``best``."""
    if state[2] is not None and not solver.can_play(state):
        return "forced"
    return "all_equal" if len(best) == solver.action_count(state) else "real"
