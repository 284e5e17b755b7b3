"""Benchmark of the dashboards: render time of every page on a large store.

Two steps, both optional:

1. ``--build N`` makes a store of at least N deals at ``--out``: a base store is simulated
   (a bcta league and a national Swiss tournament, with a little corrupt input) and run through
   the whole pipeline, then every table is replicated with DuckDB, each copy with its own match,
   event and player ids (``id~k``), until the deal count reaches N. The copies are whole
   universes (players only meet players of their copy), so every table stays consistent.
2. Each page is rendered with ``streamlit.testing.v1.AppTest`` (the script run the server does,
   without the browser's drawing) in three cache states, see :func:`measure`.

Run: ``.venv/bin/python benchmarks/bench_dashboards.py --build 100000 --out /tmp/gdan_bench``
(then ``--store /tmp/gdan_bench`` to measure again without building).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from schemas.catalog import ALL_TABLES

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "dashboards" / "app.py"
PAGES: dict[str, tuple[str, dict[str, str]]] = {
    "overview": ("overview", {}),
    "leaderboard": ("leaderboard", {}),
    "player": ("player", {}),
    "player+filters": ("player", {"seat": "E", "level": "2"}),
    "head_to_head": ("head_to_head", {}),
    "dan": ("dan", {}),
    "tributes": ("tributes", {}),
    "tributes+filters": ("tributes", {"seat": "E", "level": "2"}),
    "bombs": ("bombs", {}),
    "bombs+filters": ("bombs", {"seat": "E", "level": "2"}),
    "tournament": ("tournament", {}),
    "entry": ("entry", {}),
    "replayer": ("replayer", {}),
    "quality": ("quality", {}),
}
"""What is measured: a name, the page (``dashboards/views/<page>.py``) and the address's query
parameters (the coach's filters: seat E at level 2, so the filtered play rates scan ``plays``)."""

_PLAYER_COLUMNS = {
    "player_id",
    "player_E",
    "player_N",
    "player_W",
    "player_S",
    "partner_id",
    "giver_player",
    "receiver_player",
    "player_1",
    "player_2",
}
_ID_COLUMNS = {"match_id", "event_id", "team_id", "opp_team_id", "source_file"}
_LIST_COLUMNS = {"opponent_ids"}


def build_base(out: Path) -> Path:
    """Simulate a league and a tournament into ``out/inbox`` and run the pipeline over ``out``."""
    from pipelines.run.runner import run_pipeline
    from pipelines.storage.store import Store
    from simulator import simulate_to_dir

    store = Store(out)
    simulate_to_dir(
        store.inbox / "league", "league", players=240, rounds=8, seed=7, corrupt=0.01, progress=True
    )
    simulate_to_dir(store.inbox / "swiss", "tournament", pairs=32, rounds=6, seed=8, progress=True)
    run_pipeline(out, workers=1)
    return out


def _select(name: str, present: set[str]) -> str:
    """The SELECT list of table ``name`` with its id columns made unique per copy ``k``.

    Columns of the current schema that the base store lacks (an older base) are typed nulls.
    """
    cols = []
    for field in ALL_TABLES[name]:
        quoted = f'"{field.name}"'
        if field.name not in present:
            cols.append(f"NULL AS {quoted}")
        elif field.name in _PLAYER_COLUMNS or field.name in _ID_COLUMNS:
            cols.append(f"CASE WHEN {quoted} IS NULL THEN NULL ELSE {quoted} || '~' || k END AS {quoted}")
        elif field.name in _LIST_COLUMNS:
            cols.append(f"list_transform({quoted}, x -> x || '~' || k) AS {quoted}")
        elif field.name == "payload" and name == "raw_events":
            cols.append(
                "CASE WHEN type = 'match_start' AND json_valid(payload) THEN CAST(json_merge_patch("
                "payload, json_object('players', (SELECT json_group_object(key || '~' || k, value) FROM "
                "json_each(CASE WHEN type = 'match_start' AND json_valid(payload) THEN payload "
                "ELSE '{}' END, '$.players')))) AS VARCHAR) ELSE payload END AS payload"
            )
        else:
            cols.append(quoted)
    return ", ".join(cols)


def scale(base: Path, out: Path, deals: int) -> int:
    """Write ``out``: copies of every table of ``base`` until at least ``deals`` deals; returns copies.

    The copies are one append batch of ``out``, committed and published through the store.
    """
    from pipelines.steps.state import StoreState, save_state
    from pipelines.storage.delta import new_id
    from pipelines.storage.store import Store

    base_store = Store(base)
    snapshot = base_store.snapshot()
    files_of = {name: base_store.data_files(name, v) for name, v in snapshot.versions.items()}
    target = Store(out)
    batch = new_id()
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")

    def source(name: str) -> str:
        files = ", ".join("'" + f.replace("'", "''") + "'" for f in files_of[name])
        return f"read_parquet([{files}], union_by_name = true)"

    counted = con.execute(f"SELECT count(*) FROM {source('deals')}").fetchone()
    assert counted is not None
    base_deals = counted[0]
    copies = max(1, -(-deals // base_deals))
    with Progress() as bar:
        task = bar.add_task(f"replicating {base_deals} deals x {copies}", total=len(ALL_TABLES))
        for name in ALL_TABLES:
            if files_of.get(name):
                present = {row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source(name)}").fetchall()}
                dst = target.stage_file(batch, name).as_posix().replace("'", "''")
                con.execute(
                    f"COPY (SELECT {_select(name, present)} FROM {source(name)}, range({copies}) AS r(k)) "
                    f"TO '{dst}' (FORMAT parquet, ROW_GROUP_SIZE 122880)"
                )
            bar.advance(task)
    save_state(target, StoreState(), batch, target.publish_batch(batch))
    target.publish(target.snapshot())
    return copies


def add_summaries(base: Path) -> None:
    """(Re)compute the pipeline's summary tables of ``base`` (``incomplete_matches``, the chunk
    summaries, ``player_patterns``, ``player_leads``, ``players``), so a base built before they
    existed has them too.

    Unchanged content is not rewritten.
    """
    from pipelines.steps.backfill import backfill
    from pipelines.steps.incomplete import write_incomplete
    from pipelines.steps.player_patterns import write_player_patterns
    from pipelines.steps.roster import write_roster
    from pipelines.storage.store import Store

    write_incomplete(Store(base))
    backfill(Store(base))
    write_player_patterns(base)
    write_roster(base)


def _wait_for_warm_up() -> float:
    """Wait for the app's background warm-up thread (``dashboards.ui.warm_up``); seconds waited."""
    start = time.perf_counter()
    for thread in threading.enumerate():
        if thread.name.startswith("gdan-warm-up:"):
            thread.join()
    return time.perf_counter() - start


def query_times(store: Path, name: str) -> list[tuple[str, float]]:
    """Wall seconds of every query call of page ``name``'s cold render, in call order.

    Wraps ``dashboards.ui._run`` (what every page's ``run(query, ...)`` calls), so the profile
    says which queries a page's time goes to: the first step of making a page faster.
    """
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    import dashboards.ui as ui

    os.environ["GDAN_STORE"] = str(store)
    os.environ["GDAN_WARM_UP"] = "0"
    page, params = PAGES[name]
    calls: list[tuple[str, float]] = []
    original = ui._run

    def timed(
        store: str, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        start = time.perf_counter()
        try:
            return original(store, function, args, kwargs)
        finally:
            calls.append((function.__name__, time.perf_counter() - start))

    st.cache_resource.clear()
    st.cache_data.clear()
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.query_params.update(params)
    at.run()
    st.cache_data.clear()
    ui._run = timed
    try:
        at.switch_page(f"views/{page}.py").run()
    finally:
        ui._run = original
    return calls


def measure(store: Path, repeat: int, pages: list[str] | None = None) -> dict[str, dict[str, float]]:
    """Render seconds of every page (median of ``repeat``), in three states of the caches.

    - ``cold``: no cached result and no warm-up (``GDAN_WARM_UP=0``): every query from Parquet
      (``cold_cpu_s``: the CPU seconds of that render, all threads of the process: steadier than
      wall time on a shared machine);
    - ``first``: the first visit of the page after the app's start-up warm-up has finished
      (store-wide statistics cached, the page's own queries not);
    - ``warm``: the page again, every result cached.
    """
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    os.environ["GDAN_STORE"] = str(store)
    out: dict[str, dict[str, float]] = {}
    for name in pages or list(PAGES):
        page, params = PAGES[name]
        runs: dict[str, list[float]] = {
            "cold_s": [],
            "cold_cpu_s": [],
            "first_s": [],
            "warm_s": [],
            "warm_up_s": [],
        }
        for _ in range(repeat):
            for state in ("cold", "first"):
                os.environ["GDAN_WARM_UP"] = "0" if state == "cold" else "1"
                st.cache_resource.clear()
                st.cache_data.clear()
                at = AppTest.from_file(str(APP), default_timeout=300)
                at.query_params.update(params)
                at.run()
                if state == "cold":
                    st.cache_data.clear()
                else:
                    runs["warm_up_s"].append(_wait_for_warm_up())
                start, cpu = time.perf_counter(), time.process_time()
                at.switch_page(f"views/{page}.py").run()
                runs[f"{state}_s"].append(time.perf_counter() - start)
                if state == "cold":
                    runs["cold_cpu_s"].append(time.process_time() - cpu)
                if at.exception:
                    raise RuntimeError(f"{name}: {[e.message for e in at.exception]}")
            start = time.perf_counter()
            at.run()
            runs["warm_s"].append(time.perf_counter() - start)
        out[name] = {key: statistics.median(values) for key, values in runs.items()}
    return out


def store_size(store: Path) -> dict[str, int]:
    """Deals, plays, matches and players of the store."""
    from pipelines.storage.warehouse import connect

    con = connect(store)
    row = con.execute(
        "SELECT (SELECT count(*) FROM deals), (SELECT count(*) FROM plays), (SELECT count(*) FROM matches), "
        "(SELECT count(DISTINCT player_id) FROM player_matches)"
    ).fetchone()
    assert row is not None
    return dict(zip(("deals", "plays", "matches", "players"), row, strict=True))


def main(argv: list[str] | None = None) -> None:
    """Build (optionally) and measure; print a table and a JSON line."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--store", type=Path, help="measure this existing store")
    parser.add_argument("--build", type=int, metavar="DEALS", help="build a store of at least DEALS deals")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "gdan_bench_store")
    parser.add_argument("--repeat", type=int, default=1, help="cold runs per page (median)")
    parser.add_argument("--pages", nargs="+", choices=list(PAGES), help="measure only these pages")
    parser.add_argument(
        "--profile", action="store_true", help="print each query's seconds of the pages' cold renders instead"
    )
    args = parser.parse_args(argv)
    console = Console()
    store = args.store
    if args.build:
        base = args.out.with_name(args.out.name + "_base")
        from pipelines.storage.store import Store

        if not Store(base).has_data("deals"):
            shutil.rmtree(base, ignore_errors=True)
            build_base(base)
        add_summaries(base)
        shutil.rmtree(args.out, ignore_errors=True)
        copies = scale(base, args.out, args.build)
        console.print(f"built {args.out} from {copies} copies of {base}")
        store = args.out
    if store is None:
        parser.error("give --store or --build")
    if args.profile:
        for name in args.pages or list(PAGES):
            calls = query_times(store, name)
            console.print(f"{name}: {sum(s for _, s in calls):.2f} s in {len(calls)} queries")
            for query, seconds in sorted(calls, key=lambda c: -c[1]):
                console.print(f"  {seconds:6.3f}  {query}")
        return
    size = store_size(store)
    console.print(f"store {store}: {size}")
    results = measure(store, args.repeat, args.pages)
    table = Table(
        "page",
        "cold (s)",
        "cold CPU (s)",
        "first after warm-up (s)",
        "warm (s)",
        "warm-up (s)",
        title="Dashboard page render time (AppTest script run)",
    )
    for page, r in results.items():
        table.add_row(
            page,
            f"{r['cold_s']:.2f}",
            f"{r['cold_cpu_s']:.2f}",
            f"{r['first_s']:.2f}",
            f"{r['warm_s']:.3f}",
            f"{r['warm_up_s']:.1f}",
        )
    console.print(table)
    print(json.dumps({"store": str(store), **size, "pages": results}))


if __name__ == "__main__":
    main()
