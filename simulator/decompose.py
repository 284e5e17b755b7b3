"""Split a hand into few combinations (the bots' plan of a hand), rules.md §3.

Greedy and cheap, in the order a club player thinks: joker bomb, bombs, straights that use up
loose singles, plates, tubes, then triples, pairs and singles. Heart level cards (wilds) turn the
lowest triple into a bomb, or else complete a straight from four loose singles, otherwise stay as
high singles (or a pair of level cards).
"""

from __future__ import annotations

from simulator.cards import BIG_JOKER, NATURAL, SMALL_JOKER, VALUE_CHAR
from simulator.groups import Group, make_group


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


def decompose(cards: list[str], level: str) -> list[Group]:
    """A plan of the hand as a list of groups that together hold exactly `cards`."""
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
    while (start := _best_straight(byv)) is not None:
        picked, flush = _take_straight(byv, start)
        groups.append(
            make_group("straight_flush" if flush else "straight", seq_rank(start), start, picked, False)
        )
    for start in range(1, 14):
        a, b = byv[seq_value(start)], byv[seq_value(start + 1)]
        if len(a) == 3 and len(b) == 3:
            groups.append(make_group("plate", seq_rank(start), start, (*a, *b), False))
            a.clear()
            b.clear()
    for start in range(1, 13):
        piles = [byv[seq_value(p)] for p in range(start, start + 3)]
        if all(len(pile) == 2 for pile in piles):
            groups.append(
                make_group("tube", seq_rank(start), start, tuple(c for pile in piles for c in pile), False)
            )
            for pile in piles:
                pile.clear()
    triples = [v for v in range(2, 15) if len(byv[v]) == 3]
    if wilds and not triples and (start := _gapped_straight(byv)) is not None:
        cards = tuple(byv[seq_value(p)].pop() for p in range(start, start + 5) if byv[seq_value(p)])
        groups.append(make_group("straight", seq_rank(start), start, (*cards, wilds.pop()), True))
    if wilds and triples:
        v = min(triples, key=order)
        triples.remove(v)
        groups.append(make_group("bomb", VALUE_CHAR[v], order(v), (*byv[v], wilds.pop()), True))
        byv[v] = []
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


def full_house(triple: Group, pair: Group) -> Group:
    """A full house from a triple and a pair of another rank (rules.md §3: compared by the triple)."""
    return make_group(
        "full_house", triple.rank, triple.key, triple.cards + pair.cards, triple.wild or pair.wild
    )
