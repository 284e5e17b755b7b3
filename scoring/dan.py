"""The BCTA amateur dan ledger (scoring.md §S5): one row per player per round, in time order.

Rules, as the source states them (`bcta` Appendix A) and the spec restates them:

- a player at dan d−1 is promoted to dan d by reaching ``thresholds[d]`` total points within
  ``windows[d]`` counted rounds played at dan d−1; one dan at a time, never skipping;
- only rounds against opponents of the player's own dan count (policy ``same_dan``: both
  opponents, or either); other rounds are recorded with ``counted = False``, earn nothing and
  do not use up the window;
- on promotion the points are kept and a new window starts at the new dan; when the window is
  used up without promotion, the points earned at this dan are cleared (back to the total held
  on reaching it) and a new window starts;
- at the top dan there is no window.

Rounds are processed in ``(started_at, match_id)`` order and the dans of all four players are
read before the round's points are applied, so the ledger depends on the rounds alone:
replaying all rounds from the logs gives the same ledger, whatever the input order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import polars as pl

from schemas.scoring import DAN_CURRENT, DAN_LEDGER
from scoring.frames import frame
from scoring.params import DanParams


@dataclass
class DanState:
    """A player's dan state between rounds."""

    dan: int = 0
    total: int = 0
    held_at_dan: int = 0
    """The total held on reaching the current dan: what a window reset clears back to."""
    window_no: int = 1
    used: int = 0
    rounds: int = 0
    counted_rounds: int = 0
    last_played: Any = None

    def window_size(self, p: DanParams) -> int | None:
        """Rounds allowed to reach the next dan; ``None`` at the top dan."""
        return p.windows[self.dan] if self.dan < p.max_dan else None


def apply_round(state: DanState, points: int, counted: bool, p: DanParams) -> str | None:
    """Apply one round to ``state`` in place (§S5); returns ``promoted``, ``window_reset`` or ``None``."""
    state.rounds += 1
    if not counted:
        return None
    state.counted_rounds += 1
    state.total += points
    size = state.window_size(p)
    if size is None:
        return None
    state.used += 1
    if state.total >= p.thresholds[state.dan]:
        state.dan += 1
        state.held_at_dan = state.total
        state.window_no += 1
        state.used = 0
        return "promoted"
    if state.used >= size:
        state.total = state.held_at_dan
        state.window_no += 1
        state.used = 0
        return "window_reset"
    return None


def is_counted(dan: int, opponent_dans: Iterable[int], p: DanParams) -> bool:
    """Whether a round counts for a player of ``dan`` against these opponents (§S5 policy)."""
    same = [d == dan for d in opponent_dans]
    return bool(same) and (all(same) if p.same_dan == "both" else any(same))


Round = tuple[Any, str, Any, Any, dict[str, tuple[list[str], int]]]


def _rounds(scores: pl.DataFrame, p: DanParams) -> list[Round]:
    """Dan rounds in time order: (started_at, match_id, event_id, round, {side: (players, points)})."""
    played = scores.filter(
        pl.col("match_id").is_not_null()
        & pl.col("rules").is_in(list(p.rulesets))
        & pl.col("player_1").is_not_null()
        & pl.col("player_2").is_not_null()
    ).sort("started_at", "match_id", "side", nulls_last=True)
    out = []
    for (match_id,), grp in played.group_by("match_id", maintain_order=True):
        sides = {
            r["side"]: ([r["player_1"], r["player_2"]], int(r["bcta_dan_points"] or 0))
            for r in grp.iter_rows(named=True)
        }
        if len(sides) != 2:
            continue
        first = grp.row(0, named=True)
        out.append((first["started_at"], str(match_id), first["event_id"], first["round"], sides))
    return out


def dan_ledger(scores: pl.DataFrame, p: DanParams | None = None) -> tuple[pl.DataFrame, dict[str, DanState]]:
    """The ``dan_ledger`` rows from ``match_scores`` and every player's final state.

    Only rounds of the rulesets in ``p.rulesets`` (default ``bcta``) with all four players known
    enter the ledger: dan points are the BCTA formula (§S5) and the same-dan rule needs the
    opponents.
    """
    p = p or DanParams()
    states: dict[str, DanState] = {}
    return continue_ledger(dan_rounds(scores, p), states, p), states


def dan_rounds(scores: pl.DataFrame, p: DanParams | None = None) -> list[Round]:
    """The rounds :func:`dan_ledger` applies, in its order (``(started_at, match_id)``)."""
    return _rounds(scores, p or DanParams())


def continue_ledger(
    rounds: list[Round], states: dict[str, DanState], p: DanParams | None = None
) -> pl.DataFrame:
    """The ``dan_ledger`` rows of ``rounds`` applied after ``states`` (updated in place).

    From the states the earlier rounds left (:func:`states_from_ledger`), the rows and states
    are those of applying every round at once: a player's round number goes on from its
    ``rounds``.
    """
    p = p or DanParams()
    seqs = {player: st.rounds for player, st in states.items()}
    rows: list[dict[str, Any]] = []
    for started_at, match_id, event_id, rnd, sides in rounds:
        before = {
            pl_id: states.setdefault(pl_id, DanState()).dan
            for players, _ in sides.values()
            for pl_id in players
        }
        for side, (players, points) in sides.items():
            opponents = next(ps for s, (ps, _) in sides.items() if s != side)
            opp_dans = [before[o] for o in opponents]
            for player in players:
                st = states[player]
                counted = is_counted(before[player], opp_dans, p)
                dan_before, total_before = st.dan, st.total
                size = st.window_size(p)
                window_no = st.window_no
                used = st.used + (1 if counted and size is not None else 0)
                event = apply_round(st, points, counted, p)
                st.last_played = started_at
                seqs[player] = seqs.get(player, 0) + 1
                rows.append(
                    {
                        "player_id": player,
                        "seq": seqs[player],
                        "match_id": match_id,
                        "event_id": event_id,
                        "round": rnd,
                        "started_at": started_at,
                        "opponent_dans": opp_dans,
                        "counted": counted,
                        "round_points": points,
                        "points_earned": points if counted else 0,
                        "dan_before": dan_before,
                        "dan_after": st.dan,
                        "total_before": total_before,
                        "total_after": st.total,
                        "window_no": window_no,
                        "window_rounds_used": used,
                        "window_size": size,
                        "event": event,
                    }
                )
    return frame(rows, DAN_LEDGER).sort("player_id", "seq")


def states_from_ledger(ledger: pl.DataFrame) -> dict[str, DanState]:
    """Every player's state after the rounds of ``ledger`` (a whole :func:`dan_ledger` table).

    Read from each player's last row (dan and total after it; its window goes on, or a new one
    starts after a promotion or a reset), the total held on the last promotion (none: 0) and the
    counted rows: the state :func:`dan_ledger` ended with, field for field.
    """
    last = (
        ledger.sort("player_id", "seq")
        .group_by("player_id", maintain_order=True)
        .agg(
            pl.col("seq").last(),
            pl.col("dan_after").last(),
            pl.col("total_after").last(),
            pl.col("window_no").last(),
            pl.col("window_rounds_used").last(),
            pl.col("event").last(),
            pl.col("started_at").last(),
            pl.col("counted").sum().alias("counted_rounds"),
            pl.col("total_after").filter(pl.col("event") == "promoted").last().alias("held"),
        )
    )
    states = {}
    for r in last.iter_rows(named=True):
        new_window = r["event"] in ("promoted", "window_reset")
        states[r["player_id"]] = DanState(
            dan=r["dan_after"],
            total=r["total_after"],
            held_at_dan=r["held"] or 0,
            window_no=r["window_no"] + 1 if new_window else r["window_no"],
            used=0 if new_window else r["window_rounds_used"],
            rounds=r["seq"],
            counted_rounds=r["counted_rounds"],
            last_played=r["started_at"],
        )
    return states


def dan_current(states: dict[str, DanState], p: DanParams | None = None) -> pl.DataFrame:
    """The ``dan_current`` table: each player's dan, points, progress and rounds left (§S5)."""
    p = p or DanParams()
    rows = []
    for player, st in sorted(states.items()):
        top = st.dan >= p.max_dan
        size = st.window_size(p)
        nxt = None if top else p.thresholds[st.dan]
        span = None if nxt is None else nxt - st.held_at_dan
        rows.append(
            {
                "player_id": player,
                "dan": st.dan,
                "points": st.total,
                "next_dan": None if top else st.dan + 1,
                "next_threshold": nxt,
                "points_to_next": None if nxt is None else max(nxt - st.total, 0),
                "progress": None if not span else min(max((st.total - st.held_at_dan) / span, 0.0), 1.0),
                "window_no": st.window_no,
                "window_rounds_used": st.used,
                "rounds_left": None if size is None else size - st.used,
                "rounds": st.rounds,
                "counted_rounds": st.counted_rounds,
                "last_played": st.last_played,
            }
        )
    return frame(rows, DAN_CURRENT)
