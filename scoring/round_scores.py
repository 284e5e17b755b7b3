"""Round scoring (scoring.md §S2–§S5): one ``match_scores`` row per team per match, plus byes.

Inputs are the replayed ``matches`` and ``deals`` tables (schemas/tables.py) and, when present,
the referees' deductions (see ``deductions.py``). Invalid and abandoned matches have no result
and are not scored. A forfeit is a match with ``end_reason == "forfeit"``: ``winner`` is the side
that did not forfeit (no winner: both forfeited, both score 0). A bye has no match at all; see
:func:`bye_rows` for how it is inferred.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any, get_args

import polars as pl

from schemas.scoring import MATCH_SCORES
from schemas.vocabulary import TEAMS, is_knockout
from scoring.frames import frame
from scoring.levels import level_value, team_id
from scoring.params import DealGainReading, DealPoints, ScoringParams, params_for

_SIDE_SEATS = {"EW": ("E", "W"), "NS": ("N", "S")}
_OTHER = {"EW": "NS", "NS": "EW"}
SCORED_STATUSES = ("valid", "partial", "results_only")


def _won_deal_points(counts: Mapping[int, int], points: DealPoints) -> int:
    """Points for the won deals of one team, from its number of won deals by level gain."""
    return sum(n * points.gain_points(gain) for gain, n in counts.items())


def _result_points(points: DealPoints, result: str) -> int:
    return {"win": points.win, "draw": points.draw, "loss": points.loss}[result]


def _bcta_points(
    points: DealPoints, result: str, won_deals: Mapping[int, int], opp_failures: int, opp_levels_gained: int
) -> int:
    """§S4/§S5: result points + points of won deals + opponents' failures at A (+ shutout bonus)."""
    total = _result_points(points, result) + _won_deal_points(won_deals, points)
    total += points.failure_points(opp_failures)
    if result == "win" and opp_levels_gained <= 0:
        total += points.shutout_bonus
    return total


FORMAT_ENDS = ("deals", "time")
"""End reasons of a round stopped by its format (rules.md §7), the only ones that can end level."""


def _scored_as_draw(
    m: Mapping[str, Any], level: int, opp_level: int, p: ScoringParams, extra_deal: bool
) -> bool:
    """A round the format ended at equal levels, scored as a draw under ``equal_levels = "draw"``.

    The replay may have named a winner for it (``bcta``'s ``draw_breaker = "declarers"``, the play
    rule 單輪勝出); seed 001's scoring text scores it 平局 (100/100 round score, 200/200 dan points).
    A round an extra deal decided is never a draw (``jiangsu``'s last round, seed 003
    "最后一轮不能平局,需加赛一把决定胜负"), even where that deal's +1 could not lift a team past A.
    """
    if extra_deal:
        return False
    return p.equal_levels == "draw" and level == opp_level and m.get("end_reason") in FORMAT_ENDS


def _side_row(
    m: Mapping[str, Any],
    side: str,
    p: ScoringParams,
    deal_counts: Mapping[int, int],
    deductions: Mapping[str, float],
    extra_deal: bool,
) -> dict[str, Any]:
    """Score one side of one finished match; ``extra_deal``: an extra deal decided it (rules.md §7)."""
    other = _OTHER[side]
    passed = m.get("passed_a")
    level = level_value(m.get(f"final_level_{side}"), passed == side)
    opp_level = level_value(m.get(f"final_level_{other}"), passed == other)
    start = level_value(m.get(f"start_level_{side}"))
    opp_start = level_value(m.get(f"start_level_{other}"))
    winner = m.get("winner")
    forfeit = m.get("end_reason") == "forfeit"
    if winner is None and forfeit:
        result = "loss"
    elif winner is None or _scored_as_draw(m, level, opp_level, p, extra_deal):
        result = "draw"
    else:
        result = "win" if winner == side else "loss"
    d = abs(level - opp_level)
    mp_params = p.match_points
    if forfeit:
        if result == "win":
            mp = mp_params.forfeit_match_points
            ldp = mp_params.forfeit_level_points
            if mp_params.forfeit_keep_actual_if_higher:
                ahead, behind = p.level_points.points(d)
                ldp = max(ldp, ahead if level >= opp_level else behind)
        else:
            mp, ldp = mp_params.loss, 0
    else:
        win_pts, lose_pts = p.level_points.points(d)
        mp = {"win": mp_params.win, "draw": mp_params.draw, "loss": mp_params.loss}[result]
        ldp = {"win": win_pts, "draw": p.level_points.points(0)[0], "loss": lose_pts}[result]
    failures = int(m.get(f"a_failures_{side}") or 0)
    opp_failures = int(m.get(f"a_failures_{other}") or 0)
    opp_gained = opp_level - opp_start
    seats = _SIDE_SEATS[side]
    players = [m.get(f"player_{s}") for s in seats]
    opp_players = [m.get(f"player_{s}") for s in _SIDE_SEATS[other]]
    return {
        "match_id": m["match_id"],
        "event_id": m.get("event_id"),
        "stage": m.get("stage"),
        "round": m.get("round"),
        "rules": m.get("rules"),
        "started_at": m.get("started_at"),
        "side": side,
        "team_id": team_id(players, f"{m['match_id']}:{side}"),
        "player_1": players[0],
        "player_2": players[1],
        "opp_team_id": team_id(opp_players, f"{m['match_id']}:{other}"),
        "outcome": "forfeit" if forfeit else "played",
        "result": result,
        "level": level,
        "opp_level": opp_level,
        "level_diff": level - opp_level,
        "levels_gained": level - start,
        "match_points": float(mp),
        "level_points": int(ldp),
        "bcta_round_score": _bcta_points(p.bcta_round, result, deal_counts, opp_failures, opp_gained),
        "bcta_dan_points": _bcta_points(p.bcta_dan, result, deal_counts, opp_failures, opp_gained),
        "a_failures": failures,
        "deducted_match_points": float(deductions.get("match_points", 0.0)),
        "deducted_level_points": float(deductions.get("level_points", 0.0)),
        "level_table": p.level_points.name,
    }


def score_matches(
    matches: pl.DataFrame,
    deals: pl.DataFrame,
    deductions: pl.DataFrame | None = None,
    overrides: Mapping[str, ScoringParams] | None = None,
) -> pl.DataFrame:
    """``match_scores`` rows for every finished valid/partial match, two per match (§S2–§S5).

    ``deductions`` has columns ``match_id, team, match_points, level_points`` (positive amounts
    deducted, see ``deductions.py``); ``overrides`` maps an event id to its own parameters.
    """
    finished = matches.filter(
        pl.col("status").is_in(SCORED_STATUSES)
        & pl.col("end_reason").is_not_null()
        & (pl.col("end_reason") != "abandoned")
    )
    counts = {reading: _deal_counts(deals, reading) for reading in get_args(DealGainReading)}
    extra = _extra_deal_matches(deals)
    ded: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    if deductions is not None:
        for match_id, team, mp, lp in deductions.select(
            "match_id", "team", "match_points", "level_points"
        ).iter_rows():
            ded[(match_id, team)] = {"match_points": mp or 0.0, "level_points": lp or 0.0}
    rows = []
    for m in finished.iter_rows(named=True):
        p = params_for(m.get("rules") or "national", overrides, m.get("event_id"))
        for side in TEAMS:
            rows.append(
                _side_row(
                    m,
                    side,
                    p,
                    counts[p.deal_gain].get((m["match_id"], side), {}),
                    ded.get((m["match_id"], side), {}),
                    m["match_id"] in extra,
                )
            )
    scores = frame(rows, MATCH_SCORES)
    return pl.concat([scores, bye_rows(scores, overrides)], how="vertical")


_PARTNER = {"E": "W", "W": "E", "N": "S", "S": "N"}


def _extra_deal_matches(deals: pl.DataFrame) -> frozenset[str]:
    """Matches that an extra deal decided (``deals.extra_deal``, rules.md §7)."""
    if deals.is_empty():
        return frozenset()
    return frozenset(deals.filter(pl.col("extra_deal").fill_null(False))["match_id"].to_list())


def _deal_counts(deals: pl.DataFrame, reading: DealGainReading) -> dict[tuple[str, str], dict[int, int]]:
    """Per (match, team): number of won deals by the levels they "went up" (1 … 3; 0: none).

    ``finishing_places`` reads seed 001's 單局勝出 (1st+2nd 升三級, 1st+3rd 升二級, 1st+4th 升一級;
    ``deals.double_win`` covers a foul scored as a double win); ``levels_gained`` takes
    ``deals.level_gain``, the gain after the cap at A. A deal without a finish order falls back
    to ``level_gain``.
    """
    out: dict[tuple[str, str], dict[int, int]] = defaultdict(dict)
    if deals.is_empty():
        return out
    capped = pl.col("level_gain").fill_null(0)
    if reading == "finishing_places":
        first = pl.col("finish_order").list.get(0, null_on_oob=True)
        third = pl.col("finish_order").list.get(2, null_on_oob=True)
        by_places = (
            pl.when(pl.col("double_win").fill_null(False))
            .then(3)
            .when(third == first.replace_strict(_PARTNER, default=None))
            .then(2)
            .otherwise(1)
        )
        gain = pl.when(first.is_null()).then(capped).otherwise(by_places)
    else:
        gain = capped
    grouped = (
        deals.drop_nulls("winning_team")
        .with_columns(gain.alias("gain"))
        .group_by("match_id", "winning_team", "gain")
        .len()
    )
    for match_id, team, g, n in grouped.iter_rows():
        out[(match_id, team)][int(g)] = n
    return out


def bye_rows(scores: pl.DataFrame, overrides: Mapping[str, ScoringParams] | None = None) -> pl.DataFrame:
    """Bye rows (§S2: 1.5 match points, 17 level points) inferred from the played rounds.

    A bye leaves no trace in the logs, so (policy, ``StandingsParams.infer_byes``): in a round
    of an event stage where **exactly one** team of the stage has no match, that team had the
    bye (Swiss with an odd number of teams, `national` Art. 26 §6). More teams missing means
    absences, not byes. A knockout stage has none: a team missing from a round is out or went
    through on a bye (:mod:`scoring.knockout`), which is no score. Bye rows have no
    ``match_id`` and ``outcome == "bye"``.
    """
    played = scores.filter(
        pl.col("event_id").is_not_null() & pl.col("round").is_not_null() & (pl.col("outcome") != "bye")
    )
    if played.is_empty():
        return scores.clear()
    rows = []
    for (event_id, stage), grp in played.group_by("event_id", "stage", maintain_order=True):
        first = grp.row(0, named=True)
        p = params_for(first["rules"] or "national", overrides, event_id)
        if not p.standings.infer_byes or is_knockout(stage):
            continue
        teams = dict(zip(grp["team_id"], zip(grp["player_1"], grp["player_2"], strict=True), strict=True))
        for rnd in sorted(set(grp["round"].to_list())):
            in_round = grp.filter(pl.col("round") == rnd)
            missing = set(teams) - set(in_round["team_id"].to_list())
            if len(missing) != 1:
                continue
            (team,) = missing
            mp = p.match_points
            rows.append(
                {
                    **{c: None for c in scores.columns},
                    "event_id": event_id,
                    "stage": stage,
                    "round": rnd,
                    "rules": first["rules"],
                    "started_at": in_round["started_at"].min(),
                    "team_id": team,
                    "player_1": teams[team][0],
                    "player_2": teams[team][1],
                    "outcome": "bye",
                    "result": "bye",
                    "level_diff": 0,
                    "levels_gained": 0,
                    "match_points": mp.bye_match_points,
                    "level_points": mp.bye_level_points,
                    "bcta_round_score": 0,
                    "bcta_dan_points": 0,
                    "a_failures": 0,
                    "deducted_match_points": 0.0,
                    "deducted_level_points": 0.0,
                    "level_table": p.level_points.name,
                }
            )
    return frame(rows, MATCH_SCORES)
