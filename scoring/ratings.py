"""Player ratings with ``openskill`` (issue 6): two-player teams, updated per round or per deal.

Every rated match is a round between two partnerships. ``update_unit = "round"`` makes one
update per match from its result (a draw ranks both teams equal); ``"deal"`` makes one update
per deal, its winners ranked first. Forfeits, byes and matches with an unknown player are not
rated (nothing was played, or the team is unknown). The history keeps, per player per match,
the rating before and after and the model's win probability for the player's team *before*
the match, which is what docs/ratings.md scores with log-loss.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict
from importlib.metadata import version
from typing import Any

import polars as pl
from openskill.models import BradleyTerryFull, PlackettLuce, ThurstoneMostellerFull

from schemas.scoring import RATING_HISTORY, RATINGS
from scoring.frames import frame
from scoring.params import RatingParams

_MODELS = {
    "PlackettLuce": PlackettLuce,
    "ThurstoneMostellerFull": ThurstoneMostellerFull,
    "BradleyTerryFull": BradleyTerryFull,
}


def make_model(p: RatingParams) -> Any:
    """The openskill model named by ``p`` with its parameters."""
    return _MODELS[p.model](mu=p.mu, sigma=p.sigma, beta=p.beta, tau=p.tau)


def rated_matches(scores: pl.DataFrame) -> list[dict[str, Any]]:
    """Played matches with four known players, in time order: teams by side and the result."""
    played = scores.filter(
        (pl.col("outcome") == "played") & pl.col("player_1").is_not_null() & pl.col("player_2").is_not_null()
    ).sort("started_at", "match_id", "side", nulls_last=True)
    out = []
    for (match_id,), grp in played.group_by("match_id", maintain_order=True):
        if grp.height != 2:
            continue
        rows = grp.to_dicts()
        out.append({
            "match_id": match_id, "event_id": rows[0]["event_id"], "round": rows[0]["round"],
            "started_at": rows[0]["started_at"],
            "teams": {r["side"]: (r["player_1"], r["player_2"]) for r in rows},
            "result": {r["side"]: r["result"] for r in rows},
        })
    return out


def _outcomes(m: dict[str, Any], deals: list[str], p: RatingParams) -> list[list[int]]:
    """The ranks (EW first, NS second) of each update for one match: its result, or each deal's winners."""
    if p.update_unit == "deal":
        return [[1, 2] if w == "EW" else [2, 1] for w in deals]
    res = m["result"]
    return [[1 if res["EW"] in ("win", "draw") else 2, 1 if res["NS"] in ("win", "draw") else 2]]


def rate(scores: pl.DataFrame, deals: pl.DataFrame | None = None,
         p: RatingParams | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ``ratings`` and ``rating_history`` tables from ``match_scores`` (and ``deals`` per deal)."""
    p = p or RatingParams()
    model = make_model(p)
    players: dict[str, Any] = {}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    last: dict[str, Any] = {}
    deal_winners: dict[str, list[str]] = defaultdict(list)
    if deals is not None:
        ordered = deals.sort("match_id", "deal_no").select("match_id", "winning_team")
        for match_id, winner in ordered.iter_rows():
            if winner in ("EW", "NS"):
                deal_winners[match_id].append(winner)
    history = []
    for m in rated_matches(scores):
        ids = [list(m["teams"]["EW"]), list(m["teams"]["NS"])]
        teams = [[players.setdefault(i, model.rating(name=i)) for i in team] for team in ids]
        before = {r.name: (r.mu, r.sigma) for rs in teams for r in rs}
        probs = model.predict_win(teams)
        won = deal_winners.get(m["match_id"], [])
        for ranks in _outcomes(m, won, p):
            teams = model.rate(teams, ranks=ranks)
        for team_ids, team, prob, side in zip(ids, teams, probs, ("EW", "NS"), strict=True):
            for idx, (pid, r) in enumerate(zip(team_ids, team, strict=True)):
                players[pid] = r
                counts[pid][0] += 1
                counts[pid][1] += len(won)
                last[pid] = m["started_at"]
                history.append({
                    "player_id": pid, "match_id": m["match_id"], "event_id": m["event_id"],
                    "round": m["round"], "started_at": m["started_at"], "partner_id": team_ids[1 - idx],
                    "result": m["result"][side], "win_probability": float(prob),
                    "mu_before": before[pid][0], "sigma_before": before[pid][1],
                    "mu_after": r.mu, "sigma_after": r.sigma, "rating_after": r.mu - p.display_k * r.sigma,
                })
    meta = {"model": p.model, "model_params": json.dumps(asdict(p), sort_keys=True),
            "update_unit": p.update_unit, "library": f"openskill=={version('openskill')}"}
    current = [
        {"player_id": pid, "mu": r.mu, "sigma": r.sigma, "rating": r.mu - p.display_k * r.sigma,
         "provisional": r.sigma >= p.provisional_sigma, "rounds": counts[pid][0], "deals": counts[pid][1],
         "last_played": last.get(pid), **meta}
        for pid, r in sorted(players.items())
    ]
    return frame(current, RATINGS), frame(history, RATING_HISTORY)
