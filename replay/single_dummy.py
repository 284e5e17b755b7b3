"""Single-dummy review of a whole deal: every real decision judged from the player's own view.

For every decision from the first lead (and the return card after a tribute, rules.md §6) the cards
the player cannot see are dealt at random ``layouts`` times, consistent with what they have seen
(``replay.layouts``), and each candidate action is valued in every layout for the deciding team,
in levels (rules.md §5.8):

- **exactly** by the endgame solver when the layout holds at most ``exact_cards`` cards and every
  candidate's position is solved within ``budget`` (after a first layout the budget cannot settle,
  the decision's later layouts go to rollouts) (one :class:`~replay.solver.Solver` serves the
  whole deal: its transposition table holds true facts whatever the root);
- otherwise by a **rollout**: the deal played out from the candidate's position by a policy the
  caller gives (``Rollout``; the rules engine holds no players, ``simulator.rollout`` offers the
  simulator's bots). A layout is valued one way for all its candidates, and every candidate of a
  layout gets the same rollout seed (common random numbers), so the comparison is paired.

Candidates are the distinct *action classes*: legal plays whose resulting positions the solver
cannot tell apart (same canonical key: the same hand left up to suits that cannot matter and the
same table strength), plus the pass when following. Pruning: when more than ``max_candidates``
classes are legal, the played class, the pass, the cheapest bomb (so bombing decisions are always
judged) and then the first classes in the solver's static order (going out first; leading: more
cards and lower ranks first, bombs last; following: the cheapest beat first) are kept; every row
says how many classes there were. A decision with one class (a forced pass) is no choice and gets
no row. For the return card the candidates are the distinct cards the ruleset allows (§6), valued
by rollouts from the start of play.

Per candidate: the mean value over the layouts with a 95 % normal interval (mean ± 1.96 s/√n);
for the played action, in how many layouts it did worse than the candidate with the best mean
("worse in k of N"). In match terms (rules.md §7): each layout's value is the deal's result, and
``replay.match_value.outcome_chance`` turns it into the deciding team's chance to win the match
from the state before the deal (the levels, A attempts and deals left the log shows); a candidate's
``win`` is its mean over the layouts, and ``match_loss`` what the played action gave away against
the candidate with the best ``win``. Every row is labelled :data:`LABEL` and carries its phase: a
play's as the exact review names it (``replay.review.decision_phase``), :data:`RETURN_PHASE` for a
return card. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from replay.cards import sort_cards
from replay.combos import beat_key, rank_value
from replay.events import normalise_level
from replay.layouts import PlayerView, sample_layouts, view_of
from replay.match_value import MatchState, outcome_chance
from replay.moves import Move, legal_moves
from replay.review import (
    DEAL_ENDING_RULINGS,
    action_of,
    deal_start_index,
    decision_phase,
    leads_by_jie_feng,
    match_state_at,
)
from replay.rulesets import BUILTIN, Ruleset
from replay.seats import PARTNER, SEATS, TEAM
from replay.solver import Action, Budget, DealEnd, Position, Solver, play_action
from replay.tribute import return_allowed

LABEL: Final = "sampled from the player's view (single-dummy)"
"""The kind of every verdict this module gives."""

RETURN_PHASE: Final = "tribute_return"
"""The phase of a return card after a tribute (rules.md §6); plays take ``replay.review.PHASES``."""

Rollout = Callable[[Position, int], int]
"""Plays a position out to the end of the deal with the given seed; returns its value in levels
for the team to move (rules.md §5.8)."""

Z95: Final = 1.96
EXACT_BUDGET: Final = Budget(nodes=20_000)
"""Nodes the solver may search per candidate position in one layout before a rollout takes over."""


@dataclass(frozen=True, slots=True)
class Settings:
    """How much work the review does per decision (module docstring)."""

    layouts: int = 32
    seed: int = 0
    max_candidates: int = 6
    exact_cards: int = 16
    budget: Budget = EXACT_BUDGET


@dataclass(frozen=True, slots=True)
class CandidateValue:
    """One candidate: a play (a representative of its class), ``None`` for a pass, or the card of a
    return; how many legal moves its class holds; its value per layout; mean and 95 % interval;
    ``win``: the deciding team's mean chance to win the match after it."""

    action: Action | str
    moves: int
    values: tuple[int, ...]
    mean: float
    low: float
    high: float
    win: float


@dataclass(frozen=True, slots=True)
class SampledDecision:
    """The single-dummy verdict on one decision (module docstring). ``hand``: the decider's cards
    before it; ``played`` and ``best`` index ``candidates``; ``worse_in`` of ``layouts`` is how
    often the played one did worse than the best; ``loss`` = best mean − played mean ≥ 0;
    ``exact_layouts``: layouts valued by the solver; ``phase``: a ``replay.review.PHASES`` word
    or :data:`RETURN_PHASE`."""

    seq: int
    seat: str
    team: str
    kind: Literal["play", "return"]
    phase: str
    cards_left: int
    hand: tuple[str, ...]
    candidates: tuple[CandidateValue, ...]
    played: int
    best: int
    classes: int
    layouts: int
    exact_layouts: int
    worse_in: int
    label: str = LABEL

    @property
    def loss(self) -> float:
        """Mean levels lost against the best candidate (0 when the played one is the best)."""
        return self.candidates[self.best].mean - self.candidates[self.played].mean

    @property
    def win_best(self) -> float:
        """The best mean match-winning chance of any candidate."""
        return max(c.win for c in self.candidates)

    @property
    def win_played(self) -> float:
        """The played action's mean match-winning chance."""
        return self.candidates[self.played].win

    @property
    def match_loss(self) -> float:
        """The match-winning chance the played action gave away: ``win_best`` − ``win_played``."""
        return max(0.0, self.win_best - self.win_played)


Chance = Callable[[int], float]
"""A deal's value in levels for the deciding team → that team's chance to win the match after it."""


def _summary(action: Action | str, moves: int, values: Sequence[int], chance: Chance) -> CandidateValue:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n)
    return CandidateValue(action, moves, tuple(values), mean, mean - half, mean + half,
                          sum(chance(v) for v in values) / n)


def team_chance(ruleset: Ruleset, match: MatchState, team: str) -> Chance:
    """``team``'s match-winning chance after the deal of ``match`` by its value in levels (module
    docstring)."""
    return lambda value: outcome_chance(ruleset, match, team, value)


def _decision(
    seq: int,
    seat: str,
    kind: Literal["play", "return"],
    phase: str,
    cards_left: int,
    hand: tuple[str, ...],
    options: Sequence[tuple[Action | str, int]],
    played: int,
    table: Sequence[Sequence[int]],
    classes: int,
    exact: int,
    chance: Chance,
) -> SampledDecision:
    """A row from the values ``table[layout][candidate]`` of ``options`` (action, moves)."""
    cands = tuple(_summary(a, m, [row[i] for row in table], chance) for i, (a, m) in enumerate(options))
    best = max(range(len(cands)), key=lambda i: (cands[i].mean, i == played))
    worse = sum(1 for row in table if row[played] < row[best])
    return SampledDecision(
        seq, seat, TEAM[seat], kind, phase, cards_left, hand, cands, played, best, classes, len(table), exact,
        worse,
    )


# ---- candidates -------------------------------------------------------------------------------


def action_classes(position: Position, solver: Solver) -> list[tuple[Action, int, object]]:
    """The distinct action classes of the player to move (module docstring): a representative, the
    number of legal moves in the class and its key; plays in the solver's static order, then the
    pass when following."""
    hand = position.hands[position.turn]
    table = position.table
    moves = legal_moves(
        hand, position.level, table, full_house_joker_pair=position.ruleset.full_house_joker_pair
    )
    classes: dict[object, list[Move]] = {}
    for m in moves:
        child = play_action(position, m, solver)
        key: object = ("end", child.gain, child.order[0]) if isinstance(child, DealEnd) else solver.key(child)
        classes.setdefault(key, []).append(m)
    level = position.level

    def order(item: tuple[object, list[Move]]) -> tuple[object, ...]:
        m = item[1][0]
        out = len(m.cards) == len(hand)
        bk = beat_key(m.combo, level)
        if table is None:
            return (not out, bk[0] > 0, -m.combo.size, rank_value(m.combo, level))
        return (not out, bk[0], bk[2])

    ranked: list[tuple[Action, int, object]] = [
        (ms[0], len(ms), k) for k, ms in sorted(classes.items(), key=order)
    ]
    if table is not None:
        ranked.append((None, 1, "pass"))
    return ranked


def _pruned(
    ranked: list[tuple[Action, int, object]], played_key: object, limit: int, level: str
) -> list[tuple[Action, int, object]]:
    """At most ``limit`` classes: the played one, the pass, the cheapest bomb, then static order."""
    if len(ranked) <= limit:
        return ranked
    keep: list[object] = [played_key]
    if ranked[-1][0] is None:
        keep.append("pass")
    bombs = [c for c in ranked if c[0] is not None and beat_key(c[0].combo, level)[0] > 0]
    if bombs:
        keep.append(min(bombs, key=lambda c: beat_key(c[0].combo, level) if c[0] is not None else ())[2])
    for c in ranked:
        if len(set(keep)) >= limit:
            break
        keep.append(c[2])
    wanted = set(keep)
    return [c for c in ranked if c[2] in wanted]


# ---- valuing ----------------------------------------------------------------------------------


def value_after(child: Position | DealEnd, team: str, solver: Solver, budget: Budget) -> int | None:
    """The exact value of ``child`` for ``team``, or ``None`` when the budget does not suffice."""
    if isinstance(child, DealEnd):
        return child.value_for(team)
    solution = solver.solve(child, budget)
    if solution.value is None:
        return None
    return solution.value if TEAM[child.turn] == team else -solution.value


def _rollout_value(child: Position | DealEnd, team: str, rollout: Rollout, seed: int) -> int:
    if isinstance(child, DealEnd):
        return child.value_for(team)
    value = rollout(child, seed)
    return value if TEAM[child.turn] == team else -value


def value_layouts(
    layouts: Sequence[Position],
    actions: Sequence[Action],
    solver: Solver,
    settings: Settings,
    rollout: Rollout | None,
    seed: int,
) -> tuple[list[list[int]], int]:
    """Per layout the value of every action for the deciding team (exact or by rollout, module
    docstring), and how many layouts were valued exactly. Once the budget fails in one layout
    the later ones go straight to rollouts (the next would most likely fail too, at the same cost).
    Layouts neither way can value (no rollout given, budget short) are left out."""
    table: list[list[int]] = []
    exact = 0
    solvable = all(layout.cards_left() <= settings.exact_cards for layout in layouts)
    for i, layout in enumerate(layouts):
        team = TEAM[layout.turn]
        children = [play_action(layout, a, solver) for a in actions]
        row: list[int] | None = None
        if solvable:
            values = [value_after(c, team, solver, settings.budget) for c in children]
            if all(v is not None for v in values):
                row = [v for v in values if v is not None]
                exact += 1
            else:
                solvable = False
        if row is None and rollout is not None:
            row = [_rollout_value(c, team, rollout, seed * 1_000_003 + i) for c in children]
        if row is not None:
            table.append(row)
    return table, exact


# ---- walking a logged deal --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReturnDecision:
    """A logged return card (rules.md §6): who returned ``card`` to whom, the hands just before."""

    seq: int
    seat: str
    to: str
    card: str
    hands: Mapping[str, tuple[str, ...]]
    tribute: tuple[str, str]
    """(payer, card) of the tribute the returner received."""


@dataclass(frozen=True, slots=True)
class PlayDecision:
    """A logged play or pass: the position before it, the action, what the decider knew and its
    phase (``replay.review.decision_phase``)."""

    seq: int
    position: Position
    action: Action
    view: PlayerView
    phase: str


def deal_decisions(
    events: Sequence[Mapping[str, Any]], ruleset: Ruleset, solver: Solver
) -> tuple[list[ReturnDecision], list[PlayDecision], str | None]:
    """The return decisions and the plays of the deal starting at ``events[0]``, with what each
    decider knows, and the seat that led first."""
    start = events[0]
    hands = {s: list(start.get("hands", {}).get(s) or ()) for s in SEATS}
    if any(len(h) == 0 for h in hands.values()):
        raise ValueError(f"deal {start.get('deal')} does not show all four hands")
    level = normalise_level(start["level"])
    if level is None:
        raise ValueError(f"deal {start.get('deal')} has no valid level")
    given: dict[str, dict[str, list[str]]] = {s: {} for s in SEATS}
    received: dict[str, tuple[str, str]] = {}
    played: dict[str, list[str]] = {s: [] for s in SEATS}
    returns: list[ReturnDecision] = []
    plays: list[PlayDecision] = []
    position: Position | None = None
    jie_feng = False
    for ev in events[1:]:
        kind = ev["type"]
        if kind in ("tribute", "return") and position is None:
            giver, to, card = ev["from"], ev["to"], ev["card"]
            if kind == "return" and giver in received:
                returns.append(
                    ReturnDecision(
                        int(ev["seq"]),
                        giver,
                        to,
                        card,
                        {s: tuple(h) for s, h in hands.items()},
                        received[giver],
                    )
                )
            if kind == "tribute":
                received[to] = (giver, card)
            hands[giver].remove(card)
            hands[to].append(card)
            given[giver].setdefault(to, []).append(card)
        elif kind in ("play", "pass"):
            if position is None:
                position = Position({s: tuple(h) for s, h in hands.items()}, level, ruleset, ev["seat"])
            if ev["seat"] != position.turn:
                raise ValueError(f"seq {ev['seq']}: {ev['seat']} acts but it is {position.turn}'s turn")
            action = action_of(position, ev)
            seat = position.turn
            view = view_of(position, given=given[seat], played=played, tribute_from=received.get(seat))
            phase = decision_phase(position.table is None, action, level, jie_feng)
            plays.append(PlayDecision(int(ev["seq"]), position, action, view, phase))
            after = play_action(position, action, solver)
            if action is not None:
                played[seat].extend(action.cards)
            if isinstance(after, DealEnd):
                break
            jie_feng = leads_by_jie_feng(action is None, after.table is None, after.turn, position.table_seat)
            position = after
        elif kind in ("deal_end", "deal_start", "match_end") or (
            kind == "ruling" and ev.get("kind") in DEAL_ENDING_RULINGS
        ):
            break
    leader = plays[0].position.turn if plays else None
    return returns, plays, leader


# ---- the review -------------------------------------------------------------------------------


def _review_return(
    r: ReturnDecision, level: str, ruleset: Ruleset, leader: str, settings: Settings, rollout: Rollout,
    match: MatchState,
) -> SampledDecision | None:
    hand = r.hands[r.seat]
    counter = Counter(hand)
    to_partner = PARTNER[r.seat] == r.to
    options = [
        c
        for c in sort_cards(set(hand))
        if return_allowed(c, counter, level, ruleset.returns, r.tribute[1], to_partner)
    ]
    if len(options) < 2 or r.card not in options:
        return None
    before = Position(r.hands, level, ruleset, r.seat)
    view = view_of(before, tribute_from=r.tribute)
    table: list[list[int]] = []
    for i, layout in enumerate(sample_layouts(before, view, settings.layouts, settings.seed ^ r.seq)):
        row = []
        for card in options:
            moved = {s: list(h) for s, h in layout.hands.items()}
            moved[r.seat].remove(card)
            moved[r.to].append(card)
            start = Position({s: tuple(h) for s, h in moved.items()}, level, ruleset, leader)
            value = rollout(start, settings.seed * 1_000_003 + r.seq * 97 + i)
            row.append(value if TEAM[leader] == TEAM[r.seat] else -value)
        table.append(row)
    return _decision(
        r.seq, r.seat, "return", RETURN_PHASE, 108, tuple(hand), [(c, 1) for c in options],
        options.index(r.card), table, len(options), 0, team_chance(ruleset, match, TEAM[r.seat]),
    )


def _review_play(
    p: PlayDecision, solver: Solver, settings: Settings, rollout: Rollout | None, match: MatchState
) -> SampledDecision | None:
    position = p.position
    ranked = action_classes(position, solver)
    if len(ranked) < 2:
        return None
    if p.action is None:
        played_key: object = "pass"
    else:
        child = play_action(position, p.action, solver)
        played_key = ("end", child.gain, child.order[0]) if isinstance(child, DealEnd) else solver.key(child)
    kept = _pruned(ranked, played_key, settings.max_candidates, position.level)
    actions = [c[0] for c in kept]
    played = next(i for i, c in enumerate(kept) if c[2] == played_key)
    layouts = sample_layouts(position, p.view, settings.layouts, settings.seed ^ p.seq)
    table, exact = value_layouts(layouts, actions, solver, settings, rollout, settings.seed ^ p.seq)
    if not table:
        return None
    options = [(c[0], c[1]) for c in kept]
    return _decision(
        p.seq, position.turn, "play", p.phase, position.cards_left(), tuple(position.hands[position.turn]),
        options, played, table, len(ranked), exact,
        team_chance(position.ruleset, match, TEAM[position.turn]),
    )


def review_deal_single_dummy(
    events: Sequence[Mapping[str, Any]],
    settings: Settings = Settings(),
    rollout: Rollout | None = None,
    *,
    deal: int | None = None,
    rulesets: Mapping[str, Ruleset] | None = None,
) -> Iterator[SampledDecision]:
    """The single-dummy verdicts on the real decisions of one deal, in log order (module
    docstring): its return cards (when ``rollout`` is given) and its plays and passes. ``events``:
    those of its match (``match_start`` names the ruleset); ``deal``: its number when the events
    hold several. Without ``rollout`` only the decisions the solver settles in every layout get a
    row. Yields row by row (a caller can show progress)."""
    ordered = sorted(events, key=lambda e: int(e["seq"]))
    start = next((e for e in ordered if e.get("type") == "match_start"), None)
    if start is None:
        raise ValueError("the events hold no match_start (it names the ruleset)")
    ruleset = (rulesets or BUILTIN).get(start["rules"])
    if ruleset is None:
        raise ValueError(f"unknown ruleset {start['rules']!r}")
    index = deal_start_index(ordered, None, deal)
    deal_events = ordered[index:]
    level = normalise_level(deal_events[0]["level"])
    if level is None:
        raise ValueError(f"deal {deal_events[0].get('deal')} has no valid level")
    solver = Solver(level, ruleset)
    match = match_state_at(ordered, index, ruleset)
    returns, plays, leader = deal_decisions(deal_events, ruleset, solver)
    if rollout is not None and leader is not None:
        for r in returns:
            row = _review_return(r, level, ruleset, leader, settings, rollout, match)
            if row is not None:
                yield row
    for p in plays:
        row = _review_play(p, solver, settings, rollout, match)
        if row is not None:
            yield row
