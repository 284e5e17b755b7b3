"""The compiled replay engine (``replay.native``) against its Python sources: the same tables for
the same input, clean and damaged matches alike; a stale build falls back to the sources."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.ipc as ipc
import pytest

from pipelines.steps.parsing import parse_chunk
from replay import native, replay_batch
from simulator import api as simulator_api
from simulator.corrupt import corrupt_match

RULES = ("national", "huaian", "bcta", "jiangsu", "njupt")

REPLAY_IN_SOURCES = """
import sys
import pyarrow.ipc as ipc
from replay import native, replay_batch

tables = replay_batch(ipc.open_file(sys.argv[1]).read_all())
for name, table in tables.items():
    with ipc.new_file(f"{sys.argv[2]}/{name}.arrow", table.schema) as out:
        out.write_table(table)
print("compiled" if native.is_compiled() else "sources")
"""


def sample_input() -> pa.Table:
    """RAW_EVENTS rows of simulated matches of every ruleset, plus damaged copies of some."""
    lines: list[bytes] = []
    for i, rules in enumerate(RULES * 2):
        clean = b"".join(orjson.dumps(e) + b"\n" for e in simulator_api.simulate_match(rules, seed=i))
        lines += clean.splitlines()
        damaged, _ = corrupt_match(clean, i, random.Random(i))
        lines += damaged.splitlines()
    chunk = parse_chunk(lines, "sample.jsonl", 1, datetime(2026, 11, 30, tzinfo=UTC))
    return pa.concat_tables(chunk.tables.values())


def test_compiled_engine_is_in_use_when_built() -> None:
    """A complete, fresh build is what ``import replay`` runs (unless GDAN_PURE_PYTHON=1)."""
    built = all(native.compiled_file(m) for m in native.COMPILED) and not native.stale_modules()
    if os.environ.get(native.PURE_PYTHON_ENV) == "1" or not built:
        pytest.skip("no fresh compiled build in this checkout")
    assert native.is_compiled()


def test_sources_give_the_same_tables(tmp_path: Path) -> None:
    """The compiled engine is only faster. Every table of ``replay_batch`` is identical to
    the one the Python sources derive (in a subprocess with GDAN_PURE_PYTHON=1)."""
    table = sample_input()
    assert table.num_rows > 5_000
    with ipc.new_file(tmp_path / "in.arrow", table.schema) as out:
        out.write_table(table)
    env = {**os.environ, native.PURE_PYTHON_ENV: "1"}
    done = subprocess.run(
        [sys.executable, "-c", REPLAY_IN_SOURCES, str(tmp_path / "in.arrow"), str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "sources"
    here = replay_batch(table)
    assert here["quarantine"].num_rows >= 5, "the damaged matches must reach the error paths"
    for name, mine in here.items():
        theirs = ipc.open_file(tmp_path / f"{name}.arrow").read_all()
        assert theirs.equals(mine), name


def test_stale_and_partial_builds(tmp_path: Path) -> None:
    """A source edited after the build, a module missing from it, or one an older build compiled
    that is no longer in the list makes the build stale; an incremental build that rewrote only
    the shared library holding the code does not; without the shared library every module is."""
    suffix = native.EXTENSION_SUFFIXES[0]
    assert native.stale_modules(tmp_path) == []
    (tmp_path / f"_native__mypyc{suffix}").write_text("")
    os.utime(tmp_path / f"_native__mypyc{suffix}", (2_000, 2_000))
    for i, module in enumerate(native.COMPILED):
        (tmp_path / f"{module}.py").write_text("")
        (tmp_path / f"{module}{suffix}").write_text("")
        os.utime(tmp_path / f"{module}.py", (1_000 + i, 1_000 + i))
        os.utime(tmp_path / f"{module}{suffix}", (2_000, 2_000))
    assert native.stale_modules(tmp_path) == []
    os.utime(tmp_path / "moves.py", (3_000, 3_000))
    (tmp_path / f"cards{suffix}").unlink()
    assert native.stale_modules(tmp_path) == ["cards", "moves"]
    os.utime(tmp_path / f"_native__mypyc{suffix}", (4_000, 4_000))  # rebuilt: moves compiled again
    assert native.stale_modules(tmp_path) == ["cards"]
    os.utime(tmp_path / "moves.py", (5_000, 5_000))
    assert native.stale_modules(tmp_path) == ["cards", "moves"]
    (tmp_path / "retired.py").write_text("")
    (tmp_path / f"retired{suffix}").write_text("")
    assert native.stale_modules(tmp_path) == ["cards", "moves", "retired"]
    (tmp_path / f"_native__mypyc{suffix}").unlink()
    assert native.stale_modules(tmp_path) == [*native.COMPILED, "retired"]


REVIEW_IN_SOURCES = """
import sys
import orjson
from replay import native
from replay.review import review_match
from replay.solver import Budget
from simulator.api import simulate_match

rows = [repr(d) for rules, seed in (("national", 3), ("bcta", 4))
        for d in review_match(simulate_match(rules, seed=seed), Budget(nodes=5_000), max_cards_left=12)]
print(orjson.dumps({"engine": "compiled" if native.is_compiled() else "sources", "rows": rows}).decode())
"""


def test_sources_give_the_same_reviews() -> None:
    """The compiled solver and review give the Python sources' verdicts, row for row (values,
    best moves, nodes searched, choices, phases and match chances)."""
    from replay.review import review_match
    from replay.solver import Budget

    env = {**os.environ, native.PURE_PYTHON_ENV: "1"}
    done = subprocess.run([sys.executable, "-c", REVIEW_IN_SOURCES], env=env, capture_output=True,
                          text=True, check=True)
    theirs = orjson.loads(done.stdout.splitlines()[-1])
    assert theirs["engine"] == "sources"
    mine = [repr(d) for rules, seed in (("national", 3), ("bcta", 4))
            for d in review_match(simulator_api.simulate_match(rules, seed=seed), Budget(nodes=5_000),
                                  max_cards_left=12)]
    assert any("DecisionReview" in r for r in mine)
    assert mine == theirs["rows"]
