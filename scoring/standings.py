"""Standings per event and stage after each round, with each ruleset's tie-break chain (§S7).

Ranking is by the primary total (match points net of deductions; ``bcta``: BCTA round score,
policy), then the ruleset's chain. The chain is chosen by how many teams share the primary
total (`national` Art. 49: two tied → with head-to-head; three or more → without), and each
step splits the tied group into sub-groups that continue with the remaining steps. A step that
cannot separate anyone (e.g. head-to-head when the two never met, opponents' score in a round
robin (:func:`is_round_robin`), previous rank after round 1) is passed over. Teams still equal
share the rank (the books' "lots" or shared place are left to the referee). Every tie-break value has its own
column, and ``decided_by`` names the step that separated a team from the one above it.

A knockout stage (:func:`schemas.vocabulary.is_knockout`) is ranked by the round each team went
out instead (:func:`scoring.knockout.placings`): ``decided_by`` ``knockout`` (out in an earlier
round) or ``third_place_match``; the other columns are the same running totals.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from schemas.scoring import STANDINGS
from schemas.vocabulary import is_knockout
from scoring.frames import frame
from scoring.knockout import placings
from scoring.params import ScoringParams, StandingsParams, TieBreak, params_for


@dataclass
class _Team:
    """Running totals of one team in one stage."""

    team_id: str
    player_1: str | None
    player_2: str | None
    rounds: int = 0
    match_points: float = 0.0
    bcta_round_score: int = 0
    level_points: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    raw_level_diff: int = 0
    levels_gained: int = 0
    deducted_match_points: float = 0.0
    deducted_level_points: float = 0.0
    opponents: list[str] = field(default_factory=list)
    """Every opponent met, once per round: the rooms of one duplicate board are one meeting (§S9)."""
    met_in_round: set[tuple[Any, str]] = field(default_factory=set)
    meetings: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0, 0.0]))
    """Per opponent: [match points, level points] scored against it."""

    def add(self, row: Mapping[str, Any]) -> None:
        """Add one ``match_scores`` row."""
        self.rounds += 1
        self.match_points += (row["match_points"] or 0.0) - (row["deducted_match_points"] or 0.0)
        self.level_points += (row["level_points"] or 0) - (row["deducted_level_points"] or 0.0)
        self.deducted_match_points += row["deducted_match_points"] or 0.0
        self.deducted_level_points += row["deducted_level_points"] or 0.0
        self.bcta_round_score += row["bcta_round_score"] or 0
        self.raw_level_diff += row["level_diff"] or 0
        self.levels_gained += row["levels_gained"] or 0
        result = row["result"]
        self.wins += result == "win"
        self.draws += result == "draw"
        self.losses += result == "loss"
        self.byes += result == "bye"
        for opp in row["opponents"] or []:
            if (row["round"], opp) not in self.met_in_round:
                self.met_in_round.add((row["round"], opp))
                self.opponents.append(opp)
            self.meetings[opp][0] += row["match_points"] or 0.0
            self.meetings[opp][1] += row["level_points"] or 0


Block = tuple[list[str], str | None]
"""Teams sharing one place, and the step that separated them from the block above."""


class _Ranker:
    """Orders the teams of one stage after one round and remembers the tie-break values used."""

    def __init__(
        self, teams: Mapping[str, _Team], prev_rank: Mapping[str, int], p: StandingsParams, round_robin: bool
    ):
        self.teams = teams
        self.prev_rank = prev_rank
        self.p = p
        self.round_robin = round_robin
        self.h2h: dict[str, float] = {}
        self.tied_lp: dict[str, float] = {}

    def opponents_score(self, t: str) -> float:
        return sum(self.teams[o].match_points for o in self.teams[t].opponents if o in self.teams)

    def opponents_level_points(self, t: str) -> float:
        return sum(self.teams[o].level_points for o in self.teams[t].opponents if o in self.teams)

    def _value(self, step: TieBreak, t: str, group: list[str]) -> float | None:
        """The team's value for a step (higher ranks first); ``None``: the step does not apply."""
        team = self.teams[t]
        if step == "head_to_head":
            (other,) = [g for g in group if g != t]
            if other not in team.meetings:
                return None
            self.h2h[t] = team.meetings[other][0]
            return self.h2h[t]
        if step == "tied_level_points":
            met = [team.meetings[g][1] for g in group if g != t and g in team.meetings]
            if not met:
                return None
            self.tied_lp[t] = sum(met)
            return self.tied_lp[t]
        if step == "opponents_score":
            return None if self.round_robin else self.opponents_score(t)
        if step == "opponents_level_points":
            return self.opponents_level_points(t)
        if step == "previous_rank":
            return -self.prev_rank[t] if self.prev_rank else None
        return float(getattr(team, step))

    def resolve(self, group: list[str], steps: tuple[TieBreak, ...], decided: str | None) -> list[Block]:
        """Split ``group`` by the first step that applies, recursing into the sub-groups."""
        if len(group) == 1 or not steps:
            return [(sorted(group), decided)]
        step, rest = steps[0], steps[1:]
        values = {t: self._value(step, t, group) for t in group}
        if any(v is None for v in values.values()):
            return self.resolve(group, rest, decided)
        blocks: list[Block] = []
        for i, v in enumerate(sorted(set(values.values()), reverse=True)):  # type: ignore[type-var]
            sub = [t for t in group if values[t] == v]
            blocks.extend(self.resolve(sub, rest, decided if i == 0 else step))
        return blocks

    def rank(self) -> list[Block]:
        """All teams in order, as blocks of shared places."""
        primary = self.p.primary
        by_primary: dict[float, list[str]] = defaultdict(list)
        for t, team in self.teams.items():
            by_primary[float(getattr(team, primary))].append(t)
        blocks: list[Block] = []
        for i, key in enumerate(sorted(by_primary, reverse=True)):
            group = by_primary[key]
            chain = self.p.two_tied if len(group) == 2 else self.p.many_tied
            blocks.extend(self.resolve(group, chain, None if i == 0 else primary))
        return blocks


def is_round_robin(stage: str | None, entry: str, rows: pl.DataFrame, p: StandingsParams) -> bool:
    """Whether a stage is a round robin (循環賽), where `national` Art. 49 (6) skips opponents' score.

    ``p.round_robin`` decides when set. Otherwise (policy): the stage's name contains one of
    ``p.round_robin_names`` (the simulator and many organisers name it so), or, for a pair
    event, its pairings are a complete round robin: every two pairs met, all equally often
    (single, double, … round robin). The whole stage is read, so standings after its early
    rounds are ranked as a round robin too. A Swiss stage never pairs every two teams; an
    individual event (partners change) is one only by its name.
    """
    if p.round_robin is not None:
        return p.round_robin
    if stage is not None and any(name in stage.lower() for name in p.round_robin_names):
        return True
    if entry != "pair":
        return False
    meetings: dict[frozenset[str], int] = defaultdict(int)
    entries: set[str] = set(rows["team_id"].to_list())
    for t, opponents in rows.select("team_id", "opponents").iter_rows():
        for o in opponents or []:
            meetings[frozenset((t, o))] += 1
    pairs = len(entries) * (len(entries) - 1) // 2
    return len(entries) > 2 and len(meetings) == pairs and len(set(meetings.values())) == 1


def _stage_standings(rows: pl.DataFrame, p: ScoringParams, round_robin: bool) -> list[dict[str, Any]]:
    """Standings rows of one event stage, after each of its rounds."""
    out: list[dict[str, Any]] = []
    prev: dict[str, int] = {}
    teams: dict[str, _Team] = {}
    for rnd in sorted(set(rows["round"].to_list())):
        for row in rows.filter(pl.col("round") == rnd).iter_rows(named=True):
            team = teams.setdefault(row["team_id"], _Team(row["team_id"], row["player_1"], row["player_2"]))
            team.add(row)
        ranker = _Ranker(
            teams, {t: prev.get(t, len(teams) + 1) for t in teams} if prev else {}, p.standings, round_robin
        )
        place = 1
        ranks: dict[str, int] = {}
        for block, decided in ranker.rank():
            for i, t in enumerate(block):
                ranks[t] = place
                team = teams[t]
                out.append(
                    {
                        "after_round": rnd,
                        "rank": place,
                        "team_id": t,
                        "player_1": team.player_1,
                        "player_2": team.player_2,
                        "rounds": team.rounds,
                        "primary_key": p.standings.primary,
                        "match_points": team.match_points,
                        "bcta_round_score": team.bcta_round_score,
                        "level_points": team.level_points,
                        "head_to_head": ranker.h2h.get(t),
                        "wins": team.wins,
                        "draws": team.draws,
                        "losses": team.losses,
                        "byes": team.byes,
                        "raw_level_diff": team.raw_level_diff,
                        "opponents_score": None if round_robin else ranker.opponents_score(t),
                        "previous_rank": prev.get(t),
                        "tied_level_points": ranker.tied_lp.get(t),
                        "opponents_level_points": ranker.opponents_level_points(t),
                        "levels_gained": team.levels_gained,
                        "deducted_match_points": team.deducted_match_points,
                        "deducted_level_points": team.deducted_level_points,
                        "decided_by": decided if i == 0 else None,
                    }
                )
            place += len(block)
        prev = ranks
    return out


def _knockout_standings(
    rows: pl.DataFrame, p: ScoringParams, winners: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Standings rows of a knockout stage after each round: places by the round a team went out.

    A match's winner is its ``win`` row, or for a round scored as a draw (``equal_levels``) the
    side the replay named (``winners``: match id → ``matches.winner``), which is who goes
    through (`national` Art. 49 二 "加賽一副，至決出勝負"). Every team of the stage is ranked
    after every round, also a top seed whose bye means it has not played yet.
    """
    entrants = rows.select("team_id", "player_1", "player_2").unique("team_id", keep="first")
    teams = {t: _Team(t, p1, p2) for t, p1, p2 in entrants.iter_rows()}
    results: list[tuple[int, str, str, str]] = []
    out: list[dict[str, Any]] = []
    prev: dict[str, int] = {}
    for rnd in sorted(set(rows["round"].to_list())):
        in_round = rows.filter(pl.col("round") == rnd)
        for row in in_round.iter_rows(named=True):
            teams[row["team_id"]].add(row)
        for (match_id,), grp in in_round.drop_nulls("match_id").group_by("match_id", maintain_order=True):
            sides = {r["side"]: r for r in grp.iter_rows(named=True)}
            if set(sides) != {"EW", "NS"}:
                continue
            won = next((s for s, r in sides.items() if r["result"] == "win"), winners.get(str(match_id)))
            if won in sides:
                results.append((rnd, sides["EW"]["team_id"], sides["NS"]["team_id"], sides[won]["team_id"]))
        placed = placings(sorted(teams), results)
        for i, pl_ in enumerate(placed):
            team = teams[pl_.team]
            above = placed[i - 1] if i else None
            decided = None
            if above is not None and above.place != pl_.place:
                decided = "third_place_match" if above.out_in == pl_.out_in else "knockout"
            out.append(
                {
                    "after_round": rnd,
                    "rank": pl_.place,
                    "team_id": pl_.team,
                    "player_1": team.player_1,
                    "player_2": team.player_2,
                    "rounds": team.rounds,
                    "primary_key": "knockout",
                    "match_points": team.match_points,
                    "bcta_round_score": team.bcta_round_score,
                    "level_points": team.level_points,
                    "head_to_head": None,
                    "wins": team.wins,
                    "draws": team.draws,
                    "losses": team.losses,
                    "byes": team.byes,
                    "raw_level_diff": team.raw_level_diff,
                    "opponents_score": None,
                    "previous_rank": prev.get(pl_.team),
                    "tied_level_points": None,
                    "opponents_level_points": None,
                    "levels_gained": team.levels_gained,
                    "deducted_match_points": team.deducted_match_points,
                    "deducted_level_points": team.deducted_level_points,
                    "decided_by": decided,
                }
            )
        prev = {pl_.team: pl_.place for pl_ in placed}
    return out


def _entries(grp: pl.DataFrame) -> tuple[str, pl.DataFrame]:
    """The stage's entries: fixed pairs, or players when partners change (individual events).

    A pair event ranks ``team_id``s against their opposing pair. When some player of the stage
    appears with more than one partner (a league with partners drawn at each table), the entry
    is the player (`national` ranks individual events by the same rules): each row becomes one
    row per player, whose opponents are the two opposing players.
    """
    with_opp = grp.join(
        grp.filter(pl.col("match_id").is_not_null()).select(
            "match_id",
            pl.col("team_id").alias("opp_team_id"),
            pl.concat_list("player_1", "player_2").alias("opp_players"),
        ),
        on=["match_id", "opp_team_id"],
        how="left",
    )
    pairs_per_player = (
        grp.select(pl.concat_list("player_1", "player_2").alias("p"), "team_id")
        .explode("p", empty_as_null=True)
        .drop_nulls("p")
        .group_by("p")
        .agg(pl.col("team_id").n_unique())
    )
    if pairs_per_player.is_empty() or pairs_per_player["team_id"].max() == 1:  # type: ignore[operator]
        return "pair", with_opp.with_columns(
            pl.when(pl.col("opp_team_id").is_null())
            .then(pl.lit([], dtype=pl.List(pl.String)))
            .otherwise(pl.concat_list("opp_team_id"))
            .alias("opponents")
        )
    individual = (
        with_opp.with_columns(pl.concat_list("player_1", "player_2").alias("team_id"))
        .explode("team_id", empty_as_null=True)
        .drop_nulls("team_id")
        .with_columns(
            pl.col("team_id").alias("player_1"),
            pl.lit(None, dtype=pl.String).alias("player_2"),
            pl.col("opp_players").fill_null(pl.lit([], dtype=pl.List(pl.String))).alias("opponents"),
        )
    )
    return "individual", individual


def standings(
    scores: pl.DataFrame,
    overrides: Mapping[str, ScoringParams] | None = None,
    winners: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """The ``standings`` table from ``match_scores`` (with byes): every event stage after every round.

    Matches without an event or a round number (casual play) have no standings. ``entry`` says
    whether the stage ranks pairs or, when partners change between rounds, players (then
    ``team_id`` holds the player id). ``winners`` (match id → ``matches.winner`` side) decides a
    knockout match scored as a draw.
    """
    rows: list[dict[str, Any]] = []
    eligible = scores.filter(pl.col("event_id").is_not_null() & pl.col("round").is_not_null())
    ordered = eligible.sort("event_id", "stage", "round", "team_id", nulls_last=True)
    for (event_id, stage), grp in ordered.group_by("event_id", "stage", maintain_order=True):
        p = params_for(grp["rules"][0] or "national", overrides, event_id)
        entry, entries = _entries(grp)
        if entry == "pair" and is_knockout(stage):
            ranked = _knockout_standings(entries.sort("round", "team_id"), p, winners or {})
        else:
            round_robin = is_round_robin(stage, entry, entries, p.standings)
            ranked = _stage_standings(entries.sort("round", "team_id"), p, round_robin)
        for r in ranked:
            rows.append({"event_id": event_id, "stage": stage, "entry": entry, **r})
    return frame(rows, STANDINGS)
