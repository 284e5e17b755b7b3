"""A rollout policy for the single-dummy review: the simulator's bots play a position out.

:func:`bot_rollout` seats four skilled bots (skill 1, the balanced style: they plan the hand into
few combinations, lead small, follow cheaply and bomb when an opponent is close to going out, see
``simulator.bots``) on the hands of a :class:`~replay.solver.Position` and plays to the end of the
deal by the turn order of rules.md §5.3–§5.7 (the same loop as the simulator's matches), returning
the outcome in levels (§5.8) for the team to move. Seeded: the same position and seed give the same
value. A position's table is known to the bots only by its reading (type, rank, size), all they
compare it by.
"""

from __future__ import annotations

import random
from typing import Final

from replay.combos import SEQ_POSITIONS, Combo
from replay.outcome import finish_gain
from replay.seats import SEATS, TEAM, next_leader, next_to_play
from replay.solver import Position
from simulator.bots import Bot
from simulator.cards import NATURAL
from simulator.groups import SEQUENCES, Group, make_group

ROLLOUT_SKILL: Final = 1.0
ROLLOUT_STYLE: Final = "balanced"


def group_of(combo: Combo, level: str) -> Group:
    """The bots' view of a table reading: kind, rank and comparison key (cards unnamed)."""
    if combo.type == "joker_bomb":
        key = 0
    elif combo.type in SEQUENCES:
        key = SEQ_POSITIONS[combo.rank]
    elif combo.rank == "R":
        key = 17
    elif combo.rank == "B":
        key = 16
    else:
        key = 15 if combo.rank == level else NATURAL[combo.rank]
    return make_group(combo.type, combo.rank, key, ("",) * combo.size, False)


def bot_rollout(position: Position, seed: int) -> int:
    """The value of ``position`` for the team to move when four skilled bots play it out."""
    rng = random.Random(seed)
    bots: dict[str, Bot] = {}
    for s in SEATS:
        bot = Bot(s, ROLLOUT_SKILL, ROLLOUT_STYLE, rng)
        bot.new_hand(list(position.hands[s]), position.level)
        bots[s] = bot
    counts = {s: len(position.hands[s]) for s in SEATS}
    out = list(position.out)
    turn = position.turn
    table = group_of(position.table, position.level) if position.table is not None else None
    table_seat = position.table_seat or ""
    passes = position.passes
    while True:
        bot = bots[turn]
        choice = bot.lead(counts) if table is None else bot.follow(table, table_seat, counts)
        if choice is None:
            passes += 1
        else:
            group, parts = choice
            bot.played(group, parts)
            counts[turn] -= len(group.cards)
            table, table_seat, passes = group, turn, 0
            if counts[turn] == 0:
                out.append(turn)
                if len(out) == 3 or (len(out) == 2 and TEAM[out[0]] == TEAM[out[1]]):
                    gain = finish_gain(out)
                    return gain if TEAM[out[0]] == TEAM[position.turn] else -gain
        ends = None if table is None else next_leader(table_seat, passes, counts, len(out))
        if ends is not None:
            turn, table, passes = ends, None, 0
            continue
        turn = next_to_play(turn, counts)
