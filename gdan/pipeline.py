"""`gdan` commands of the store and pipeline: ingest, run, sql, dashboard, demo.

Heavy imports (Dagster, DuckDB, the pipeline) happen inside the commands so that
``gdan --help`` stays fast.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

if TYPE_CHECKING:
    from rich.progress import Progress

console = Console(stderr=True)

StoreOption = Annotated[
    Path,
    typer.Option("--store", envvar="GDAN_STORE", help="Store folder (inbox, tables, state).",
                 show_envvar=True),
]
DEFAULT_STORE = Path("data")


class OutputFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


def _progress() -> Progress:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description:<16}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console)


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Event files (*.jsonl, *.jsonl.gz, foreign logs) "
                                                     "or folders of them.", exists=True)],
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """Copy event files into the store's inbox; `gdan run` then ingests them (each file once).

    A folder is copied as ``inbox/<folder name>/…``; its name is that of the resolved folder, so
    ``gdan ingest ..`` or ``gdan ingest .`` copy into the inbox too.
    """
    from pipelines.ingest import file_sha256
    from pipelines.store import Store

    inbox = Store(store).inbox
    files = [(p, p.name) for p in paths if p.is_file()]
    for folder in (p.resolve() for p in paths if p.is_dir()):
        found = (f for f in sorted(folder.rglob("*")) if f.is_file())
        files += [(f, f.relative_to(folder.parent).as_posix()) for f in found]
    copied = same = 0
    with _progress() as progress:
        task = progress.add_task("copy to inbox", total=len(files))
        for source, name in files:
            target = inbox / name
            if target.exists():
                digest = file_sha256(source)
                if file_sha256(target) == digest:
                    same += 1
                    progress.advance(task)
                    continue
                target = target.with_name(f"{digest[:8]}-{target.name}")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
            copied += 1
            progress.advance(task)
    console.print(f"[green]{copied} file(s) copied[/] to {inbox}, {same} already there. "
                  "Next: [bold]gdan run[/]")


def run(
    store: StoreOption = DEFAULT_STORE,
    workers: Annotated[int, typer.Option(help="Parsing and replay processes (0 = one per CPU core).", min=0)]
    = 0,
    refresh: Annotated[bool, typer.Option(help="Recompute scoring and views even when nothing is new.")]
    = False,
) -> None:
    """Run the whole pipeline in-process: ingest the inbox, replay complete matches, scoring, views.

    Only new files are read and only newly complete matches replayed; with nothing new, the
    downstream assets are skipped (see --refresh).
    """
    _run(store, workers, refresh)


def _run(store: Path, workers: int, refresh: bool = False) -> None:
    from pipelines.progress import show_with
    from pipelines.runner import PipelineFailedError, run_pipeline
    from pipelines.state import load_state
    from pipelines.store import Store

    before = set(load_state(Store(store).state_dir).committed)
    with _progress() as progress, show_with(progress):
        try:
            run_pipeline(store, workers=workers, refresh=refresh)
        except PipelineFailedError as exc:
            _file_problems(store, before)
            console.print(f"[red]{exc}[/]")
            raise typer.Exit(1) from exc
        except Exception as exc:
            console.print(f"[red]pipeline failed:[/] {exc}\nThe store keeps its last committed state; "
                          "fix the cause and run again.")
            raise typer.Exit(1) from exc
    _file_problems(store, before)
    _summary(store)


def _file_problems(store: Path, before: set[str]) -> None:
    """Warn about the files this run read that need attention (their ``ingested_files`` rows)."""
    import pyarrow.compute as pc
    from rich.markup import escape

    from pipelines.store import Store

    the_store = Store(store)
    if not the_store.has_data("ingested_files"):
        return
    rows = the_store.read_table("ingested_files", columns=["source_file", "batch", "problem", "message"],
                                where=pc.field("problem").is_valid())
    new = [r for r in rows.to_pylist() if r["batch"] not in before]
    for row in new:
        console.print(f"[yellow]warning:[/] {escape(row['source_file'])}: {escape(row['message'])}",
                      soft_wrap=True, highlight=False)
    if new:
        console.print(f"{len(new)} file(s) need attention: "
                      "gdan sql \"SELECT * FROM ingested_files WHERE problem IS NOT NULL\"", highlight=False)


def _summary(store: Path) -> None:
    from rich.table import Table

    from pipelines.state import load_state
    from pipelines.store import Store

    state = load_state(Store(store).state_dir)
    counts = state.counts()
    table = Table(title=f"store {store}", show_header=True)
    table.add_column("status")
    table.add_column("matches", justify="right")
    table.add_column("raw rows", justify="right")
    for status in ("valid", "partial", "invalid", "incomplete"):
        table.add_row(status, str(counts.get(f"matches_{status}", 0)), str(counts.get(f"rows_{status}", 0)))
    table.add_row("malformed lines", "", str(counts["rows_malformed"]))
    console.print(table)


def sql(
    query: Annotated[str, typer.Argument(help='A read-only query, e.g. "SELECT status, count(*) FROM matches '
                                               'GROUP BY ALL". Every table is a view.')],
    store: StoreOption = DEFAULT_STORE,
    output: Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format.")]
    = OutputFormat.table,
    limit: Annotated[int, typer.Option(help="Rows shown in table format (0 = all).", min=0)] = 100,
) -> None:
    """Query the store read-only (in-memory DuckDB views over the Parquet tables)."""
    import duckdb

    from pipelines.warehouse import connect

    con = connect(store)
    try:
        result = con.execute(query)
        columns = [d[0] for d in result.description or []]
        rows = result.fetchall()
    except duckdb.Error as exc:
        console.print(f"[red]query failed:[/] {exc}")
        raise typer.Exit(1) from exc
    finally:
        con.close()
    _print_rows(columns, rows, output, limit)


def _print_rows(columns: list[str], rows: list[tuple[object, ...]], output: OutputFormat, limit: int) -> None:
    if output is OutputFormat.csv:
        import csv

        writer = csv.writer(sys.stdout)
        writer.writerow(columns)
        writer.writerows(rows)
    elif output is OutputFormat.json:
        import orjson

        records = [dict(zip(columns, r, strict=True)) for r in rows]
        sys.stdout.write(orjson.dumps(records, default=str, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        from rich.table import Table

        table = Table(*columns)
        for row in rows[: limit or None]:
            table.add_row(*("NULL" if v is None else str(v) for v in row))
        Console().print(table)
        if limit and len(rows) > limit:
            console.print(f"{len(rows)} rows, {limit} shown (--limit 0 for all)")


def dashboard(
    store: StoreOption = DEFAULT_STORE,
    port: Annotated[int, typer.Option(help="Port of the Streamlit server.")] = 8501,
) -> None:
    """Start the Streamlit dashboards over the store (reads only; safe while the pipeline runs)."""
    _dashboard(store, port)


def _dashboard(store: Path, port: int) -> None:
    # The dashboards are a separate app started as its own process: located, never imported.
    spec = importlib.util.find_spec("dashboards")
    app = Path(spec.origin).parent / "app.py" if spec and spec.origin else Path("dashboards/app.py")
    if not app.exists():
        console.print(f"[red]{app} not found[/]")
        raise typer.Exit(1)
    env = {**os.environ, "GDAN_STORE": str(store.absolute())}
    command = [sys.executable, "-m", "streamlit", "run", str(app), "--server.port", str(port),
               "--server.headless", "true"]
    console.print(f"dashboards on [bold]http://localhost:{port}[/] (Ctrl-C to stop)")
    raise typer.Exit(subprocess.call(command, env=env))


def demo(
    store: StoreOption = DEFAULT_STORE,
    serve: Annotated[bool, typer.Option("--dashboard/--no-dashboard", help="Start the dashboards at the end.")
                     ] = True,
    port: Annotated[int, typer.Option(help="Port of the Streamlit server.")] = 8501,
    seed: Annotated[int, typer.Option(help="Seed of the sample data.")] = 0,
) -> None:
    """On an empty store: simulate a sample tournament and league into the inbox; run; open the dashboards.

    The sample: a 16-pair Swiss tournament of 5 rounds (national rules) and a 96-player league
    of 40 sessions (bcta rules: long enough for dan promotions and window resets; about a minute).
    """
    from pipelines.store import Store

    the_store = Store(store)
    if the_store.has_data("raw_events") or any(the_store.inbox.glob("*")):
        console.print(f"store {store} already has data: not simulating")
    else:
        from simulator import simulate_to_dir

        with console.status("simulating a sample tournament and league"):
            workers = os.cpu_count() or 1
            simulate_to_dir(the_store.inbox / "sample-tournament", kind="tournament", pairs=16, rounds=5,
                            seed=seed, workers=workers)
            simulate_to_dir(the_store.inbox / "sample-league", kind="league", players=96, rounds=40,
                            seed=seed + 1, workers=workers)
    _run(store, 0)
    if serve:
        _dashboard(store, port)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `gdan` app."""
    for command in (ingest, run, sql, dashboard, demo):
        app.command()(command)
