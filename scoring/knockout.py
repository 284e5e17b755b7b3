"""Single-elimination (knockout) brackets with seeding, advancing and final placings (§S8).

The rule books (seeds 000 and 002):

- `national` Art. 24 一 (一) 3: "按照單敗淘汰賽編排表組織比賽。各對陣區域的種子隊号之和相等；
  有輪空時，從1号種子隊開始依次安排輪空。" — the bracket places the seeds so that the seed
  numbers of every region add up to the same sum, and byes go to seed 1, then 2, … in turn.
- `national` Art. 24 一 (二): "强隊設為種子隊，種子隊數一般為2的整數幂 … 最强的種子隊列為1号，
  次强的隊列為2号，依此類推" — seed 1 is the strongest; the seeded teams are usually a power of
  two; the others get their numbers by lot (Art. 24 一 (一) 2 "抽簽确定各參賽隊的參賽号").
- `huaian` Art. 25 一: "應安排２ｎ個隊(對)參賽 … 應按各方選手的實力或以前一階段比賽的名次作為
  參考，采用蛇形排列方法排出單淘汰賽各方選手的比賽位置，若參賽隊(對)不足２ｎ，則應讓實力較優者
  在第１輪比賽中輪空" — seeds by strength (ratings) or by the previous stage's placing, folded
  into the bracket (snake), the stronger teams having the byes when the field is not 2ⁿ.
- `huaian` Art. 14 五 / `national` Art. 49 二: a knockout match must have a winner ("每輪比賽的
  雙方都必須分出勝負"; "打平時，加賽一副，至決出勝負"): the ruleset's ``draw_breaker`` names it
  in ``matches.winner``.
- `huaian` Art. 29 二: "負方則遭淘汰（另有規定的除外，例如增加第三、第四名的附加賽等）" — the
  losers are out; an event may add a 3rd/4th-place match.
- `national` 主客隊 (三) 1: "按照前一階段成績進入淘汰賽時，前一階段名次排名在前者為主隊" — the
  better-placed team is the home team; here it is seated first (E–W).

Pure functions over team ids, shared by ``gdan pair`` and the simulator.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Slot = str | None
"""A bracket position: a team id, or ``None`` for an empty position (the seed's opponent is a bye)."""


class KnockoutError(ValueError):
    """A bracket that cannot be built or advanced (too few teams, a missing or drawn result)."""


def bracket_size(teams: int) -> int:
    """Positions of the bracket: the smallest 2ⁿ ≥ ``teams`` (`huaian` Art. 25 "應安排２ｎ個隊")."""
    if teams < 2:
        raise KnockoutError(f"a knockout needs at least 2 teams, got {teams}")
    size = 1
    while size < teams:
        size *= 2
    return size


def seed_positions(size: int) -> list[int]:
    """Seed numbers by bracket position for a bracket of ``size`` = 2ⁿ positions.

    Built by folding (the snake of `huaian` Art. 25): each round-1 pair is seeds s and
    size + 1 − s, and every region (half, quarter, …) has the same sum of seed numbers
    (`national` Art. 24 一 (一) 3), so seeds 1 and 2 can only meet in the final, 1–4 from the
    semi-finals on. 8 → [1, 8, 4, 5, 2, 7, 3, 6].
    """
    if size < 1 or size & (size - 1):
        raise KnockoutError(f"a bracket has 2ⁿ positions, got {size}")
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [s for seed in order for s in (seed, n + 1 - seed)]
    return order


def seeding(ranking: Sequence[str], seeded: int | None = None, draw_seed: int = 0) -> list[str]:
    """Teams in seed order (seed 1 first) from a ranking, best first.

    ``ranking`` is the previous stage's final standings or the teams by rating (`huaian` Art. 25
    "按各方選手的實力或以前一階段比賽的名次"). With ``seeded`` = k (`national` Art. 24 一 (二): a
    power of two, usually), only the first k keep their seed numbers; the others draw theirs
    by lot (Art. 24 一 (一) 2), reproducibly from ``draw_seed``.
    """
    teams = list(ranking)
    if len(set(teams)) != len(teams):
        raise KnockoutError("a team is ranked twice in the seeding")
    if seeded is None or seeded >= len(teams):
        return teams
    if seeded < 0:
        raise KnockoutError(f"seeded teams cannot be negative, got {seeded}")
    rest = teams[seeded:]
    random.Random(f"knockout-draw:{draw_seed}").shuffle(rest)
    return teams[:seeded] + rest


def bracket(seeds: Sequence[str]) -> list[Slot]:
    """The round-1 bracket: team per position (:func:`seed_positions`), ``None`` where the seed
    number is above the field, i.e. a bye for the seed it faces (seeds 1, 2, … in turn)."""
    size = bracket_size(len(seeds))
    return [seeds[s - 1] if s <= len(seeds) else None for s in seed_positions(size)]


@dataclass(frozen=True, slots=True)
class Match:
    """One knockout match: the two teams (``home`` = the better seed, seated E–W) and its round."""

    round: int
    home: str
    away: str
    placing: bool = False
    """A 3rd/4th-place match between the semi-final losers (`huaian` Art. 29 二)."""


@dataclass(frozen=True, slots=True)
class KnockoutRound:
    """The matches of one knockout round and the teams that go through without playing (byes)."""

    round: int
    matches: tuple[Match, ...]
    byes: tuple[str, ...]
    alive: tuple[Slot, ...]
    """The round's entrants in bracket order (``None``: an empty position)."""


Winners = Mapping[frozenset[str], str]
"""The winner of each played match, keyed by the pair of teams."""


def rounds_needed(teams: int) -> int:
    """Rounds of a single-elimination bracket of ``teams`` teams (n for 2ⁿ positions)."""
    return bracket_size(teams).bit_length() - 1


def knockout_round(
    seeds: Sequence[str], round_no: int, winners: Winners | None = None, third_place: bool = False
) -> KnockoutRound:
    """Round ``round_no`` (1 = the first) of the bracket of ``seeds``, advancing by ``winners``.

    Entrants of round r + 1 are, in bracket order, the winner of each pair of round r (or the
    team facing an empty position: a bye). The better seed is the home team. With
    ``third_place``, the final round also has the match of the two semi-final losers.
    Raises :class:`KnockoutError` for a round beyond the final or a match of an earlier round
    without a winner in ``winners``.
    """
    total = rounds_needed(len(seeds))
    if not 1 <= round_no <= total:
        raise KnockoutError(f"a knockout of {len(seeds)} teams has rounds 1–{total}, not {round_no}")
    rank = {t: i for i, t in enumerate(seeds)}
    alive: list[Slot] = bracket(seeds)
    losers: list[str] = []
    for r in range(1, round_no):
        alive, losers = _advance(alive, winners or {}, r)
    matches: list[Match] = []
    byes: list[str] = []
    for a, b in zip(alive[::2], alive[1::2], strict=True):
        if a is None or b is None:
            byes.extend(t for t in (a, b) if t is not None)
            continue
        home, away = sorted((a, b), key=rank.__getitem__)
        matches.append(Match(round_no, home, away))
    if third_place and round_no == total and len(losers) == 2:
        home, away = sorted(losers, key=rank.__getitem__)
        matches.append(Match(round_no, home, away, placing=True))
    return KnockoutRound(round_no, tuple(matches), tuple(byes), tuple(alive))


def _advance(alive: Sequence[Slot], winners: Winners, round_no: int) -> tuple[list[Slot], list[str]]:
    """The next round's entrants and this round's losers."""
    nxt: list[Slot] = []
    losers: list[str] = []
    for a, b in zip(alive[::2], alive[1::2], strict=True):
        if a is None or b is None:
            nxt.append(a if b is None else b)
            continue
        won = winners.get(frozenset((a, b)))
        if won is None:
            raise KnockoutError(
                f"knockout round {round_no}: {a} v {b} has no winner yet (a knockout match needs "
                "one: the ruleset's draw_breaker, e.g. one extra deal, decides a level result)"
            )
        if won not in (a, b):
            raise KnockoutError(f"knockout round {round_no}: winner {won} did not play in {a} v {b}")
        nxt.append(won)
        losers.append(b if won == a else a)
    return nxt, losers


@dataclass(frozen=True, slots=True)
class Placing:
    """A team's place in a knockout stage: shared by the losers of one round."""

    team: str
    place: int
    out_in: int | None
    """The round the team lost (``None``: not out, i.e. the champion or still in)."""


def placings(teams: Sequence[str], results: Sequence[tuple[int, str, str, str]]) -> list[Placing]:
    """Places after the played ``results`` (round, team, team, winner), best first.

    A team that lost later places above one that lost earlier; the losers of the same round
    share a place (the first of their block: 8 teams → 1, 2, 3, 3, 5, 5, 5, 5), teams still in
    share place 1 until the final is played. A match between two teams already out (the 3rd/
    4th-place match of `huaian` Art. 29 二) splits their shared place: winner first.
    """
    out_in: dict[str, int] = {}
    placed_above: set[str] = set()
    for round_no, a, b, won in sorted(results):
        if won not in (a, b):
            raise KnockoutError(f"knockout round {round_no}: winner {won} did not play in {a} v {b}")
        lost = b if won == a else a
        if won in out_in and lost in out_in:
            placed_above.add(won)
            continue
        out_in[lost] = round_no
    key = {t: (-(out_in.get(t, 10**6)), t not in placed_above) for t in teams}
    ordered = sorted(teams, key=lambda t: (key[t], t))
    out: list[Placing] = []
    for i, t in enumerate(ordered):
        place = i + 1 if i == 0 or key[ordered[i - 1]] != key[t] else out[-1].place
        out.append(Placing(t, place, out_in.get(t)))
    return out
