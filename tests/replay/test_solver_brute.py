"""Random small endgames and an exhaustive minimax written apart from ``replay.solver``.

The minimax plays every legal move and every pass, without pruning, tables or canonical keys,
straight from rules.md §5 (turn order, passes, end of trick, 接风 §5.6, going out §5.5, the end of
the deal §5.7 and its value §5.8), so the solver's value can be checked against it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from replay import DECK, NEXT, PARTNER, RANKS, SEATS, SUITS, TEAM, Combo, Move, legal_moves
from replay.cards import sort_cards
from replay.combos import beat_key, key_beats
from replay.rulesets import BUILTIN, Ruleset
from replay.solver import Budget, Position, Solver, solve


def brute_value(p: Position) -> int:
    """The value of ``p`` for the team to move, by full minimax (rules.md §5)."""
    hands = {s: sort_cards(p.hands[s]) for s in SEATS}
    return _minimax(hands, p.level, p.ruleset, p.turn, p.table, p.table_seat, p.passes, list(p.out))


def _minimax(
    hands: dict[str, tuple[str, ...]],
    level: str,
    ruleset: Ruleset,
    turn: str,
    table: Combo | None,
    table_seat: str | None,
    passes: int,
    out: list[str],
) -> int:
    team = TEAM[turn]
    best = -99

    def score(value_for: str, value: int) -> int:
        return value if value_for == team else -value

    for m in _moves(hands[turn], level, table, ruleset.full_house_joker_pair):
        if table is not None:
            assert key_beats(beat_key(m.combo, level), beat_key(table, level))
        rest = Counter(hands[turn])
        rest.subtract(m.cards)
        after = {**hands, turn: sort_cards(rest.elements())}
        new_out = [*out, turn] if not after[turn] else out
        if len(new_out) == 3 or (len(new_out) == 2 and TEAM[new_out[0]] == TEAM[new_out[1]]):
            first = new_out[0]
            gain = 3 if len(new_out) == 2 else 2 if new_out[2] == PARTNER[first] else 1
            v = score(TEAM[first], gain)
        else:
            nxt = NEXT[turn]
            while not after[nxt]:
                nxt = NEXT[nxt]
            v = score(TEAM[nxt], _minimax(after, level, ruleset, nxt, m.combo, turn, 0, new_out))
        best = max(best, v)
    if table is not None:
        assert table_seat is not None
        holding = [s for s in SEATS if hands[s]]
        others = len(holding) - (1 if hands[table_seat] else 0)
        if passes + 1 < others:
            nxt = NEXT[turn]
            while not hands[nxt]:
                nxt = NEXT[nxt]
            v = _minimax(hands, level, ruleset, nxt, table, table_seat, passes + 1, out)
        else:
            nxt = table_seat if hands[table_seat] else PARTNER[table_seat]
            v = _minimax(hands, level, ruleset, nxt, None, None, 0, out)
        best = max(best, score(TEAM[nxt], v))
    return best


_MOVES: dict[tuple[tuple[str, ...], str, Combo | None, bool], list[Move]] = {}


def _moves(hand: tuple[str, ...], level: str, table: Combo | None, joker_pair: bool) -> list[Move]:
    """``legal_moves``, remembered (move generation only: no game state is cached)."""
    key = (hand, level, table, joker_pair)
    hit = _MOVES.get(key)
    if hit is None:
        hit = _MOVES[key] = legal_moves(hand, level, table, full_house_joker_pair=joker_pair)
    return hit


def _bomb(rng: random.Random, pool: list[str], ranks: list[str]) -> list[str]:
    """Four cards of one rank taken from ``pool`` (none if the pool lacks them)."""
    rank = rng.choice(ranks)
    four = [c for c in pool if c[1] == rank][:4]
    if len(four) < 4:
        return []
    for c in four:
        pool.remove(c)
    return four


def _run(rng: random.Random, pool: list[str], level: str) -> list[str]:
    """Five cards of consecutive ranks, mostly of one suit, sometimes one of them the wild: often a
    straight flush (any rank: the ranks of ``pool`` may not suffice; taken from it when there)."""
    start = rng.randint(0, 9)
    suit = rng.choice(SUITS)
    ranks = [RANKS[start + i - 1] if start + i > 0 else "A" for i in range(5)]
    cards = [(suit if rng.random() < 0.85 else rng.choice(SUITS)) + r for r in ranks]
    if rng.random() < 0.5:
        cards[rng.randrange(5)] = f"H{level}"
    for c in cards:
        if c in pool:
            pool.remove(c)
    return cards


def random_endgame(rng: random.Random, max_cards: int = 3, max_total: int = 12) -> Position:
    """A reachable play-phase position with at most ``max_cards`` a seat and ``max_total`` in all
    (two times in five one seat holds more instead: a four-card bomb or a five-card run, often a
    straight flush),
    drawn from few ranks so that pairs, triples, wilds, sequences and bombs are common; any ruleset
    and level; a table (a random play, possibly a bomb, by a seat still holding cards or by the
    last seat out) or a lead."""
    level = rng.choice(RANKS)
    ruleset = rng.choice(list(BUILTIN.values()))
    ranks = rng.sample(RANKS, rng.randint(3, 6))
    pool = [c for c in DECK if c[1] in ranks or c in ("SB", "HR", f"H{level}")]
    rng.shuffle(pool)
    n_out = rng.choice((0, 0, 0, 1, 1, 2))
    out = rng.sample(SEATS, n_out)
    if n_out == 2 and TEAM[out[0]] == TEAM[out[1]]:
        out = out[:1]
    hands: dict[str, list[str]] = {s: [] for s in SEATS}
    holders = [s for s in SEATS if s not in out]
    budget = max_total - len(holders)
    special = rng.choice(holders) if rng.random() < 0.4 and budget >= 4 else None
    cards: list[str] = []
    if special is not None:
        cards = _bomb(rng, pool, ranks) if rng.random() < 0.5 else _run(rng, pool, level)
        budget -= len(cards) - 1
    for s in holders:
        if s == special and cards:
            hands[s] = cards
            continue
        extra = rng.randint(0, max(0, min(max_cards - 1, budget)))
        budget -= extra
        hands[s], pool = pool[: 1 + extra], pool[1 + extra :]
    turn = rng.choice(holders)
    table: Combo | None = None
    table_seat: str | None = None
    passes = 0
    if rng.random() < 0.6:
        spare = pool[: rng.randint(1, 6)]
        plays = legal_moves(spare, level, None, full_house_joker_pair=ruleset.full_house_joker_pair)
        candidates = [s for s in SEATS if s != turn and (s in holders or (out and s == out[-1]))]
        if plays and candidates:
            table = rng.choice(plays).combo
            table_seat = rng.choice(candidates)
            s = NEXT[table_seat]
            while not hands[s]:
                s = NEXT[s]
            while s != turn:
                passes += 1
                s = NEXT[s]
                while not hands[s]:
                    s = NEXT[s]
            if passes >= len(holders) - (1 if hands[table_seat] else 0):
                table = table_seat = None
                passes = 0
    return Position(
        hands={s: tuple(h) for s, h in hands.items()},
        level=level,
        ruleset=ruleset,
        turn=turn,
        table=table,
        table_seat=table_seat,
        passes=passes,
        out=tuple(out),
    )


def _check_against_minimax(seed: int, count: int, max_total: int) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        p = random_endgame(rng, 3, max_total)
        s = solve(p, Budget(nodes=None))
        assert s.solved and s.value == brute_value(p), p


@pytest.mark.parametrize("seed", range(4))
def test_value_equals_exhaustive_minimax(seed: int) -> None:
    """On 2,000 random endgames (≤ 3 cards a seat, ≤ 8 in all; every ruleset and level,
    wilds and bombs) the solver's value equals full minimax over rules.md §5.3–§5.8."""
    _check_against_minimax(seed, 500, 8)


@pytest.mark.slow
def test_value_equals_exhaustive_minimax_larger() -> None:
    """The same on 3,000 endgames of up to 10 cards in all."""
    _check_against_minimax(100, 3000, 10)


def _resuit(rng: random.Random, p: Position) -> Position | None:
    """``p`` with the suits of some natural cards changed (the wild and the jokers kept); ``None``
    when that would need a third copy of a card."""
    wild = f"H{p.level}"
    hands: dict[str, tuple[str, ...]] = {}
    for seat in SEATS:
        changed = []
        for c in p.hands[seat]:
            if c in ("SB", "HR", wild) or rng.random() < 0.5:
                changed.append(c)
            else:
                changed.append(rng.choice([s + c[1] for s in SUITS if s + c[1] != wild]))
        hands[seat] = tuple(changed)
    every = Counter(c for h in hands.values() for c in h)
    if max(every.values()) > 2:
        return None
    return replace(p, hands=hands)


def _rotate(p: Position) -> Position:
    """``p`` with every seat moved one place on (E's cards to N, …): the same game."""
    move = dict(zip(SEATS, SEATS[1:] + SEATS[:1], strict=True))
    return replace(
        p,
        hands={move[s]: h for s, h in p.hands.items()},
        turn=move[p.turn],
        table_seat=move[p.table_seat] if p.table_seat else None,
        out=tuple(move[s] for s in p.out),
    )


def test_canonical_key_merges_only_equal_values() -> None:
    """Canonicalisation never changes a value. Positions whose suits differ or whose seats
    are rotated share a transposition key only when full minimax gives them the same value (suits
    matter only for straight flushes, rules.md §3; seats only by turn order and partners, §1)."""
    rng = random.Random(7)
    merged = split = 0
    for _ in range(400):
        p = random_endgame(rng, 3, 8)
        solver = Solver(p.level, p.ruleset)
        variant = _resuit(rng, p)
        if variant is None:
            continue
        rotated = _rotate(variant)
        assert solver.key(rotated) == solver.key(variant)
        if solver.key(variant) == solver.key(p):
            merged += 1
            assert brute_value(variant) == brute_value(p), (p, variant)
        else:
            split += 1
    assert merged > 200 and split > 20, (merged, split)
