"""Split a hand into few combinations (the bots' plan of a hand), rules.md §3.

Greedy and cheap, in the order a club player thinks: joker bomb, bombs, straights that use up
loose singles, plates, tubes, then triples, pairs and singles. Heart level cards (wilds) turn the
lowest triple into a bomb, or else complete a straight from four loose singles, otherwise stay as
high singles (or a pair of level cards).

Straight flushes (rules.md §3: five consecutive cards of one suit, wilds allowed) cut across that
order, so they are searched separately: the plan with a straight flush taken out first is kept
when it scores better than the plan without (`plan_score`: bombs count for, plays needed to empty
the hand against), so a bomb is broken up for a straight flush only when that clearly pays.
"""

from __future__ import annotations

from collections.abc import Callable

from simulator.cards import BIG_JOKER, NATURAL, SMALL_JOKER, SUITS, VALUE_CHAR
from simulator.groups import Group, make_group

BOMB_WEIGHT = {1: 1.0, 2: 1.3, 3: 1.7, 4: 2.0, 5: 2.5}
"""What a bomb of each rules.md §4 class is worth in `plan_score`, in plays saved."""
_WINDOWS = tuple((start, 0b11111 << start) for start in range(1, 11))
"""Five-position windows of the sequence order as bit masks (bit 1 is the low A, bit 14 the A)."""
FLUSH_CANDIDATES = 3
"""Straight flushes tried per hand (fewest wilds and broken groups first)."""


def seq_value(pos: int) -> int:
    """The natural value at a sequence position (position 1 is the low A)."""
    return 14 if pos == 1 else pos


def seq_rank(pos: int) -> str:
    """The events.md rank of a sequence whose lowest position is `pos` (A-low → `A`)."""
    return VALUE_CHAR[seq_value(pos)]


def _take_straight(byv: list[list[str]], start: int) -> tuple[tuple[str, ...], bool]:
    """Take one card per rank for the straight starting at `start`; avoid a flush when possible.

    Returns the cards and whether they form a straight flush (five cards of one suit, rules.md §3).
    """
    picked = [byv[seq_value(p)].pop() for p in range(start, start + 5)]
    if len({c[0] for c in picked}) == 1:
        suit = picked[0][0]
        for i, p in enumerate(range(start, start + 5)):
            pile = byv[seq_value(p)]
            for j, other in enumerate(pile):
                if other[0] != suit:
                    pile[j], picked[i] = picked[i], other
                    return tuple(picked), False
        return tuple(picked), True
    return tuple(picked), False


def _best_straight(byv: list[list[str]]) -> int | None:
    """The straight start that uses the most loose singles while breaking the fewest pairs."""
    best, best_score = None, 1
    for start in range(1, 11):
        score = 0
        for p in range(start, start + 5):
            n = len(byv[seq_value(p)])
            if n == 0:
                break
            score += 1 if n == 1 else (-1 if n == 2 else 0)
        else:
            if score > best_score:
                best, best_score = start, score
    return best


def _gapped_straight(byv: list[list[str]]) -> int | None:
    """The lowest straight a wild completes from four loose singles (one rank missing)."""
    for start in range(1, 11):
        counts = [len(byv[seq_value(p)]) for p in range(start, start + 5)]
        if counts.count(0) == 1 and counts.count(1) == 4:
            return start
    return None


def plays_needed(plan: list[Group]) -> int:
    """Plays the plain (non-bomb) groups of a plan need, a triple and a pair leaving together."""
    plain = triples = pairs = 0
    for g in plan:
        if g.is_bomb:
            continue
        plain += 1
        if g.kind == "triple":
            triples += 1
        elif g.kind == "pair" and not g.wild and g.key <= 14:
            pairs += 1
    return plain - min(triples, pairs)


def plan_score(plan: list[Group]) -> float:
    """How good a plan is: its bombs' weights minus the plays its plain groups need."""
    return sum(BOMB_WEIGHT[g.power[0]] for g in plan if g.is_bomb) - plays_needed(plan)


def straight_flushes(cards: list[str], level: str) -> list[Group]:
    """Straight flushes that can be taken from `cards` (heart level cards fill gaps), the ones that
    need fewest wilds and break fewest pairs, triples and bombs first."""
    wild_card = "H" + level
    wilds = [c for c in cards if c == wild_card]
    count: dict[str, int] = {}
    by_suit: dict[str, dict[int, str]] = {s: {} for s in SUITS}
    for c in cards:
        if c != wild_card and c[1] in NATURAL:
            count[c[1]] = count.get(c[1], 0) + 1
            by_suit[c[0]][NATURAL[c[1]]] = c
    found: list[tuple[int, int, Group]] = []
    for present in by_suit.values():
        if len(present) + len(wilds) < 5:
            continue
        mask = sum(1 << v for v in present) | (2 if 14 in present else 0)
        for start, window in _WINDOWS:
            missing = 5 - (mask & window).bit_count()
            if missing > len(wilds):
                continue
            picked = [present[seq_value(p)] for p in range(start, start + 5) if mask >> p & 1]
            broken = sum(count[c[1]] > 1 for c in picked)
            group = make_group(
                "straight_flush", seq_rank(start), start, (*picked, *wilds[:missing]), missing > 0
            )
            found.append((missing, broken, group))
    found.sort(key=lambda f: (f[0], f[1], f[2].key))
    return [g for _, _, g in found[:FLUSH_CANDIDATES]]


def decompose(cards: list[str], level: str, careless: bool = False) -> list[Group]:
    """A plan of the hand as a list of groups that together hold exactly `cards`.

    A careless plan (a weak player's) only groups cards by rank: bombs of four or more natural
    cards, triples, pairs and singles; no sequences, no straight flushes, wilds kept as level cards.
    """
    if careless:
        return _greedy_plan(list(cards), level, combine=False)
    return _best_plan(list(cards), level, 2)[1]


def _best_plan(cards: list[str], level: str, flushes: int) -> tuple[float, list[Group]]:
    """The best-scoring plan with up to `flushes` straight flushes taken out first, and its score."""
    plan = _greedy_plan(cards, level)
    best = (plan_score(plan), plan)
    if flushes == 0:
        return best
    for flush in straight_flushes(cards, level):
        rest = list(cards)
        for c in flush.cards:
            rest.remove(c)
        _, sub = _best_plan(rest, level, flushes - 1)
        candidate = [flush, *sub]
        score = plan_score(candidate)
        if score > best[0]:
            best = (score, candidate)
    return best


def _greedy_plan(cards: list[str], level: str, combine: bool = True) -> list[Group]:
    """The greedy split described in the module doc, without a straight flush search; without
    `combine`, no sequences and no wild upgrades either (see `decompose`)."""
    wild_card = "H" + level
    level_value = NATURAL[level]
    byv: list[list[str]] = [[] for _ in range(15)]
    wilds: list[str] = []
    small: list[str] = []
    big: list[str] = []
    for c in cards:
        if c == wild_card:
            wilds.append(c)
        elif c == SMALL_JOKER:
            small.append(c)
        elif c == BIG_JOKER:
            big.append(c)
        else:
            byv[NATURAL[c[1]]].append(c)
    groups: list[Group] = []
    if len(small) == 2 and len(big) == 2:
        groups.append(make_group("joker_bomb", "JOKER", 0, (*small, *big), False))
    else:
        for jokers, rank, key in ((small, "B", 16), (big, "R", 17)):
            if len(jokers) == 2:
                groups.append(make_group("pair", rank, key, tuple(jokers), False))
            else:
                groups.extend(make_group("single", rank, key, (j,), False) for j in jokers)

    def order(v: int) -> int:
        return 15 if v == level_value else v

    for v in range(2, 15):
        if len(byv[v]) >= 4:
            groups.append(make_group("bomb", VALUE_CHAR[v], order(v), tuple(byv[v]), False))
            byv[v] = []
    if combine:
        groups.extend(_combinations(byv, wilds, order))
    for v in range(2, 15):
        pile = byv[v]
        if len(pile) == 3:
            groups.append(make_group("triple", VALUE_CHAR[v], order(v), tuple(pile), False))
        elif len(pile) == 2:
            groups.append(make_group("pair", VALUE_CHAR[v], order(v), tuple(pile), False))
        elif len(pile) == 1:
            groups.append(make_group("single", VALUE_CHAR[v], order(v), (pile[0],), False))
    if len(wilds) == 2:
        groups.append(make_group("pair", level, 15, tuple(wilds), True))
    elif wilds:
        groups.append(make_group("single", level, 15, (wilds[0],), True))
    return groups


def _combinations(byv: list[list[str]], wilds: list[str], order: Callable[[int], int]) -> list[Group]:
    """Straights that use up loose singles, plates, tubes, and the wild upgrades (a triple to a
    bomb, four loose singles to a straight); takes the cards used out of `byv` and `wilds`."""
    out: list[Group] = []
    while (start := _best_straight(byv)) is not None:
        picked, flush = _take_straight(byv, start)
        out.append(
            make_group("straight_flush" if flush else "straight", seq_rank(start), start, picked, False)
        )
    for start in range(1, 14):
        a, b = byv[seq_value(start)], byv[seq_value(start + 1)]
        if len(a) == 3 and len(b) == 3:
            out.append(make_group("plate", seq_rank(start), start, (*a, *b), False))
            a.clear()
            b.clear()
    for start in range(1, 13):
        piles = [byv[seq_value(p)] for p in range(start, start + 3)]
        if all(len(pile) == 2 for pile in piles):
            out.append(
                make_group("tube", seq_rank(start), start, tuple(c for pile in piles for c in pile), False)
            )
            for pile in piles:
                pile.clear()
    triples = [v for v in range(2, 15) if len(byv[v]) == 3]
    if wilds and not triples and (start := _gapped_straight(byv)) is not None:
        cards = tuple(byv[seq_value(p)].pop() for p in range(start, start + 5) if byv[seq_value(p)])
        out.append(make_group("straight", seq_rank(start), start, (*cards, wilds.pop()), True))
    if wilds and triples:
        v = min(triples, key=order)
        out.append(make_group("bomb", VALUE_CHAR[v], order(v), (*byv[v], wilds.pop()), True))
        byv[v] = []
    return out


def full_house(triple: Group, pair: Group) -> Group:
    """A full house from a triple and a pair of another rank (rules.md §3: compared by the triple)."""
    return make_group(
        "full_house", triple.rank, triple.key, triple.cards + pair.cards, triple.wild or pair.wild
    )
