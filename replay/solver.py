"""Exact endgame solver: the value of a deal under best play by both teams.

A :class:`Position` is the play phase of a deal frozen between two actions: the four hands, level,
ruleset, whose turn, the play on the table and who made it, passes since, and who is out in which
order. :func:`solve` returns its game-theoretic value for the team to move, in levels (rules.md
§5.8): +3 / +2 / +1 when that team's player finishes first and the partner 2nd / 3rd / 4th,
−1 / −2 / −3 when the other team does; and every action (a :class:`~replay.moves.Move`, or ``None``
for a pass) that achieves it.

Turns, passes, the end of a trick, 接风 (§5.6), going out and the end of the deal (§5.7) follow
``replay/replayer.py`` exactly: one primitive transition (:func:`play_action`) serves both the
search and the stepping of logged deals (``replay.review``), and the tests replay simulated logs
through it.

The search is negamax alpha-beta with a transposition table (TT). States are keyed canonically:
seats relative to the player to move (the game is the same from any seat), the table by its
``beat_key`` (all §4 comparisons depend on nothing else), and each hand by what can matter in its
future — rank counts, wilds, jokers and, per suit, only the cards that could still join a straight
flush (the one place suits matter, §3): such windows only close as cards leave the hand, and suits
never interact between players, so two hands with equal keys have the same future. Moves with the
same resulting hand key and table key are one child. Once the first player is out the value's
sign is fixed and the window shrinks to the places still open, which cuts the search. Players who
cannot beat the table (no legal play) pass without a node of their own.

Where the engine runs with its Cython core, the search runs in C (``replay/_search.pyx``,
:data:`SEARCH_ENGINE`): the same tree in the same order, so the same values, best moves and node
counts; the Python search here is the reference and the fallback.

A :class:`Budget` of nodes and/or seconds bounds each solve; when it runs out the answer is an
explicit ``solved=False`` with no value, never a guess. Pure: no I/O.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from types import ModuleType
from typing import Any, Final

from replay import native
from replay.cards import (
    BIG_JOKER_CODE,
    CODE,
    SMALL_JOKER_CODE,
    level_index,
    parse_cards,
    sort_cards,
    wild_code,
)
from replay.combos import BeatKey, Combo, beat_key, combo, key_beats, readings
from replay.moves import Move, legal_moves
from replay.outcome import finish_gain
from replay.rulesets import Ruleset
from replay.seats import NEXT, PARTNER, SEATS, TEAM

Action = Move | None
"""A decision: a play, or ``None`` for a pass."""

_NEXT: Final = tuple(SEATS.index(NEXT[s]) for s in SEATS)
_PARTNER: Final = tuple(SEATS.index(PARTNER[s]) for s in SEATS)
_SAME_TEAM: Final = tuple(tuple(TEAM[a] == TEAM[b] for b in SEATS) for a in SEATS)
_GAIN: Final = {
    order: finish_gain([SEATS[i] for i in order]) for n in (2, 3) for order in permutations(range(4), n)
}
"""Levels the 1st-place team gains (rules.md §5.8) by the finishing order of the seats out."""

TT_LIMIT: Final = 1 << 21
"""Entries the transposition table holds before it is cleared (bounds memory to a few hundred MB)."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How much work one solve may do: nodes searched and/or seconds (``None``: no limit)."""

    nodes: int | None = 1_000_000
    seconds: float | None = None


DEFAULT_BUDGET: Final = Budget()
"""A million nodes, no time limit."""


@dataclass(frozen=True, slots=True)
class Position:
    """The play phase of a deal between two actions (see the module docstring).

    ``hands``: seat → cards (every seat; an out seat holds none). ``table`` and ``table_seat``:
    the last play of the trick in progress and who made it (``None`` when ``turn`` leads).
    ``passes``: passes since that play. ``out``: the seats out, in finishing order.
    """

    hands: Mapping[str, Sequence[str]]
    level: str
    ruleset: Ruleset
    turn: str
    table: Combo | None = None
    table_seat: str | None = None
    passes: int = 0
    out: tuple[str, ...] = ()

    def cards_left(self) -> int:
        """Cards still held by all seats together."""
        return sum(len(h) for h in self.hands.values())


@dataclass(frozen=True, slots=True)
class Solution:
    """The result of :func:`solve`: ``value`` for the team to move (``None`` when unsolved), every
    best action (plays in ``legal_moves`` order, then ``None`` for a pass), nodes searched, and
    whether the budget sufficed."""

    value: int | None
    best_moves: tuple[Action, ...]
    nodes: int
    solved: bool


@dataclass(frozen=True, slots=True)
class DealEnd:
    """A deal just ended by a play (rules.md §5.7): the finishing order as the replay derives it
    (all four seats, or the two winners after a double win) and the 1st team's gain (§5.8)."""

    order: tuple[str, ...]
    gain: int

    def value_for(self, team: str) -> int:
        """The outcome in levels for ``team``: ``gain`` if it finished first, else ``-gain``."""
        return self.gain if TEAM[self.order[0]] == team else -self.gain


TALLIED: Final = combo("single", "2")
"""The table of a tally (:meth:`Solver.tally`): a stand-in, its reading not worked out."""
_TALLIED_KEY: Final = beat_key(TALLIED, "2")


class _Unsolved(Exception):
    """The budget ran out (caught in :meth:`Solver.solve`)."""


_State = tuple[tuple[int, ...], int, Combo | None, BeatKey | None, int, int, tuple[int, ...]]
"""hands (interned hand ids by seat index), turn, table, its beat key, table seat (-1: none),
passes, seats out in order."""

SearchState = _State
"""A position as the solver holds it (:meth:`Solver.state_of`, :meth:`Solver.step`); opaque."""

_Group = tuple[int, Combo, BeatKey, int, tuple[Move, ...]]
"""Equivalent plays: the hand left (id), the reading, its beat key and id, and the moves."""


def _position_masks(lv: int) -> tuple[int, ...]:
    """Per card code: its sequence-position bits (A at positions 1 and 14), 0 for wilds and jokers."""
    wc = 13 + lv
    masks = []
    for c in range(54):
        r = c % 13
        bits = 0 if c >= SMALL_JOKER_CODE or c == wc else (1 << 1 | 1 << 14) if r == 12 else 1 << (r + 2)
        masks.append(bits)
    return tuple(masks)


_WINDOWS: Final = tuple(0b11111 << start for start in range(1, 11))
_LIVE: dict[int, int] = {}
"""Memo of :func:`_live_windows` by ``mask | need << 16``."""


def _live_windows(mask: int, need: int) -> int:
    """The positions of every five-position window holding ``need`` or more of ``mask``'s positions."""
    key = mask | need << 16
    live = _LIVE.get(key)
    if live is None:
        live = 0
        for window in _WINDOWS:
            if (mask & window).bit_count() >= need:
                live |= window
        _LIVE[key] = live
    return live


def _bounds(budget: Budget) -> tuple[int, float | None]:
    """A solve's node limit and its deadline (``time.perf_counter``) from ``budget``."""
    limit = budget.nodes if budget.nodes is not None else 1 << 62
    return limit, time.perf_counter() + budget.seconds if budget.seconds is not None else None


SEARCH_ENGINE: Final = native.core("_search")
"""The search in C (``replay/_search.pyx``) that :class:`Solver` uses by default where the engine
runs with its Cython modules and the search is built, else None (the Python search runs)."""


class Solver:
    """An exact solver for the positions of one level and ruleset, keeping its transposition table
    and move caches between calls: positions of one deal share most of their subtrees, so solving
    them one after another (as ``replay.review`` does, from the end of the deal backwards) reuses
    what earlier calls found. Every stored bound is a true fact about its state, whatever the root.

    ``engine``: the search in C (:data:`SEARCH_ENGINE`) or None for the Python search; both give
    the same values, best moves and node counts (the C one walks the same tree in the same order,
    with the same transposition-table rule, on this solver's move groups)."""

    def __init__(self, level: str, ruleset: Ruleset, engine: ModuleType | None = SEARCH_ENGINE) -> None:
        self.level = level
        self.ruleset = ruleset
        self._lv = level_index(level)
        self._wc = wild_code(level)
        self._pos_bits = _position_masks(self._lv)
        self._hand_ids: dict[tuple[str, ...], int] = {(): 0}
        self._hands: list[tuple[str, ...]] = [()]
        self._canon: list[int] = [0]
        self._canon_ids: dict[tuple[object, ...], int] = {(): 0}
        self._bk_ids: dict[BeatKey | None, int] = {None: 0}
        self._leads: dict[int, list[_Group]] = {}
        self._follows: dict[tuple[int, BeatKey], list[_Group]] = {}
        self._legal: dict[int, list[Move]] = {}
        """Each hand's legal leads in ``legal_moves`` order (the order of a solution's best moves)."""
        self._tt: dict[int, int] = {}
        self.nodes = 0
        self._limit = 0
        self._deadline: float | None = None
        self._check_at = 0
        self._engine = engine
        self._native: Any = None

    # ---- hands --------------------------------------------------------------------------------

    def _hand_id(self, hand: tuple[str, ...]) -> int:
        """The interned id of an exact hand (cards in canonical order), its canonical key known."""
        hid = self._raw_hand_id(hand)
        if self._canon[hid] < 0:
            key = self._canonical_hand(hand)
            cid = self._canon_ids.get(key)
            if cid is None:
                cid = self._canon_ids[key] = len(self._canon_ids)
            self._canon[hid] = cid
        return hid

    def _raw_hand_id(self, hand: tuple[str, ...]) -> int:
        """The interned id of an exact hand, its canonical key left for :meth:`_hand_id` (following
        a logged deal needs none until a position is solved)."""
        hid = self._hand_ids.get(hand)
        if hid is None:
            hid = self._hand_ids[hand] = len(self._hands)
            self._hands.append(hand)
            self._canon.append(-1)
        return hid

    def _canonical_hand(self, hand: tuple[str, ...]) -> tuple[object, ...]:
        """What of a hand can matter for the rest of the deal (module docstring): wilds, jokers,
        natural rank counts, and per suit the cards inside a window where a straight flush can
        still form (sorted: suits are interchangeable within one hand)."""
        wc, bits = self._wc, self._pos_bits
        wilds = sb = hr = 0
        nat = [0] * 13
        suit_cards: list[list[int]] = [[], [], [], []]
        masks = [0, 0, 0, 0]
        for card in hand:
            c = CODE[card]
            if c == wc:
                wilds += 1
            elif c == SMALL_JOKER_CODE:
                sb += 1
            elif c == BIG_JOKER_CODE:
                hr += 1
            else:
                nat[c % 13] += 1
                suit_cards[c // 13].append(c)
                masks[c // 13] |= bits[c]
        need = 5 - wilds
        suits: list[tuple[int, ...]] = []
        for s in range(4):
            if masks[s].bit_count() < need:
                continue
            live = _live_windows(masks[s], need)
            if live:
                kept = tuple(c % 13 for c in suit_cards[s] if bits[c] & live)
                if kept:
                    suits.append(kept)
        suits.sort()
        return (wilds, sb, hr, tuple(nat), tuple(suits))

    def _bk_id(self, key: BeatKey | None) -> int:
        bid = self._bk_ids.get(key)
        if bid is None:
            bid = self._bk_ids[key] = len(self._bk_ids)
        return bid

    def _groups(self, hid: int, tbk: BeatKey | None) -> list[_Group]:
        """The distinct plays from hand ``hid`` onto the table whose beat key is ``tbk`` (``None``:
        leading), cached, best-first by a static order: going out, then (leading) more cards and
        lower ranks, bombs last, (following) the cheapest play that beats. The plays onto a table
        are the leads whose reading beats it (rules.md §4; ``legal_moves`` lists them in the same
        order), so a hand's moves are generated once whatever the tables it meets."""
        if tbk is not None:
            hit = self._follows.get((hid, tbk))
            if hit is None:
                hit = [g for g in self._groups(hid, None) if key_beats(g[2], tbk)]
                hit.sort(key=lambda g: (g[0] != 0, g[2][0], g[2][2]))
                self._follows[(hid, tbk)] = hit
            return hit
        hit = self._leads.get(hid)
        if hit is not None:
            return hit
        hand = self._hands[hid]
        moves = self._legal[hid] = legal_moves(
            hand, self.level, None, full_house_joker_pair=self.ruleset.full_house_joker_pair
        )
        by_child: dict[tuple[int, int], list[Move]] = {}
        info: dict[tuple[int, int], tuple[int, Combo, BeatKey]] = {}
        for m in moves:
            rest = list(hand)
            for c in m.cards:
                rest.remove(c)
            rid = self._hand_id(tuple(rest))
            bk = beat_key(m.combo, self.level)
            child = (self._canon[rid], self._bk_id(bk))
            if child not in by_child:
                by_child[child] = []
                info[child] = (rid, m.combo, bk)
            by_child[child].append(m)
        groups: list[_Group] = []
        for child, ms in by_child.items():
            rid, reading, bk = info[child]
            groups.append((rid, reading, bk, child[1], tuple(ms)))
        groups.sort(key=lambda g: (g[0] != 0, g[2][0] > 0, -g[1].size, g[2][2]))
        self._leads[hid] = groups
        return groups

    # ---- transitions (rules.md §5.3–§5.7, as replay/replayer.py applies them) -----------------

    @staticmethod
    def _next_active(hands: tuple[int, ...], seat: int) -> int:
        s = _NEXT[seat]
        while hands[s] == 0:
            s = _NEXT[s]
        return s

    def _play(self, state: _State, rid: int, combo: Combo, bk: BeatKey) -> _State | int:
        """The state after the player to move plays, leaving hand ``rid``; or, when the play ends
        the deal (§5.7), its value for the player's team."""
        hands, turn, _, _, _, _, out = state
        hands = (*hands[:turn], rid, *hands[turn + 1 :])
        if rid == 0:
            out = (*out, turn)
            n = len(out)
            if n == 3 or (n == 2 and _SAME_TEAM[out[0]][turn]):
                gain = _GAIN[out]
                return gain if _SAME_TEAM[out[0]][turn] else -gain
        return (hands, self._next_active(hands, turn), combo, bk, turn, 0, out)

    def _pass(self, state: _State) -> _State:
        """The state after the player to move passes: the next player's turn, or the end of the
        trick when every other player holding cards has passed; its last player leads the next, or
        that player's partner when the last player is out (接风, §5.6)."""
        hands, turn, table, tbk, tseat, passes, out = state
        passes += 1
        if passes < 4 - len(out) - (hands[tseat] != 0):
            return (hands, self._next_active(hands, turn), table, tbk, tseat, passes, out)
        leader = tseat if hands[tseat] else _PARTNER[tseat]
        return (hands, leader, None, None, -1, 0, out)

    def _settle(self, state: _State) -> _State:
        """``state`` after the passes of every player in turn who cannot beat the table (no choice)."""
        while state[2] is not None and not self._groups(state[0][state[1]], state[3]):
            state = self._pass(state)
        return state

    # ---- search -------------------------------------------------------------------------------

    def _key(self, state: _State) -> int:
        """The TT key: canonical hands and the rest, seats relative to the player to move."""
        hands, turn, _, tbk, tseat, passes, out = state
        canon = self._canon
        key = (
            canon[hands[turn]]
            | canon[hands[(turn + 1) % 4]] << 28
            | canon[hands[(turn + 2) % 4]] << 56
            | canon[hands[(turn + 3) % 4]] << 84
        )
        first = (out[0] - turn) % 4 if out else 4
        seat = (tseat - turn) % 4 if tseat >= 0 else 4
        return key | (first | seat << 3 | passes << 6 | self._bk_id(tbk) << 8) << 112

    def _tick(self) -> None:
        """Count budget: raise :class:`_Unsolved` past the node limit or the deadline."""
        if self.nodes > self._limit:
            raise _Unsolved
        deadline = self._deadline
        if deadline is not None and time.perf_counter() > deadline:
            raise _Unsolved
        self._check_at = min(self._limit + 1, self.nodes + 256)

    def _search(self, state: _State, alpha: int, beta: int) -> int:
        """Negamax alpha-beta: the value of ``state`` for the team to move if it lies inside
        (alpha, beta), else a bound on the side it falls (fail-soft); every bound stored is true."""
        self.nodes += 1
        if self.nodes >= self._check_at:
            self._tick()
        hands, turn, table, tbk, tseat, _, out = state
        if out:
            mine = _SAME_TEAM[out[0]][turn]
            if len(out) == 2:
                lo, hi = (1, 2) if mine else (-2, -1)
            else:
                lo, hi = (1, 3) if mine else (-3, -1)
        else:
            lo, hi = -3, 3
        key = self._key(state)
        entry = self._tt.get(key)
        hint = -2
        if entry is not None:
            lo = max(lo, (entry & 7) - 3)
            hi = min(hi, (entry >> 3 & 7) - 3)
            hint = (entry >> 6) - 2
        if lo >= hi or lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        a, b = max(alpha, lo), min(beta, hi)
        groups = self._groups(hands[turn], tbk)
        order: list[int] = list(range(len(groups)))
        if table is not None:
            order.insert(0 if _SAME_TEAM[tseat][turn] else len(order), -1)
        if hint != order[0] and (0 <= hint < len(groups) or (hint == -1 and table is not None)):
            order.remove(hint)
            order.insert(0, hint)
        best, best_i = -4, -1
        for i in order:
            if i < 0:
                child: _State | int = self._settle(self._pass(state))
            else:
                rid, combo, bk, _, _ = groups[i]
                child = self._play(state, rid, combo, bk)
                if not isinstance(child, int):
                    child = self._settle(child)
            if isinstance(child, int):
                v = child
            elif _SAME_TEAM[child[1]][turn]:
                v = self._search(child, a, b)
            else:
                v = -self._search(child, -b, -a)
            if v > best:
                best, best_i = v, i
                if v > a:
                    a = v
                    if a >= b:
                        break
        best = max(lo, min(hi, best))
        if best <= max(alpha, lo):
            lo_s, hi_s = lo, best
        elif best >= min(beta, hi):
            lo_s, hi_s = best, hi
        else:
            lo_s = hi_s = best
        if len(self._tt) >= TT_LIMIT:
            self._tt.clear()
        self._tt[key] = (lo_s + 3) | (hi_s + 3) << 3 | (best_i + 2) << 6
        return best

    # ---- public -------------------------------------------------------------------------------

    def state_of(self, position: Position) -> _State:
        """The internal state of a position, checked (``ValueError`` names what is wrong)."""
        if position.level != self.level or position.ruleset != self.ruleset:
            raise ValueError("the position's level or ruleset is not this solver's")
        return _state_of(self, position)

    def key(self, position: Position) -> int:
        """The canonical transposition-table key of ``position``: equal keys, equal values."""
        return self._key(self.state_of(position))

    def solve(self, position: Position, budget: Budget = DEFAULT_BUDGET) -> Solution:
        """The value of ``position`` and every action achieving it, within ``budget``."""
        return self.solve_state(self.state_of(position), budget)

    def solve_state(self, state: SearchState, budget: Budget = DEFAULT_BUDGET) -> Solution:
        """:meth:`solve` for a state this solver built (:meth:`state_of`, :meth:`step`): what
        following a logged deal step by step solves without rebuilding positions."""
        for hid in state[0]:
            self._hand_id(self._hands[hid])
        if self._engine is not None:
            return self._solve_native(self._engine, state, budget)
        self.nodes = 0
        self._limit, self._deadline = _bounds(budget)
        self._check_at = 1
        try:
            value = self._search(state, -4, 4)
            best: list[Move] = []
            pass_best = False
            turn = state[1]
            for action in self._root_actions(state):
                child: _State | int
                if action is None:
                    child = self._settle(self._pass(state))
                else:
                    child = self._play(state, action[0], action[1], action[2])
                    if not isinstance(child, int):
                        child = self._settle(child)
                if isinstance(child, int):
                    ok = child >= value
                elif _SAME_TEAM[child[1]][turn]:
                    ok = self._search(child, value - 1, value) >= value
                else:
                    ok = self._search(child, -value, 1 - value) <= -value
                if ok and action is None:
                    pass_best = True
                elif ok and action is not None:
                    best.extend(action[4])
        except _Unsolved:
            return Solution(None, (), self.nodes, False)
        return self._solution(state, value, best, pass_best)

    def _solve_native(self, engine: ModuleType, state: _State, budget: Budget) -> Solution:
        """:meth:`solve_state` by the search in C, which keeps its own transposition table."""
        if self._native is None:
            self._native = engine.Search(self, _NEXT, _PARTNER, _SAME_TEAM, _GAIN, TT_LIMIT)
        answer = self._native.solve(state, *_bounds(budget))
        self.nodes = self._native.nodes
        if answer is None:
            return Solution(None, (), self.nodes, False)
        value, best_groups, pass_best = answer
        groups = self._groups(state[0][state[1]], state[3])
        return self._solution(state, value, [m for i in best_groups for m in groups[i][4]], pass_best)

    def _solution(self, state: _State, value: int, best: list[Move], pass_best: bool) -> Solution:
        """The solved answer: the best moves in the order of the hand's legal moves, then a pass
        when passing is best too."""
        order = {m: i for i, m in enumerate(self._legal[state[0][state[1]]])}
        best.sort(key=order.__getitem__)
        return Solution(value, (*best, *((None,) if pass_best else ())), self.nodes, True)

    def _root_actions(self, state: _State) -> list[_Group | None]:
        groups: list[_Group | None] = list(self._groups(state[0][state[1]], state[3]))
        if state[2] is not None:
            groups.append(None)
        return groups

    def step(self, state: SearchState, action: Action) -> SearchState | DealEnd:
        """The state after the player to move in ``state`` takes ``action``, or the
        :class:`DealEnd` when it ends the deal (rules.md §5.3–§5.7); ``ValueError`` when the action
        is not legal there. :func:`play_action` on internal states: no position is rebuilt."""
        hands, turn, table, tbk, _, _, out = state
        seat = SEATS[turn]
        result: _State | int
        if action is None:
            if table is None:
                raise ValueError(f"{seat} must lead, not pass (rules.md §5.3)")
            result = self._pass(state)
        else:
            hand = list(self._hands[hands[turn]])
            for c in action.cards:
                if c not in hand:
                    raise ValueError(f"{seat} does not hold {' '.join(action.cards)}")
                hand.remove(c)
            if action.combo not in readings(list(action.cards), self.level):
                raise ValueError(f"{' '.join(action.cards)} cannot be read as {action.combo}")
            bk = beat_key(action.combo, self.level)
            if tbk is not None and not key_beats(bk, tbk):
                raise ValueError(f"{action.combo} does not beat {table} (rules.md §4)")
            joker_pair = action.cards.count("SB") == 2 or action.cards.count("HR") == 2
            if action.combo.type == "full_house" and joker_pair and not self.ruleset.full_house_joker_pair:
                raise ValueError(f"{self.ruleset.id} allows no full house with a joker pair (rules.md §10)")
            result = self._play(state, self._raw_hand_id(sort_cards(hand)), action.combo, bk)
        if isinstance(result, int):
            return _deal_end(out, turn, result)
        return result

    def tally(self, counts: Sequence[int], turn: str) -> SearchState:
        """The tally of a deal's first decision: ``counts``, cards held per seat (:data:`SEATS`
        order), ``turn`` the first to lead. A tally is a state whose hands are card counts
        instead of hands and whose table is :data:`TALLIED` (its reading is not worked out):
        the transition looks at a hand only to see whether it is empty, so :meth:`tally_step`
        follows turns, tricks, 接风 and going out (rules.md §5.3–§5.7) exactly as :meth:`step`
        does, without the cards."""
        return (tuple(counts), SEATS.index(turn), None, None, -1, 0, ())

    def tally_step(self, tally: SearchState, cards: int | None) -> SearchState | DealEnd:
        """The tally after the player to move plays ``cards`` cards (``None``: passes), or the
        :class:`DealEnd` when the play ends the deal. Nothing is checked but that a leader does
        not pass and a play holds no more cards than the hand."""
        counts, turn, table, _, _, _, out = tally
        if cards is None:
            if table is None:
                raise ValueError(f"{SEATS[turn]} must lead, not pass (rules.md §5.3)")
            return self._pass(tally)
        if not 0 < cards <= counts[turn]:
            raise ValueError(f"{SEATS[turn]} cannot play {cards} cards holding {counts[turn]}")
        result = self._play(tally, counts[turn] - cards, TALLIED, _TALLIED_KEY)
        return _deal_end(out, turn, result) if isinstance(result, int) else result

    def position_of(self, state: SearchState) -> Position:
        """The :class:`Position` of a state this solver built."""
        hands, turn, table, _, tseat, passes, out = state
        return Position(
            hands={s: self._hands[hands[i]] for i, s in enumerate(SEATS)},
            level=self.level,
            ruleset=self.ruleset,
            turn=SEATS[turn],
            table=table,
            table_seat=SEATS[tseat] if tseat >= 0 else None,
            passes=passes,
            out=tuple(SEATS[i] for i in out),
        )

    def cards_left(self, state: SearchState) -> int:
        """Cards still held by all seats together in ``state``."""
        return sum(len(self._hands[h]) for h in state[0])

    def hand(self, state: SearchState, seat: str) -> tuple[str, ...]:
        """The cards ``seat`` holds in ``state`` (canonical order)."""
        return self._hands[state[0][SEATS.index(seat)]]

    def reading(
        self, table: Combo | None, cards: Sequence[str], declared: tuple[str, str] | None = None
    ) -> Combo:
        """:func:`reading_of` for a play onto ``table`` at this solver's level and ruleset."""
        return _reading(self.level, self.ruleset, table, cards, declared)

    def action_count(self, state: SearchState) -> int:
        """The legal actions of the player to move: every legal play, and a pass when following
        (rules.md §5.3)."""
        groups = self._groups(state[0][state[1]], state[3])
        return sum(len(g[4]) for g in groups) + (state[2] is not None)

    def can_play(self, state: SearchState) -> bool:
        """Whether the player to move has a legal play (a follower who has none must pass)."""
        return bool(self._groups(state[0][state[1]], state[3]))


def _deal_end(out: tuple[int, ...], turn: int, value: int) -> DealEnd:
    """The end of the deal when ``turn``'s play, with ``out`` out before it, is worth ``value``
    to its team."""
    done = (*(SEATS[i] for i in out), SEATS[turn])
    rest = tuple(s for s in SEATS if s not in done)
    return DealEnd(done + rest if len(done) == 3 else done, abs(value))


def _state_of(solver: Solver, p: Position) -> _State:
    """Check a position (rules.md §1, §5) and build its internal state."""
    if set(p.hands) != set(SEATS):
        raise ValueError(f"hands must be given for every seat {', '.join(SEATS)}")
    hands = tuple(sort_cards(p.hands[s]) for s in SEATS)
    every = [c for h in hands for c in h]
    parse_cards(every)
    over = [c for c, copies in Counter(every).items() if copies > 2]
    if over:
        raise ValueError(f"more than two copies of {', '.join(sorted(over))} (a double deck has two)")
    if len(set(p.out)) != len(p.out) or any(s not in SEATS for s in p.out):
        raise ValueError(f"out must be distinct seats, got {p.out}")
    for i, s in enumerate(SEATS):
        if (s in p.out) != (not hands[i]):
            raise ValueError(
                f"seat {s} {'is out but holds cards' if hands[i] else 'holds no cards but is not out'}"
            )
    n = len(p.out)
    if n >= 3 or (n == 2 and TEAM[p.out[0]] == TEAM[p.out[1]]):
        raise ValueError(f"the deal is over (out: {', '.join(p.out)}, rules.md §5.7)")
    if p.turn not in SEATS or p.turn in p.out:
        raise ValueError(f"turn {p.turn!r} must be a seat still holding cards")
    out = tuple(SEATS.index(s) for s in p.out)
    ids = tuple(solver._hand_id(h) for h in hands)
    turn = SEATS.index(p.turn)
    if p.table is None:
        if p.table_seat is not None or p.passes:
            raise ValueError("a position with no table has no table seat and no passes")
        return (ids, turn, None, None, -1, 0, out)
    if p.table_seat not in SEATS or p.table_seat == p.turn:
        raise ValueError(f"table seat {p.table_seat!r} must be another seat than the one to play")
    tseat = SEATS.index(p.table_seat)
    passes, seat = 0, Solver._next_active(ids, tseat)
    while seat != turn:
        passes, seat = passes + 1, Solver._next_active(ids, seat)
    if passes != p.passes or passes >= 4 - n - (ids[tseat] != 0):
        raise ValueError(
            f"{p.passes} passes since {p.table_seat}'s play does not lead to {p.turn}'s turn (rules.md §5.3)"
        )
    return (ids, turn, p.table, beat_key(p.table, p.level), tseat, passes, out)


def solve(position: Position, budget: Budget = DEFAULT_BUDGET) -> Solution:
    """The game-theoretic value of ``position`` for the team to move and every best action
    (module docstring), or ``solved=False`` when ``budget`` runs out. ``ValueError`` if the
    position is not one the play phase can reach (cards, seats out, turn and passes)."""
    return Solver(position.level, position.ruleset).solve(position, budget)


def reading_of(position: Position, cards: Sequence[str], declared: tuple[str, str] | None = None) -> Combo:
    """The reading the replay gives ``cards`` played in ``position`` (events.md "Combination
    reading"): the ``declared`` (type, rank) if given, else when following the weakest reading that beats the
    table, when leading the strongest. ``ValueError`` when none fits."""
    return _reading(position.level, position.ruleset, position.table, cards, declared)


def _reading(level: str, ruleset: Ruleset, table: Combo | None, cards: Sequence[str],
             declared: tuple[str, str] | None) -> Combo:
    options = readings(list(cards), level)
    joker_pair = cards.count("SB") == 2 or cards.count("HR") == 2
    if not ruleset.full_house_joker_pair and joker_pair:
        options = [r for r in options if r.type != "full_house"]
    if declared is not None:
        options = [r for r in options if (r.type, r.rank) == declared]
    if table is not None:
        key = beat_key(table, level)
        options = [r for r in options if key_beats(beat_key(r, level), key)]
    if not options:
        raise ValueError(f"{' '.join(cards)} is no play onto {table} at level {level} (rules.md §3-§4)")
    return options[0] if table is not None and declared is None else options[-1]


def play_action(position: Position, action: Action, solver: Solver | None = None) -> Position | DealEnd:
    """The position after the player to move takes ``action`` (a play, or ``None`` to pass), or the
    :class:`DealEnd` when it ends the deal — the transition the search uses (rules.md §5.3–§5.7).
    ``ValueError`` when the action is not legal there. ``solver`` (of the position's level and
    ruleset) is reused when given: following a whole deal, its hand tables make each step cheap."""
    solver = solver or Solver(position.level, position.ruleset)
    result = solver.step(solver.state_of(position), action)
    return result if isinstance(result, DealEnd) else solver.position_of(result)
