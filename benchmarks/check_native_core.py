"""The Cython core (``replay/_core.pyx``) against the Python engine it stands in for: the same
readings and the same legal moves, in the same order, and the same "can this hand beat that
table?" answers, over seeded random card sets, positions and tables.

Run: ``.venv/bin/python benchmarks/check_native_core.py [--readings N] [--positions N] [--probes N]
[--seed S]`` (defaults: 100,000 of each). Prints the counts compared and every difference (exit status 1 if
any); ``tests/replay/test_native_core.py`` runs the same comparison on fewer cases in ``make test``.

The cases lean towards what makes readings and moves hard: wilds (the heart level card) at every
level, jokers (pairs, the joker bomb, full houses carrying a joker pair, allowed or not), runs in
one suit (straights against straight flushes), groups of one rank (bombs, tubes, plates), and
input the engine must refuse (a third copy of a card).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType

from replay import DECK, RANKS, SUITS, Combo, Move, native
from replay.cards import parse_cards
from replay.combos import beat_key, bind_core, readings_of_codes
from replay.moves import MovesCore, core_legal_moves, reference_legal_moves

TABLES: tuple[Combo | None, ...] = (
    None,
    Combo("single", "9", 1),
    Combo("single", "A", 1),
    Combo("single", "B", 1),
    Combo("pair", "5", 2),
    Combo("pair", "R", 2),
    Combo("triple", "J", 3),
    Combo("full_house", "7", 5),
    Combo("straight", "A", 5),
    Combo("straight", "8", 5),
    Combo("tube", "Q", 6),
    Combo("plate", "4", 6),
    Combo("bomb", "6", 4),
    Combo("bomb", "K", 5),
    Combo("bomb", "3", 6),
    Combo("bomb", "9", 8),
    Combo("straight_flush", "5", 5),
    Combo("straight_flush", "T", 5),
    Combo("joker_bomb", "JOKER", 4),
)
"""Tables to follow (None: leading), every type and every bomb class, low and high ranks."""


ReadingCase = tuple[list[str], str]
MoveCase = tuple[list[str], str, Combo | None, bool]
ProbeCase = tuple["list[str] | Counter[str]", str, Combo, bool]


def _rank_cards(rng: random.Random, rank: str, copies: int) -> list[str]:
    """``copies`` cards of ``rank`` in random suits (at most two of each card)."""
    pool = [s + rank for s in SUITS for _ in range(2)]
    return rng.sample(pool, copies)


def card_set(rng: random.Random, level: str, size: int) -> list[str]:
    """A random set of ``size`` cards shaped like a combination more often than chance would:
    a run (in one suit or not), groups of neighbouring ranks, one rank, or any cards; then wilds
    and jokers may replace some of them. May hold a third copy of a card (invalid input)."""
    shape = rng.randrange(5)
    ranks = list(RANKS)
    if shape == 0:
        cards = rng.sample(DECK, size)
    elif shape == 1:
        start = rng.randrange(-1, 13 - 4)
        suit = rng.choice(SUITS) if rng.random() < 0.6 else None
        run = [ranks[(start + i) % 13] for i in range(max(size, 5))]
        cards = [(suit or rng.choice(SUITS)) + r for r in run[:size]]
    elif shape == 2:
        start = rng.randrange(12)
        group = [ranks[min(12, start + i)] for i in range(3)]
        cards = [c for r in group for c in _rank_cards(rng, r, 3)][:size]
        cards += rng.sample(DECK, size - len(cards))
    elif shape == 3:
        rank = rng.choice(ranks)
        cards = _rank_cards(rng, rank, min(size, 8)) + rng.sample(DECK, max(0, size - 8))
    else:
        cards = rng.sample(DECK, max(0, size - 4)) + rng.choice(
            [["SB", "SB", "HR", "HR"], ["SB", "SB"], ["HR", "HR"], ["SB", "HR"], ["SB"], ["HR"]]
        )
    wild = "H" + level
    for i in rng.sample(range(len(cards)), min(len(cards), rng.choice((0, 0, 1, 2)))):
        cards[i] = wild
    rng.shuffle(cards)
    return cards[:size]


def _hand(rng: random.Random, level: str, size: int) -> list[str]:
    """A hand of ``size`` cards from the double deck (two copies of a card at most), holding 0–2
    wilds and, often, some of a combination's shape (see :func:`card_set`)."""
    wild = "H" + level
    wilds = rng.choice((0, 1, 2, 2))
    core = card_set(rng, level, min(size, rng.randint(4, 10)))
    pool = list(DECK)
    for c in core:
        if c in pool and c != wild:
            pool.remove(c)
    core = [c for c in core if c != wild]
    pool = [c for c in pool if c != wild]
    hand = core + rng.sample(pool, max(0, size - len(core) - wilds))
    counts: dict[str, int] = {}
    kept = []
    for c in hand:
        if counts.get(c, 0) < 2:
            counts[c] = counts.get(c, 0) + 1
            kept.append(c)
    return [*kept[: size - wilds], *[wild] * wilds]


@dataclass
class Report:
    """What one comparison found: cases compared and the differences (described)."""

    compared: int = 0
    refused: int = 0
    """Cases the reference refused (ValueError) and the core handed back to it."""
    differences: list[str] | None = None

    def differ(self, what: str) -> None:
        if self.differences is None:
            self.differences = []
        self.differences.append(what)


def reading_cases(rng: random.Random, n: int) -> Iterator[ReadingCase]:
    """``n`` (cards, level) cases: 1–10 cards, every level."""
    for _ in range(n):
        level = rng.choice(RANKS)
        yield card_set(rng, level, rng.randint(1, 10)), level


def move_cases(rng: random.Random, n: int) -> Iterator[MoveCase]:
    """``n`` (hand, level, table, full_house_joker_pair) positions: hands of 1–27 cards, leading
    or following any table, joker pairs in full houses allowed or not."""
    for _ in range(n):
        level = rng.choice(RANKS)
        size = rng.choice((rng.randint(1, 27), 27))
        yield _hand(rng, level, size), level, rng.choice(TABLES), rng.random() < 0.5


def compare_readings(module: ModuleType, cases: Iterable[ReadingCase]) -> Report:
    """The core's readings against ``readings_of_codes`` (the Python engine) case by case: the same
    interned ``Combo`` objects in the same order, or a refusal where the reference raises."""
    core = bind_core(module, None)
    report = Report()
    for cards, level in cases:
        report.compared += 1
        try:
            expected: tuple[Combo, ...] | None = readings_of_codes(parse_cards(cards), level)
        except ValueError:
            expected = None
            report.refused += 1
        got = core.readings(cards, level)
        if expected is None or got is None:
            same = got is expected
        else:
            same = len(got) == len(expected) and all(a is b for a, b in zip(got, expected, strict=True))
        if not same:
            report.differ(f"readings {' '.join(cards)} at {level}: python {expected}, core {got}")
    return report


def compare_moves(
    module: ModuleType,
    cases: Iterable[MoveCase],
) -> tuple[Report, int]:
    """The core's legal moves against ``reference_legal_moves`` position by position: equal moves
    (cards and the same interned reading) in the same order; also the number of moves compared."""
    core: MovesCore = bind_core(module, Move)
    report = Report()
    total = 0
    for hand, level, table, joker_pair in cases:
        report.compared += 1
        expected = reference_legal_moves(hand, level, table, joker_pair)
        got = core_legal_moves(core, hand, level, table, joker_pair)
        total += len(expected)
        if got != expected or any(a.combo is not b.combo for a, b in zip(got, expected, strict=True)):
            pairs = enumerate(zip(got or [], expected, strict=False))
            first = next((i for i, (a, b) in pairs if a != b), None)
            report.differ(
                f"moves {' '.join(hand)} at {level} vs {table} (joker pair {joker_pair}): python "
                f"{len(expected)}, core {None if got is None else len(got)}, first difference at {first}"
            )
    return report, total


def probe_cases(rng: random.Random, n: int) -> Iterator[ProbeCase]:
    """``n`` (hand, level, table, full_house_joker_pair) questions: hands as in :func:`move_cases`,
    every other one as a card multiset (``Counter``), tables drawn from the readings of random
    card sets (every type, rank and bomb size)."""
    while n > 0:
        level = rng.choice(RANKS)
        size = rng.choice((rng.randint(1, 27), 27))
        cards = _hand(rng, level, size)
        try:
            options = readings_of_codes(parse_cards(card_set(rng, level, rng.randint(1, 10))), level)
        except ValueError:
            continue
        if options:
            hand: list[str] | Counter[str] = Counter(cards) if n % 2 else cards
            yield hand, level, rng.choice(options), rng.random() < 0.5
            n -= 1


def compare_probes(module: ModuleType, cases: Iterable[ProbeCase]) -> Report:
    """The core's ``BeatProbe`` against the Python engine's answer to the same question: whether
    ``reference_legal_moves`` finds any play that beats the table (§4)."""
    core: MovesCore = bind_core(module, Move)
    report = Report()
    for hand, level, table, joker_pair in cases:
        report.compared += 1
        cards = list(hand.elements()) if isinstance(hand, Counter) else hand
        expected = bool(reference_legal_moves(cards, level, table, joker_pair))
        probe = core.probe(hand, RANKS.index(level), joker_pair)
        got = None if probe is None else probe.beats_key(beat_key(table, level))
        if got is not expected:
            report.differ(f"can beat: {' '.join(cards)} at {level} vs {table} (joker pair {joker_pair}): "
                          f"python {expected}, core {got}")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readings", type=int, default=100_000)
    parser.add_argument("--positions", type=int, default=100_000)
    parser.add_argument("--probes", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20261207)
    args = parser.parse_args()
    module = native.built_core()
    if module is None:
        sys.exit("no up-to-date Cython core built (python setup.py build_ext --inplace)")
    engine = "compiled (mypyc)" if native.is_compiled() else "Python sources"
    print(f"reference: the {engine} engine")
    rng = random.Random(args.seed)
    t0 = time.process_time()
    readings = compare_readings(module, reading_cases(rng, args.readings))
    print(
        f"readings: {readings.compared:,} card sets compared ({readings.refused:,} refused by both), "
        f"{len(readings.differences or [])} differences ({time.process_time() - t0:.0f} CPU-s)"
    )
    t0 = time.process_time()
    moves, total = compare_moves(module, move_cases(rng, args.positions))
    print(
        f"legal moves: {moves.compared:,} positions compared ({total:,} moves), "
        f"{len(moves.differences or [])} differences ({time.process_time() - t0:.0f} CPU-s)"
    )
    t0 = time.process_time()
    probes = compare_probes(module, probe_cases(rng, args.probes))
    print(
        f"can beat (BeatProbe): {probes.compared:,} questions compared, "
        f"{len(probes.differences or [])} differences ({time.process_time() - t0:.0f} CPU-s)"
    )
    found = [*(readings.differences or []), *(moves.differences or []), *(probes.differences or [])]
    for line in found[:40]:
        print(line)
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
