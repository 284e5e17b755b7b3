"""`gdan pair` and the entry page for a knockout stage: the bracket seeded from an earlier stage's standings.

The seeding is the final standings of the event's earlier stage (`huaian` Art. 25 "以前一階段比賽
的名次作為參考"; `national` Art. 24 四 分階段進行的比賽), its first ``qualifiers`` teams; the
bracket and the advancing are :mod:`scoring.knockout` (the simulator's code), with the winners of
the knockout rounds before N from ``matches.winner`` (which the ruleset's ``draw_breaker`` names
for a round that ends level). Without ``qualifiers`` the number is read back from the teams that
played knockout round 1 (top seeds with a bye are missing from it), else the whole earlier stage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb

    from pipelines.reads.tournament_data import Stage
    from scoring.pairing import RoundPairing


@dataclass(frozen=True, slots=True)
class KnockoutPlan:
    """A knockout round's pairing with where its seeding came from."""

    pairing: RoundPairing
    stage: Stage | None
    """The knockout stage in the store (``None``: not started yet)."""
    seeding_stage: Stage
    after_round: int
    seeds: list[str]
    ranked: dict[str, dict[str, Any]]
    """The seeding stage's standings rows by team."""
    points: str = "match_points"
    """The standings column the seeding stage is ranked by first."""


def plan_knockout(
    con: duckdb.DuckDBPyConnection,
    event: str,
    stage_name: str | None,
    seeding_name: str | None,
    round_no: int,
    qualifiers: int | None,
    seeded: int | None,
    third_place: bool,
    draw_seed: int,
) -> KnockoutPlan:
    """Pair knockout round ``round_no`` of the event from the store (raises ``LookupFailed``)."""
    from pipelines.reads.tournament_data import (
        LookupFailed,
        duplicate_ranking,
        is_duplicate,
        round_scores,
        rows,
        stage_of,
        standings,
    )
    from schemas.vocabulary import is_knockout
    from scoring.knockout import KnockoutError, seeding
    from scoring.pairing import pair_round

    names = [
        r["stage"]
        for r in rows(
            con,
            "SELECT DISTINCT stage FROM match_scores WHERE event_id = ? AND round IS NOT NULL ORDER BY stage",
            [event],
        )
    ]
    ko_name = stage_name or next((s for s in names if is_knockout(s)), None)
    ko = stage_of(con, event, ko_name) if ko_name in names else None
    if seeding_name is None:
        others = [s for s in names if s != ko_name]
        if len(others) != 1:
            known = ", ".join(str(s) for s in others) or "none"
            raise LookupFailed(
                f"event {event}: a knockout is seeded from the standings of an earlier stage "
                f"(huaian Art. 25); choose it with --seeding-stage (stages besides the knockout: {known})"
            )
        seeding_name = others[0]
    source = stage_of(con, event, seeding_name)
    after = max(source.rounds)
    duplicate = is_duplicate(con, source)  # its standings are the MP table (scoring.md §S9)
    ranked = duplicate_ranking(con, source, after) if duplicate else standings(con, source, after)
    points = "mp_rate" if duplicate else "bcta_round_score" if source.rules == "bcta" else "match_points"
    ranking = [r["team_id"] for r in ranked]
    earlier = round_scores(con, ko, before=round_no) if ko else []
    if qualifiers is None:
        played_first = round_scores(con, ko, round_no=1) if ko else []
        first = {r["team_id"] for r in played_first if r["outcome"] != "bye"}
        qualifiers = _qualifiers(ranking, first, seeded, draw_seed) if first else len(ranking)
        if qualifiers is None:
            raise LookupFailed(
                f"event {event}: the teams of knockout round 1 are not the top of stage "
                f"{seeding_name}'s standings with byes to the top seeds: pass --qualifiers"
            )
    if not 2 <= qualifiers <= len(ranking):
        raise LookupFailed(
            f"--qualifiers {qualifiers}: stage {seeding_name} has {len(ranking)} teams (2 or more qualify)"
        )
    seeds = seeding(ranking[:qualifiers], seeded, draw_seed)
    winners = {}
    for r in earlier:
        if r["match_id"] is not None and r["winner"] == r["side"]:
            winners[frozenset((r["team_id"], r["opp_team_id"]))] = r["team_id"]
    try:
        pairing = pair_round("knockout", round_no, seeds, winners=winners, third_place=third_place)
    except KnockoutError as exc:
        raise LookupFailed(f"event {event}: {exc}") from None
    return KnockoutPlan(pairing, ko, source, after, seeds, {r["team_id"]: r for r in ranked}, points)


def _qualifiers(ranking: list[str], first_round: set[str], seeded: int | None, draw_seed: int) -> int | None:
    """The k whose seeded bracket of ``ranking[:k]`` plays exactly ``first_round`` in round 1."""
    from scoring.knockout import bracket, seeding

    for k in range(len(first_round), min(2 * len(first_round), len(ranking)) + 1):
        slots = bracket(seeding(ranking[:k], seeded, draw_seed))
        playing = {
            t
            for a, b in zip(slots[::2], slots[1::2], strict=True)
            if a is not None and b is not None
            for t in (a, b)
        }
        if playing == first_round:
            return k
    return None
