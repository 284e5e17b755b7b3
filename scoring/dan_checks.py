"""Invariants of the amateur dan ledger (§S5), used by the asset check and the tests."""

from __future__ import annotations

import polars as pl


def ledger_problems(ledger: pl.DataFrame) -> list[str]:
    """Every way the ledger breaks its own arithmetic, as readable messages (empty: consistent).

    Per player, in ``seq`` order: rows follow on (seq 1, 2, …; each row starts from the previous
    row's total and dan); a counted round adds exactly its points, except that a window reset
    sets the total back; other rounds change nothing; the dan moves by one exactly on promotion.
    """
    problems: list[str] = []
    for (player,), rows in ledger.sort("player_id", "seq").group_by("player_id", maintain_order=True):
        prev = None
        for r in rows.iter_rows(named=True):
            where = f"player {player} seq {r['seq']}"
            if prev is None and (r["seq"] != 1 or r["total_before"] != 0 or r["dan_before"] != 0):
                problems.append(f"{where}: first row must be seq 1 from 0 points at no dan")
            if prev is not None:
                if r["seq"] != prev["seq"] + 1:
                    problems.append(f"{where}: seq does not follow {prev['seq']}")
                if (r["total_before"], r["dan_before"]) != (prev["total_after"], prev["dan_after"]):
                    problems.append(f"{where}: does not start where the previous row ended")
            expected = r["total_before"] + r["points_earned"]
            if r["event"] == "window_reset":
                if r["total_after"] > expected:
                    problems.append(f"{where}: a window reset may not raise the total")
            elif r["total_after"] != expected:
                problems.append(
                    f"{where}: total {r['total_after']} != {r['total_before']} + {r['points_earned']}"
                )
            step = r["dan_after"] - r["dan_before"]
            if step != (1 if r["event"] == "promoted" else 0):
                problems.append(f"{where}: dan moved by {step} with event {r['event']}")
            if not r["counted"] and r["points_earned"] != 0:
                problems.append(f"{where}: uncounted round earned points")
            prev = r
    return problems
