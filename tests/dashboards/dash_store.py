"""A small hand-made store for the dashboard tests: a few rows of every table of schemas.ALL_TABLES.

Two valid matches of one event (rules ``jiangsu`` and ``bcta``) with two deals each, a partial
match and an invalid one, tributes of every kind, bombs of several classes, quarantine rows, and
scoring rows (ratings, dan, standings). The rows are consistent where the pages join them; they
are not a rules-valid replay (the simulator store covers that).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa

from pipelines.steps.backfill import backfill
from pipelines.steps.player_patterns import write_player_patterns
from pipelines.steps.reviews import write_player_reviews
from pipelines.steps.roster import write_roster
from pipelines.steps.scoring_steps import decision_skill_step
from pipelines.storage.store import Store
from schemas.catalog import ALL_TABLES

SEATS = ("E", "N", "W", "S")
T0 = datetime(2026, 6, 18, 5, 0, tzinfo=UTC)
PLAYERS = {f"p{i}": {"name": f"Player {i}", "club": "Red" if i <= 4 else "Blue"} for i in range(1, 9)}


def _team(seat: str) -> str:
    return "EW" if seat in ("E", "W") else "NS"


def _deck() -> list[str]:
    cards = [s + r for s in "SHCD" for r in "23456789TJQKA"] + ["SB", "HR"]
    return cards * 2


def _hands(rotation: int) -> dict[str, list[str]]:
    """Four 27-card hands: a fixed interleaved deal of the two decks, rotated per deal."""
    deck = _deck()
    deck = deck[rotation:] + deck[:rotation]
    return {seat: deck[i::4] for i, seat in enumerate(SEATS)}


def _write(store: Store, name: str, rows: list[dict[str, Any]]) -> None:
    schema = ALL_TABLES[name]
    full = [{f.name: row.get(f.name) for f in schema} for row in rows]
    store.write_table(name, pa.Table.from_pylist(full, schema=schema))


def _plays(match: str, deal: int, seats: dict[str, str], hands: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Three tricks: a single with a pass that could beat, bombs (one over the partner), a going-out
    with 接风 (the next lead is by the partner of the player who went out)."""
    e, n, w, s = (hands[x] for x in SEATS)
    rows: list[dict[str, Any]] = []

    def add(
        trick: int, pos: int, seat: str, action: str, cards: list[str] | None = None, **flags: Any
    ) -> None:
        rows.append(
            {
                "match_id": match,
                "deal_no": deal,
                "trick_no": trick,
                "seq": 10 + len(rows),
                "pos_in_trick": pos,
                "is_lead": pos == 0,
                "seat": seat,
                "player_id": seats[seat],
                "team": _team(seat),
                "action": action,
                "cards": cards,
                "left_E": 27,
                "left_N": 27,
                "left_W": 27,
                "left_S": 27,
                "t": T0,
                **flags,
            }
        )

    add(1, 0, "E", "play", [e[0]], combo_type="single", combo_rank=e[0][1], combo_size=1)
    add(1, 1, "N", "pass", could_beat=True, table_seat="E", table_combo_type="single")
    add(
        1,
        2,
        "W",
        "play",
        [w[5]],
        combo_type="single",
        combo_rank=w[5][1],
        combo_size=1,
        table_seat="E",
        overtook_partner=True,
    )
    add(
        1,
        3,
        "S",
        "play",
        s[0:4],
        combo_type="bomb",
        combo_rank="2",
        combo_size=4,
        bomb_class="bomb4",
        table_seat="W",
        opp_min_left=26,
        wilds_used=0,
    )
    add(1, 4, "E", "pass", could_beat=False, table_seat="S")
    add(
        1,
        5,
        "N",
        "play",
        n[0:5],
        combo_type="straight_flush",
        combo_rank="2",
        combo_size=5,
        bomb_class="straight_flush",
        table_seat="S",
        opp_min_left=26,
        reading_inferred=True,
    )
    add(1, 6, "W", "pass", could_beat=False, table_seat="N")
    add(
        1,
        7,
        "S",
        "play",
        ["SB", "SB", "HR", "HR"],
        combo_type="joker_bomb",
        combo_rank="JOKER",
        combo_size=4,
        bomb_class="joker_bomb",
        table_seat="N",
        opp_min_left=22,
        went_out=False,
    )
    add(1, 8, "E", "pass", could_beat=False, table_seat="S")
    add(1, 9, "N", "pass", could_beat=False, table_seat="S")
    add(1, 10, "W", "pass", could_beat=False, table_seat="S")
    add(2, 0, "S", "play", s[4:6], combo_type="pair", combo_rank=s[4][1], combo_size=2, went_out=True)
    add(2, 1, "E", "pass", could_beat=False, table_seat="S")
    add(2, 2, "N", "pass", could_beat=True, table_seat="S")
    add(2, 3, "W", "pass", could_beat=False, table_seat="S")
    add(3, 0, "N", "play", [n[6]], combo_type="single", combo_rank=n[6][1], combo_size=1)
    return rows


def _results_only_match(
    matches: list[dict[str, Any]],
    deals: list[dict[str, Any]],
    deal_hands: list[dict[str, Any]],
    player_matches: list[dict[str, Any]],
) -> None:
    """Append ``m6``: a ``bcta`` match of two results-only deals (docs/event-extensions.md: the
    result and levels known; play columns, hands and tribute unknown, so null)."""
    seats = dict(zip(SEATS, ("p1", "p2", "p7", "p8"), strict=True))
    start = T0 + timedelta(days=3)
    matches.append(
        {
            "match_id": "m6",
            "rules": "bcta",
            "format_kind": "deals",
            "format_deals": 2,
            "status": "results_only",
            **{f"player_{s}": p for s, p in seats.items()},
            "known_seats": list(SEATS),
            "deals_played": 2,
            "start_level_EW": "2",
            "start_level_NS": "2",
            "final_level_EW": "6",
            "final_level_NS": "2",
            "winner": "EW",
            "end_reason": "deals",
            "started_at": start,
            "n_events": 6,
        }
    )
    for deal in (1, 2):
        deals.append(
            {
                "match_id": "m6",
                "deal_no": deal,
                "rules": "bcta",
                "level": "2" if deal == 1 else "4",
                "declarers": None if deal == 1 else "EW",
                "finish_order": ["E", "W"],
                "winning_team": "EW",
                "level_gain": 2,
                "double_win": True,
                "started_at": start,
            }
        )
        deal_hands.extend(
            {
                "match_id": "m6",
                "deal_no": deal,
                "seat": seat,
                "player_id": seats[seat],
                "team": _team(seat),
                "finish_position": {"E": 1, "W": 2}.get(seat),
            }
            for seat in SEATS
        )
    for seat in SEATS:
        team = _team(seat)
        player_matches.append(
            {
                "match_id": "m6",
                "player_id": seats[seat],
                "seat": seat,
                "team": team,
                "rules": "bcta",
                "status": "results_only",
                "result": "win" if team == "EW" else "loss",
                "deals_played": 2,
                "started_at": start,
            }
        )


def build_store(root: Path, *, results_only: bool = False) -> Path:
    """Write the small store under ``root`` through the ``Store`` and publish it; return ``root``.
    ``results_only`` adds ``m6``, a match of results-only deals (:func:`_results_only_match`)."""
    store = Store(root)
    matches, deals, deal_hands, plays, tributes, player_matches = [], [], [], [], [], []
    specs = [
        ("m1", "jiangsu", ("p1", "p2", "p3", "p4"), "valid", "EW"),
        ("m2", "bcta", ("p5", "p6", "p7", "p8"), "valid", "NS"),
        ("m3", "national", ("p1", "p6", "p3", "p8"), "partial", None),
    ]
    for k, (match, rules, ids, status, winner) in enumerate(specs):
        seats = dict(zip(SEATS, ids, strict=True))
        start = T0 + timedelta(days=k)
        matches.append(
            {
                "match_id": match,
                "event_id": "ev1" if k < 2 else None,
                "event_name": "Spring Open" if k < 2 else None,
                "stage": "swiss",
                "round": 1 if k < 2 else None,
                "table": str(k + 1),
                "rules": rules,
                "format_kind": "deals",
                "format_deals": 2,
                **{f"player_{s}": p for s, p in seats.items()},
                "status": status,
                "known_seats": list(SEATS),
                "deals_played": 2,
                "start_level_EW": "2",
                "start_level_NS": "2",
                "final_level_EW": "5" if winner == "EW" else "2",
                "final_level_NS": "4" if winner == "NS" else "3",
                "winner": winner,
                "end_reason": "deals" if status == "valid" else None,
                "started_at": start,
                "ended_at": start + timedelta(minutes=40),
                "duration_s": 2400.0,
                "n_events": 40,
            }
        )
        for deal in (1, 2):
            hands = _hands(k * 2 + deal)
            order = ["S", "N", "E", "W"] if deal == 1 else ["E", "N", "W", "S"]
            win_team = _team(order[0])
            deals.append(
                {
                    "match_id": match,
                    "deal_no": deal,
                    "rules": rules,
                    "level": "2",
                    "declarers": None if deal == 1 else "NS",
                    "tribute_kind": None if deal == 1 else ("single", "double", "anti")[k],
                    "leader": "E",
                    "finish_order": order,
                    "winning_team": win_team,
                    "level_gain": 3 if deal == 1 else 2,
                    "double_win": deal == 1,
                    "tricks": 3,
                    "jie_feng": 1 if deal == 1 else 0,
                    "bombs_EW": 0,
                    "bombs_NS": 3,
                    "plays": 8,
                    "passes": 8,
                    "started_at": start,
                }
            )
            for seat in SEATS:
                deal_hands.append(
                    {
                        "match_id": match,
                        "deal_no": deal,
                        "seat": seat,
                        "player_id": seats[seat],
                        "team": _team(seat),
                        "hand": None if (status == "partial" and seat == "W") else hands[seat],
                        "natural_bombs": 2 if seat == "S" else 1,
                        # a 双下 deal ends when the winners are out: the losers have no position
                        "finish_position": (
                            None if deal == 1 and seat not in order[:2] else order.index(seat) + 1
                        ),
                        "bombs_played": 2 if seat == "S" else (1 if seat == "N" else 0),
                    }
                )
            plays.extend(_plays(match, deal, seats, hands))
            if deal == 2:
                kind = ("single", "double", "anti")[k]
                if kind == "anti":
                    tributes.append(
                        {
                            "match_id": match,
                            "deal_no": 2,
                            "kind": "anti",
                            "giver": "E",
                            "giver_player": seats["E"],
                            "anti_seats": ["E", "W"],
                        }
                    )
                else:
                    tributes.append(
                        {
                            "match_id": match,
                            "deal_no": 2,
                            "kind": kind,
                            "giver": "W",
                            "receiver": "S",
                            "giver_player": seats["W"],
                            "receiver_player": seats["S"],
                            "card": hands["W"][-1],
                            "return_card": hands["S"][1],
                            "level": "2",
                        }
                    )
                    if kind == "double":
                        tributes.append(
                            {
                                "match_id": match,
                                "deal_no": 2,
                                "kind": kind,
                                "giver": "E",
                                "receiver": "N",
                                "giver_player": seats["E"],
                                "receiver_player": seats["N"],
                                "card": hands["E"][-1],
                                "return_card": hands["N"][2],
                                "level": "2",
                            }
                        )
        for seat in SEATS:
            team = _team(seat)
            partner = {"E": "W", "W": "E", "N": "S", "S": "N"}[seat]
            player_matches.append(
                {
                    "match_id": match,
                    "player_id": seats[seat],
                    "seat": seat,
                    "team": team,
                    "partner_id": seats[partner],
                    "opponent_ids": [seats[x] for x in SEATS if _team(x) != team],
                    "event_id": "ev1" if k < 2 else None,
                    "round": 1 if k < 2 else None,
                    "rules": rules,
                    "status": status,
                    "result": "draw" if winner is None else ("win" if winner == team else "loss"),
                    "levels_gained": 3,
                    "deals_played": 2,
                    "deals_won": 1,
                    "first_places": 1,
                    "fourth_places": 1,
                    "started_at": start,
                }
            )
    if results_only:
        _results_only_match(matches, deals, deal_hands, player_matches)
    raw = [
        {
            "source_file": "logs/a.jsonl",
            "line_no": i + 1,
            "match_id": m["match_id"],
            "seq": 0,
            "type": "match_start",
            "payload": json.dumps({"players": PLAYERS, "rules": m["rules"]}),
            "content_hash": f"h{i}",
            "ingested_at": T0,
        }
        for i, m in enumerate(matches)
    ]
    raw.append(
        {
            "source_file": "logs/a.jsonl",
            "line_no": 99,
            "payload": "{not json",
            "content_hash": "bad",
            "parse_error": "Expecting property name",
            "ingested_at": T0,
        }
    )
    matches.append(
        {
            "match_id": "m4",
            "event_id": "ev2",
            "event_name": "Duplicate Cup",
            "duplicate_board": "b1",
            "duplicate_room": "open",
            "status": "invalid",
            "rules": "national",
            "error_code": "does_not_beat",
            "error_seq": 7,
            "error_message": "pair 5 does not beat pair 9",
            "deals_played": 0,
            "started_at": T0,
        }
    )
    quarantine = [
        {
            "source_file": "logs/a.jsonl",
            "line_no": 99,
            "code": "malformed_line",
            "message": "not JSON",
            "payload": "{not json",
        },
        {
            "source_file": "logs/b.jsonl",
            "line_no": 12,
            "match_id": "m4",
            "seq": 7,
            "code": "does_not_beat",
            "message": "pair 5 does not beat pair 9",
        },
    ]
    ratings = [
        {
            "player_id": p,
            "mu": 25.0 + i,
            "sigma": 8.0 - i * 0.5,
            "rating": 1.0 + i,
            "provisional": i < 4,
            "rounds": 2,
            "deals": 4,
        }
        for i, p in enumerate(PLAYERS)
    ]
    history = [
        {
            "player_id": p,
            "match_id": m["match_id"],
            "started_at": m["started_at"],
            "result": "win",
            "mu_after": 25.0 + j,
            "sigma_after": 8.0 - j,
            "rating_after": 1.0 + j,
        }
        for p in PLAYERS
        for j, m in enumerate(matches[:3])
    ]
    ledger = [
        {
            "player_id": p,
            "seq": j,
            "match_id": "m2",
            "counted": True,
            "round_points": 6000,
            "points_earned": 6000,
            "dan_before": 0 if j == 0 else 1,
            "dan_after": 1,
            "total_before": 6000 * j,
            "total_after": 6000 * (j + 1),
            "window_no": 1,
            "window_rounds_used": j + 1,
            "window_size": 30,
            "event": "promoted" if j == 1 else None,
            "started_at": T0 + timedelta(days=j),
        }
        for p in ("p5", "p6", "p7", "p8")
        for j in range(3)
    ]
    dan_current = [
        {
            "player_id": p,
            "dan": 1,
            "points": 18000,
            "next_dan": 2,
            "next_threshold": 25000,
            "points_to_next": 7000 + i,
            "progress": 0.5,
            "window_rounds_used": 1,
            "rounds_left": 39,
            "rounds": 3,
        }
        for i, p in enumerate(("p5", "p6", "p7", "p8"))
    ]
    duplicate_results = [
        {
            "event_id": "ev2",
            "board": "b1",
            "deal_no": 1,
            "direction": "EW",
            "room": room,
            "match_id": f"d{i}",
            "team_id": f"t{i}",
            "player_1": f"p{2 * i + 1}",
            "player_2": f"p{2 * i + 2}",
            "result": 3 - 2 * i,
            "mp": 2 - 2 * i,
            "mp_max": 2,
            "place": i + 1,
            "rooms": 2,
        }
        for i, room in enumerate(("open", "closed"))
    ]
    duplicate_standings = [
        {
            "event_id": "ev2",
            "rank": i + 1,
            "team_id": f"t{i}",
            "player_1": f"p{2 * i + 1}",
            "player_2": f"p{2 * i + 2}",
            "deals_compared": 1,
            "mp": 2 - 2 * i,
            "mp_max": 2,
            "mp_rate": 1.0 - i,
            "place_counts": [1 - i, i],
            "decided_by": "mp_rate" if i else None,
        }
        for i in range(2)
    ]
    forecast = [
        {
            "player_id": p,
            "dan": 1,
            "next_dan": 2,
            "points": 18000,
            "points_to_next": 7000 + i,
            "rounds_left": 39,
            "win_chance": 0.55 - 0.05 * i,
            "rated_rounds": 3 if i else 30,
            "p_promote": 0.8 - 0.2 * i,
            "expected_rounds": 4.5 + i,
            "naive_promote": 0.5,
            "low_data": i > 0,
        }
        for i, p in enumerate(("p5", "p6", "p7", "p8"))
    ]
    luck = [
        {
            "player_id": f"p{i}",
            "deals": 6 if i < 5 else 2,
            "actual_mean": 0.5 - 0.25 * i,
            "expected_mean": 0.25 - 0.1 * i,
            "above_expectation": 0.25 - 0.15 * i,
            "ci_low": -0.5 - 0.15 * i,
            "ci_high": 1.0 - 0.15 * i,
            "low_data": i >= 5,
        }
        for i in range(1, 9)
    ]
    pro = [{"player_id": "p5", "rounds": 20, "wins": 15, "win_rate": 0.75, "eligible": True, "pro_dan": 4}]
    scores = [
        {
            "match_id": m["match_id"],
            "event_id": "ev1",
            "round": 1,
            "side": side,
            "team_id": f"{m['match_id']}{side}",
            "outcome": "played",
            "result": "win" if m["winner"] == side else "loss",
            "match_points": 2.0 if m["winner"] == side else 0.0,
            "level_points": 16 if m["winner"] == side else 10,
        }
        for m in matches[:2]
        for side in ("EW", "NS")
    ]
    standings = [
        {
            "event_id": "ev1",
            "after_round": 1,
            "entry": "pair",
            "rank": r + 1,
            "team_id": f"t{r}",
            "player_1": f"p{2 * r + 1}",
            "player_2": f"p{2 * r + 3}",
            "rounds": 1,
            "match_points": 2.0 - r // 2 * 2,
            "level_points": 16.0 - r,
            "wins": 1 - r // 2,
            "decided_by": "level_points" if r else None,
        }
        for r in range(4)
    ]
    for name, rows in {
        "raw_events": raw,
        "matches": matches,
        "deals": deals,
        "deal_hands": deal_hands,
        "plays": plays,
        "play_reviews": _play_reviews(),
        "single_dummy_reviews": _single_dummy_reviews(),
        "tributes": tributes,
        "player_matches": player_matches,
        "quarantine": quarantine,
        "ratings": ratings,
        "rating_history": history,
        "dan_ledger": ledger,
        "dan_current": dan_current,
        "pro_dan": pro,
        "duplicate_matches": [
            {
                "match_id": "m3",
                "duplicate_of": "m1",
                "deals": 2,
                "match_deals": 2,
                "excluded": True,
                "reason": "every deal repeats m1",
            }
        ],
        "ingested_files": [
            {
                "source_file": f,
                "sha256": f"h{i}",
                "batch": f"b{i}",
                "first_line": 1,
                "rows": 3,
                "malformed": 0,
                "pending_bytes": 12 if problem else 0,
                "resumed": False,
                "problem": problem,
                "message": "no line break after byte 120" if problem else None,
                "ingested_at": T0 + timedelta(hours=i),
            }
            for i, (f, problem) in enumerate(
                [("late.jsonl", "unfinished_line"), ("ok.jsonl", "unfinished_line"), ("ok.jsonl", None)]
            )
        ],
        "dan_forecast": forecast,
        "duplicate_results": duplicate_results,
        "duplicate_standings": duplicate_standings,
        "player_luck": luck,
        "match_scores": scores,
        "standings": standings,
        "incomplete_matches": [
            {
                "match_id": "m5",
                "events": 3,
                "first_seq": 0,
                "last_seq": 2,
                "last_type": "deal_start",
                "source_files": ["late.jsonl"],
                "first_ingested_at": T0,
                "last_ingested_at": T0,
            }
        ],
    }.items():
        _write(store, name, rows)
    backfill(store)
    write_player_patterns(store)
    write_player_reviews(store)
    decision_skill_step(store)
    write_roster(store)
    store.publish(store.snapshot())
    return root


def _play_reviews() -> list[dict[str, Any]]:
    """Solver verdicts for the last five decisions of m1 deal 2 (see ``_plays``): a best follow, a
    pass losing 1 level (N could beat; a mistake in match terms), a pass losing 2 (a blunder), a
    forced pass and a best lead."""
    seats = dict(zip(SEATS, ("p1", "p2", "p3", "p4"), strict=True))
    verdicts = [  # seq, seat, action, value_before, value_after, best_moves, choice, phase, wins, severity
        (21, "S", "play", 2, 2, "S5 H5", "real", "follow", (0.7, 0.7), "best"),
        (22, "E", "pass", -1, -2, "D9 | SA", "real", "pass", (0.45, 0.4), "mistake"),
        (23, "N", "pass", 1, -1, "HK", "real", "pass", (0.6, 0.35), "blunder"),
        (24, "W", "pass", -2, -2, "pass", "forced", "pass", (0.3, 0.3), "best"),
        (25, "N", "play", 1, 1, "C7", "real", "lead", (0.6, 0.6), "best"),
    ]
    return [
        {"match_id": "m1", "deal_no": 2, "seq": seq, "seat": seat, "player_id": seats[seat],
         "team": _team(seat), "action": action,
         "cards": None if action == "pass" else ["S5", "H5"], "cards_left": 16,
         "left_E": 4, "left_N": 4, "left_W": 4, "left_S": 4, "value_before": before, "best_value": before,
         "value_after": after, "loss": before - after, "best_moves": best, "nodes": 10,
         "hand": ["S5", "H5", "C7", "HK"], "kind": "double_dummy", "choice": choice, "phase": phase,
         "win_best": wins[0], "win_after": wins[1], "match_loss": wins[0] - wins[1], "severity": severity}
        for seq, seat, action, before, after, best, choice, phase, wins, severity in verdicts
    ]


def _single_dummy_reviews() -> list[dict[str, Any]]:
    """Verdicts of the opt-in single-dummy job. m1 deal 2: N's pass at seq 11, which has no exact
    verdict (a mistake: 1.75 levels lost on average, worse in 5 of 8 layouts, match-winning chance
    45 % → 40 %), E's pass at seq 22 beside its exact one (the best mean) and S's return card after
    W's tribute (the best mean); m2 deal 2: N's return card after E's tribute (2.5 levels lost on
    average, 70 % → 50 %: a blunder)."""
    # match, seq, seat, player, kind, phase, hand, action, best, played mean, interval, best mean,
    # worse in, candidates (action, mean, low, high, match-winning chance)
    verdicts: list[tuple[Any, ...]] = [
        ("m1", 11, "N", "p2", "play", "pass", ["HA", "C7", "S5"], "pass", "HA", -1.25, (-2.0, -0.5), 0.5, 5,
         [("pass", -1.25, -2.0, -0.5, 0.40), ("HA", 0.5, 0.1, 0.9, 0.45)]),
        ("m1", 22, "E", "p1", "play", "pass", ["D9", "SA", "H3"], "pass", "pass", -1.0, (-1.5, -0.5), -1.0, 0,
         [("pass", -1.0, -1.5, -0.5, 0.5), ("D9", -1.38, -1.9, -0.86, 0.45)]),
        ("m1", 3, "S", "p4", "return", "tribute_return", ["S3", "H4", "DA"], "S3", "S3", 0.75, (0.25, 1.25),
         0.75, 0, [("S3", 0.75, 0.25, 1.25, 0.6), ("H4", 0.5, 0.0, 1.0, 0.55)]),
        ("m2", 4, "N", "p6", "return", "tribute_return", ["C4", "D8", "HA"], "D8", "C4", -1.5, (-2.5, -0.5),
         1.0, 6, [("C4", 1.0, 0.2, 1.8, 0.7), ("D8", -1.5, -2.5, -0.5, 0.5)]),
    ]

    def wins(action: str, candidates: list[tuple[Any, ...]]) -> dict[str, float]:
        best = max(c[4] for c in candidates)
        played = next(c[4] for c in candidates if c[0] == action)
        return {"win_best": best, "win_played": played, "match_loss": best - played}

    return [
        {"match_id": match, "deal_no": 2, "seq": seq, "seat": seat, "player_id": player, "kind": kind,
         "phase": phase, "cards_left": 108 if kind == "return" else 40, "hand": hand, "action": action,
         "best_action": best, "played_mean": mean, "played_low": low, "played_high": high,
         "best_mean": best_mean, "loss": best_mean - mean, **wins(action, candidates), "worse_in": worse,
         "layouts": 8, "exact_layouts": 0, "classes": 3,
         "candidates": [{"action": a, "mean": m, "low": lo, "high": hi, "win": w}
                        for a, m, lo, hi, w in candidates],
         "label": "sampled from the player's view (single-dummy)"}
        for (match, seq, seat, player, kind, phase, hand, action, best, mean, (low, high), best_mean, worse,
             candidates) in verdicts
    ]
