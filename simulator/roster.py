"""Simulated people: players with stable ids, names, clubs, true skill and style; teams of two."""

from __future__ import annotations

import random
from dataclasses import dataclass

from simulator.match import Player

# fmt: off
_SURNAMES = (
    "Wang", "Li", "Zhang", "Liu", "Chen", "Yang", "Huang", "Zhao", "Wu", "Zhou", "Xu", "Sun", "Ma", "Zhu",
    "Hu", "Guo", "He", "Gao", "Lin", "Luo", "Zheng", "Liang", "Xie", "Song", "Tang", "Han", "Feng", "Deng",
    "Cao", "Peng", "Zeng", "Xiao", "Tian", "Dong", "Pan", "Yuan", "Cai", "Jiang", "Yu", "Du",
)
_GIVEN = (
    "Wei", "Fang", "Min", "Jing", "Lei", "Jun", "Yan", "Ping", "Gang", "Hui", "Qiang", "Xia", "Tao", "Ming",
    "Chao", "Hong", "Yong", "Jie", "Lin", "Bo", "Hao", "Yu", "Xin", "Ning", "Kai", "Rui", "Qing", "Feng",
    "Bin", "Dan", "Lan", "Hua", "Shan", "Yi", "Zhen", "Wen", "Long", "Mei", "Xue", "Peng",
)
_CLUB_PLACES = (
    "Huai'an", "Nanjing", "Suzhou", "Wuxi", "Yangzhou", "Xuzhou", "Changzhou", "Nantong", "Lianyungang",
    "Yancheng", "Taizhou", "Zhenjiang", "Suqian", "Hefei", "Bengbu", "Shanghai",
)
# fmt: on

STYLE_WEIGHTS = {"aggressive": 0.3, "balanced": 0.4, "conservative": 0.3}


@dataclass(frozen=True, slots=True)
class Team:
    """A tournament pair: a stable id (``T01``) and its two players (they sit opposite)."""

    id: str
    players: tuple[Player, Player]

    @property
    def club(self) -> str:
        """The club of the pair's first player (pairs are formed within a club)."""
        return self.players[0].club


def make_players(count: int, seed: int, clubs: int | None = None) -> list[Player]:
    """`count` players ``p0001`` …, spread over clubs, skills from a Beta(2.5, 2) and mixed styles.

    A player's name, skill and style depend on the id alone, not on ``seed``: ``p0011`` is the same
    person in every simulation, so a tournament and a league simulated into one store share
    players consistently (ratings and dan ranks follow people, not ids reused for strangers).
    ``seed`` only shuffles which club each player joins.
    """
    club_rng = random.Random(f"clubs:{seed}")
    n_clubs = clubs if clubs is not None else max(2, min(len(_CLUB_PLACES), count // 16))
    first = club_rng.randrange(len(_CLUB_PLACES))
    places = [_CLUB_PLACES[(first + i) % len(_CLUB_PLACES)] for i in range(n_clubs)]
    club_names = [f"{place} Guandan Club" for place in places]
    styles = list(STYLE_WEIGHTS)
    weights = list(STYLE_WEIGHTS.values())
    players = []
    for i in range(count):
        rng = random.Random(f"player:p{i + 1:04d}")
        name = f"{rng.choice(_SURNAMES)} {rng.choice(_GIVEN)}"
        skill = round(rng.betavariate(2.5, 2.0), 3)
        style = rng.choices(styles, weights)[0]
        players.append(Player(f"p{i + 1:04d}", name, club_names[i % n_clubs], skill, style))
    return players


def make_teams(pairs: int, seed: int) -> tuple[list[Team], list[Player]]:
    """`pairs` teams of two players from the same club, and the players."""
    players = make_players(2 * pairs, seed, clubs=max(2, pairs // 2))
    by_club: dict[str, list[Player]] = {}
    for p in players:
        by_club.setdefault(p.club, []).append(p)
    ordered = [p for club in by_club.values() for p in club]
    teams = [Team(f"T{i + 1:02d}", (ordered[2 * i], ordered[2 * i + 1])) for i in range(pairs)]
    return teams, players
