"""Hand-written event streams and a stand-in replayer for the pipeline's own tests.

The stand-in is not a rules engine: it only judges the framing (events.md "Framing": seq
0, 1, 2, … without gaps or repeats), which is all the pipeline's bookkeeping depends on. The
end-to-end tests use the real ``replay.replay_batch``.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from pipelines.steps.chunk_summaries import summarise
from pipelines.steps.player_patterns import player_leads, player_patterns
from pipelines.storage.store import Store
from pipelines.storage.warehouse import connect
from replay.errors import ErrorCode
from schemas.catalog import ALL_TABLES
from schemas.tables import DEAL_HANDS, DEALS, MATCHES, QUARANTINE

SUITS = "SHCD"
RANKS = "23456789TJQKA"
DECK = [s + r for s in SUITS for r in RANKS] + ["SB", "HR"]
SEATS = "ENWS"


def committed(root: Path) -> duckdb.DuckDBPyConnection:
    """Views over the store's committed tables, as the pipeline's own checks see them.

    Readers (``connect`` without a snapshot) see only the last whole run; a test that drives
    single steps looks at what those steps committed.
    """
    return connect(root, snapshot=Store(root).snapshot())


RUN_COLUMNS = {"batch", "ingested_at", "first_ingested_at", "last_ingested_at", "of_version"}
"""Columns that name the run, its clock or a table version of the store, not the data: they differ
between any two stores."""


def store_tables(root: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows as readers see them, without the run's own columns, in a canonical order."""
    con = connect(root)
    try:
        out = {}
        for name, schema in ALL_TABLES.items():
            dropped = [n for n in schema.names if n in RUN_COLUMNS]
            exclude = f" EXCLUDE ({', '.join(dropped)})" if dropped else ""
            out[name] = con.execute(f"SELECT *{exclude} FROM {name} ORDER BY ALL").fetchall()
        return out
    finally:
        con.close()


def hands() -> dict[str, list[str]]:
    """Two full decks dealt 27 cards to each seat (rules.md §1)."""
    cards = sorted(DECK * 2)
    return {seat: cards[i::4] for i, seat in enumerate(SEATS)}


def match_events(match_id: str, deals: int = 1, end: bool = True) -> list[dict[str, Any]]:
    """A framing-correct event stream: match_start, per deal deal_start/play/deal_end, match_end."""
    out: list[dict[str, Any]] = [
        {
            "type": "match_start",
            "rules": "national",
            "format": {"kind": "deals", "deals": deals},
            "seats": {s: f"{match_id}-p{s}" for s in SEATS},
        }
    ]
    for deal in range(1, deals + 1):
        out.append(
            {
                "type": "deal_start",
                "deal": deal,
                "level": "2",
                "declarers": None,
                "leader": "E",
                "hands": hands(),
            }
        )
        out.append({"type": "play", "seat": "E", "cards": ["S2"]})
        out.append({"type": "deal_end", "order": ["E", "W"]})
    if end:
        out.append({"type": "match_end", "reason": "deals", "winner": "EW"})
    return [{"v": 1, "match": match_id, "seq": i, **e} for i, e in enumerate(out)]


def write_jsonl(path: Path, events: list[dict[str, Any]], extra_lines: tuple[str, ...] = ()) -> Path:
    """Write events (and raw extra lines) as JSON Lines; ``.gz`` suffix compresses."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = b"".join(orjson.dumps(e) + b"\n" for e in events)
    text += b"".join(x.encode() + b"\n" for x in extra_lines)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text))
    else:
        path.write_bytes(text)
    return path


def fake_replay(events: pa.Table) -> dict[str, pa.Table]:
    """Judge each match by its framing only; emit matches, deals, deal_hands and quarantine rows."""
    by_match: dict[str, list[dict[str, Any]]] = {}
    for row in events.to_pylist():
        by_match.setdefault(row["match_id"], []).append(row)
    matches, deals, deal_hands, quarantine = [], [], [], []
    for match_id, rows in by_match.items():
        seqs = [r["seq"] for r in rows]
        fault = None
        for i, seq in enumerate(seqs):
            if seq != i:
                code = ErrorCode.DUPLICATE_SEQ if seq == i - 1 else ErrorCode.MISSING_SEQ
                fault = (rows[i], code, i if code is ErrorCode.MISSING_SEQ else seq)
                break
        status = "invalid" if fault else "valid"
        last = orjson.loads(rows[-1]["payload"])
        end = last if last.get("type") == "match_end" else {}
        matches.append(
            {
                "match_id": match_id,
                "status": status,
                "n_events": len(rows),
                "error_code": fault[1].value if fault else None,
                "rules": "national",
                "end_reason": end.get("reason"),
                "winner": end.get("winner"),
                "start_level_EW": "2",
                "start_level_NS": "2",
                "final_level_EW": "3",
                "final_level_NS": "2",
            }
        )
        if fault:
            row, code, seq = fault
            quarantine.append(
                {
                    "source_file": row["source_file"],
                    "line_no": row["line_no"],
                    "match_id": match_id,
                    "seq": seq,
                    "code": code.value,
                    "message": "framing",
                    "payload": row["payload"],
                }
            )
            continue
        for row in rows:
            payload = orjson.loads(row["payload"])
            if payload.get("type") == "deal_start":
                deals.append({"match_id": match_id, "deal_no": payload["deal"]})
                for seat, hand in payload["hands"].items():
                    deal_hands.append(
                        {"match_id": match_id, "deal_no": payload["deal"], "seat": seat, "hand": hand}
                    )
    return {
        "matches": pa.Table.from_pylist(matches, schema=MATCHES),
        "deals": pa.Table.from_pylist(deals, schema=DEALS),
        "deal_hands": pa.Table.from_pylist(deal_hands, schema=DEAL_HANDS),
        "quarantine": pa.Table.from_pylist(quarantine, schema=QUARANTINE),
    }


def pattern_tables(con: duckdb.DuckDBPyConnection) -> dict[str, pa.Table]:
    """``seat_patterns``, ``player_patterns`` and ``player_leads`` of the ``plays``, ``deal_hands``
    and ``tributes`` of ``con`` in one go, as one chunk: what a store's incremental tables add up to."""
    tables = {name: con.execute(f'SELECT * FROM "{name}"').to_arrow_table()
              for name in ("plays", "deal_hands", "tributes")}
    per_match = summarise(tables)
    return {
        "seat_patterns": per_match["seat_patterns"],
        "player_patterns": player_patterns(per_match["player_match_patterns"]),
        "player_leads": player_leads(per_match["player_match_leads"]),
    }


def exit_at_delta_write(n: int) -> None:
    """Make this process exit (status 3, no cleanup) at its ``n``-th Delta write of a run: a table
    write, a staging commit or the replay's appends. For scripts that stand for a run killed
    part-way (``os._exit``: nothing of Python's exit runs, as with a SIGKILL)."""
    import os

    from pipelines.storage import delta, staging, table_writes

    calls = []

    def killing(real: Any) -> Any:
        def write(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            if len(calls) == n:
                os._exit(3)
            return real(*args, **kwargs)

        return write

    delta.write_deltalake = killing(delta.write_deltalake)
    table_writes.write_deltalake = killing(table_writes.write_deltalake)
    staging._commit_adds = killing(staging._commit_adds)
