"""Guard for replay speed work: the derived output must stay byte-identical.

``--save`` simulates a fixed corpus once — 100 matches across the built-in rulesets (as
``bench_replay.py`` does) plus the damaged logs of ``simulate_to_dir(..., corrupt=0.7)`` — and
stores the corpus and a canonical dump of what the engine derives from it: every table of
``replay_batch`` (statuses, error codes, seqs and messages included) and, per match,
``replay_match``'s status, error and rows. Without ``--save`` it replays the stored corpus with
the current code and reports the first difference, so a speed change can be checked after every
step even while the simulator itself changes.

Run: ``.venv/bin/python benchmarks/check_replay_output.py --save`` before a change, then
``.venv/bin/python benchmarks/check_replay_output.py`` after each step (exit status 1 on a change).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

DEFAULT_DIR = Path("/tmp/gdan-replay-golden")
DAMAGED_MATCHES = 64
"""Independent matches simulated for the damaged logs (48 of them are damaged at rate 0.7, seed 3)."""


def corpus(matches: int) -> list[bytes]:
    """The JSON lines to replay: ``matches`` simulated matches, then every damaged log."""
    from simulator.api import simulate_to_dir

    sys.path.insert(0, str(Path(__file__).parent))
    from bench_replay import simulated_lines

    lines = simulated_lines(matches)
    with tempfile.TemporaryDirectory() as tmp:
        simulate_to_dir(Path(tmp), "matches", matches=DAMAGED_MATCHES, seed=3, corrupt=0.7)
        for path in sorted((Path(tmp) / "corrupt").glob("*.jsonl")):
            lines += [line for line in path.read_bytes().splitlines() if line.strip()]
    return lines


def raw_table(lines: list[bytes]) -> Any:
    """The lines as ``RAW_EVENTS`` rows, parsed as the ingest step does (``parse_error`` kept)."""
    import pyarrow as pa

    from schemas.tables import RAW_EVENTS

    cols: dict[str, list[Any]] = {f.name: [] for f in RAW_EVENTS}
    for i, line in enumerate(lines):
        ev: Any = None
        error = None
        try:
            ev = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            error = f"not JSON: {exc}"
        if error is None and not (isinstance(ev, dict) and isinstance(ev.get("match"), str)):
            error, ev = "no string `match` field", None
        ev = ev or {}
        seq = ev.get("seq")
        cols["source_file"].append("golden.jsonl")
        cols["line_no"].append(i + 1)
        cols["match_id"].append(ev.get("match"))
        cols["seq"].append(seq if type(seq) is int else None)
        cols["type"].append(ev.get("type") if isinstance(ev.get("type"), str) else None)
        cols["payload"].append(line.decode("utf-8", errors="backslashreplace"))
        cols["content_hash"].append("")
        cols["parse_error"].append(error)
        cols["ingested_at"].append(datetime(2026, 1, 1, tzinfo=UTC))
        cols["revision"].append(None if error else 1)
    return pa.table(cols, schema=RAW_EVENTS)


def events_by_match(lines: list[bytes]) -> dict[str, list[dict[str, Any]]]:
    """The lines' events grouped by match (lines that are not a JSON object with a string
    ``match`` are left out, as the ingest quarantines them)."""
    by_match: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        try:
            ev = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(ev, dict) and isinstance(ev.get("match"), str):
            by_match.setdefault(ev["match"], []).append(ev)
    return by_match


def derived(lines: list[bytes]) -> list[bytes]:
    """Canonical dump of everything derived from ``lines``: one JSON line per table row, per match."""
    from replay import replay_batch, replay_match

    out: list[bytes] = []
    for name, table in replay_batch(raw_table(lines)).items():
        out += [orjson.dumps([name, row], option=orjson.OPT_NON_STR_KEYS) for row in table.to_pylist()]
    for match_id, events in events_by_match(lines).items():
        result = replay_match(events)
        err = result.error
        head = [match_id, result.status, None if err is None else [err.seq, err.code.value, err.message]]
        out.append(orjson.dumps(head))
        for name in result.rows:
            out += [orjson.dumps([match_id, name, row]) for row in result.rows[name]]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="where the corpus and dump live")
    parser.add_argument("--save", action="store_true", help="simulate the corpus, store its output")
    parser.add_argument("--matches", type=int, default=100, help="clean simulated matches (with --save)")
    args = parser.parse_args()
    corpus_path, dump_path = args.dir / "corpus.jsonl", args.dir / "derived.jsonl"
    if args.save:
        args.dir.mkdir(parents=True, exist_ok=True)
        lines = corpus(args.matches)
        corpus_path.write_bytes(b"\n".join(lines) + b"\n")
        dump = derived(lines)
        dump_path.write_bytes(b"\n".join(dump) + b"\n")
        print(f"saved {len(lines)} input lines and {len(dump)} derived rows to {args.dir}")
        return
    lines = corpus_path.read_bytes().splitlines()
    expected = dump_path.read_bytes().splitlines()
    got = derived(lines)
    for i, (a, b) in enumerate(zip(expected, got, strict=False)):
        if a != b:
            print(f"row {i} differs:\n  expected {a[:400]!r}\n  got      {b[:400]!r}")
            sys.exit(1)
    if len(expected) != len(got):
        print(f"row counts differ: expected {len(expected)}, got {len(got)}")
        sys.exit(1)
    print(f"identical: {len(got)} derived rows from {len(lines)} input lines")


if __name__ == "__main__":
    main()
