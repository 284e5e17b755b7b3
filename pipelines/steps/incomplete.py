"""The ``incomplete_matches`` table: matches whose ``match_end`` has not arrived.

Until its ``match_end`` arrives a match is held back from replay and lives only in the ingest
state; this table makes those matches queryable (Data quality page, asset checks, SQL). It is
recomputed from the state and the matches' raw rows on every run and replaced atomically, so a
match leaves it in the run that replays it. Only the raw-event batches and the hash bucket that
hold an incomplete match are read, so the cost follows the incomplete matches, not the store.
"""

from __future__ import annotations

from datetime import datetime

import orjson
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.steps.state import HELD, MatchInfo, StoreState, load_state, select
from pipelines.storage.delta import of_matches
from pipelines.storage.store import Store
from replay.events import parse_time
from schemas.tables import INCOMPLETE_MATCHES
from schemas.times import offset_minutes

_COLUMNS = ["match_id", "seq", "type", "source_file", "line_no", "ingested_at"]


def incomplete_table(store: Store, held: dict[str, MatchInfo]) -> pa.Table:
    """One ``incomplete_matches`` row per match of ``held``, from its raw rows (malformed lines apart).

    ``last_type`` is the type of the event with the highest seq (the furthest the log got);
    ``events`` counts every raw row of the match, duplicates included, as the state does;
    ``started_at`` and ``utc_offset_min`` come from its ``match_start``'s ``t`` once it has
    arrived (the match's local time, schemas/times.py).
    """
    frames = []
    starts: dict[str, datetime] = {}
    for bucket, infos in _by_bucket(held).items():
        batches = sorted({b for info in infos.values() for b in info.batches})
        files = store.batch_files("raw_events", batches, {"bucket": bucket})
        if files:
            wanted = of_matches(infos)
            part = store.read_files("raw_events", files, columns=_COLUMNS, where=wanted)
            frame = pl.from_arrow(part)
            assert isinstance(frame, pl.DataFrame)
            frames.append(frame)
            starting = wanted & (pc.field("type") == "match_start")
            opening = store.read_files("raw_events", files, columns=["match_id", "payload"], where=starting)
            starts.update(_start_times(opening))
    if not frames:
        return INCOMPLETE_MATCHES.empty_table()
    rows = pl.concat(frames)
    out = (
        rows.sort(["match_id", "seq", "source_file", "line_no"], nulls_last=False)
        .group_by("match_id", maintain_order=True)
        .agg(
            events=pl.len(),
            first_seq=pl.col("seq").min(),
            last_seq=pl.col("seq").max(),
            last_type=pl.col("type").drop_nulls().last(),
            source_files=pl.col("source_file").unique().sort(),
            first_ingested_at=pl.col("ingested_at").min(),
            last_ingested_at=pl.col("ingested_at").max(),
        )
        .sort("match_id")
    )
    started = [starts.get(m) for m in out["match_id"]]
    out = out.with_columns(
        started_at=pl.Series(started, dtype=pl.Datetime("us", "UTC")),
        utc_offset_min=pl.Series([offset_minutes(t) for t in started], dtype=pl.Int16),
    )
    return out.to_arrow().select(INCOMPLETE_MATCHES.names).cast(INCOMPLETE_MATCHES)


def _start_times(opening: pa.Table) -> dict[str, datetime]:
    """The ``t`` of each match's ``match_start`` row (with its offset); a line without a valid ``t``
    gives none (the replay reports it when the match completes)."""
    out: dict[str, datetime] = {}
    ids, payloads = opening["match_id"].to_pylist(), opening["payload"].to_pylist()
    for match_id, payload in zip(ids, payloads, strict=True):
        try:
            t = parse_time(orjson.loads(payload).get("t"))
        except (orjson.JSONDecodeError, AttributeError, ValueError):
            continue
        if t is not None:
            out.setdefault(match_id, t)
    return out


def write_incomplete(store: Store, state: StoreState | None = None) -> int:
    """Replace ``incomplete_matches`` by the matches the state holds as incomplete; returns their count.

    Holds the writer lock, so the table matches the state committed at that moment; ``state``:
    that state, when the caller has loaded it already (the replay step, for this and ``superseded``).
    """
    with store.writer_lock():
        state = load_state(store) if state is None else state
        held = select(state.matches, HELD)
        table = incomplete_table(store, held)
        store.write_table("incomplete_matches", table)
        return table.num_rows


def _by_bucket(held: dict[str, MatchInfo]) -> dict[int, dict[str, MatchInfo]]:
    out: dict[int, dict[str, MatchInfo]] = {}
    for match_id, info in held.items():
        out.setdefault(info.bucket, {})[match_id] = info
    return out
