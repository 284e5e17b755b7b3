"""`gdan` commands of the store and pipeline: ingest, run, sql, dashboard, demo.

Heavy imports (DuckDB, the pipeline) happen inside the commands so that
``gdan --help`` stays fast.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from gdan import EXIT_INTERRUPTED
from gdan.failures import disk_full, one_line
from gdan.render import OutputFormat, Rows, emit, literal, progress_bar, raw_cell
from pipelines.exec.executor import Executor, ExecutorKind

if TYPE_CHECKING:
    import duckdb

    from pipelines.steps.step_reports import RunReport

console = Console(stderr=True)

OBJECT_STORAGE_COMMANDS = frozenset({
    "ingest", "run", "sql", "maintain", "standings", "dan", "ratings", "dashboard",
    "export standings", "export round", "export dan", "export player",
})
"""The commands (as typed after ``gdan``) that take an ``s3://`` store (docs/deployment.md); the
others need a folder."""


def _store_root(ctx: typer.Context, store: Path) -> Path:
    """``--store`` as given, refused (exit 2, one line) when it is an ``s3://`` root that this
    command cannot use or a malformed one, before the command makes any folder."""
    from pipelines.storage.object_store import ObjectStoreError, remote_root

    try:
        root = remote_root(store)
    except ObjectStoreError as exc:
        raise typer.BadParameter(str(exc)) from None
    command = " ".join(ctx.command_path.split()[1:])
    if root is not None and command not in OBJECT_STORAGE_COMMANDS:
        raise typer.BadParameter(
            f"{root}: `gdan {command}` needs a store folder; an s3:// store is taken by "
            f"gdan {', '.join(sorted(OBJECT_STORAGE_COMMANDS))} (docs/deployment.md)"
        )
    return store


StoreOption = Annotated[
    Path,
    typer.Option(
        "--store", envvar="GDAN_STORE", show_envvar=True, callback=_store_root,
        help="Store folder (inbox, tables, state), or s3://bucket/prefix on S3-compatible object "
        "storage (credentials and endpoint from the AWS environment; docs/deployment.md).",
    ),
]
DEFAULT_STORE = Path("data")

EXIT_FAILED = 1
"""A step failed, an asset check failed, or the store / query is wrong."""
EXIT_STORE_PATH = 2
"""The store's path cannot hold Delta tables, or the store predates them (``StorePathError``)."""
EXIT_QUARANTINED = 3
"""``gdan run`` committed, but this run quarantined input (invalid matches, malformed lines)."""
STOP_WAIT_S = 10.0
"""How long the dashboards' server may take to stop before it is killed."""


def is_store(store: Path) -> bool:
    """Whether ``store`` is a store folder: `gdan ingest` or a run made its inbox, state or tables."""
    return any((store / part).is_dir() for part in ("inbox", "state", "tables"))


def require_tables(store: Path) -> None:
    """Exit 1 with a message when ``store`` has no tables: readers never create or guess a store.

    A mistyped ``--store`` would otherwise read as an empty store (0 rows, no error).
    """
    from pipelines.storage.store import Store

    if not Store(store).tables_dir.is_dir():
        what = "a store without tables (run `gdan run` first)" if is_store(store) else "not a store"
        console.print(
            literal(
                f"no store at {store} (no tables/ folder): {what}. Check --store or "
                "$GDAN_STORE; `gdan ingest` and `gdan run` create a store.",
                "red",
            )
        )
        raise typer.Exit(EXIT_FAILED)


@contextmanager
def object_storage_errors(store: Path) -> Iterator[None]:
    """Exit 1 with one line when the object storage of an ``s3://`` store fails or refuses (no
    bucket, no credentials, unreachable, a lost lease): nothing of the failed command was
    published, and the store keeps its last published state."""
    from pipelines.storage.object_store import remote_root

    if remote_root(store) is None:
        yield
        return
    from botocore.exceptions import BotoCoreError, ClientError

    from pipelines.storage.object_store import ObjectStoreError

    try:
        yield
    except (ObjectStoreError, BotoCoreError, ClientError) as exc:
        console.print(literal(f"object storage: {one_line(exc)}. The store keeps its last published "
                              "state; fix the cause and run the command again.", "red"), soft_wrap=True)
        raise typer.Exit(EXIT_FAILED) from None


def read_connection(store: Path, as_of: int | None = None) -> duckdb.DuckDBPyConnection:
    """The in-memory view connection over an existing store (:func:`require_tables`).

    ``as_of``: the number of an older run to read instead of the last one. An ``s3://`` store is
    read from this host's reading copy, pulled now (``pipelines.storage.remote``).
    """
    from pipelines.storage.remote import readable
    from pipelines.storage.warehouse import connect

    with object_storage_errors(store):
        local = readable(store)
    require_tables(local)
    return connect(local, as_of=as_of)


def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Event files (*.jsonl, *.jsonl.gz, foreign logs) or folders of them.", exists=True
        ),
    ],
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """Copy event files into the store's inbox (creating the store); `gdan run` then ingests them.

    Each file is copied once: the same content again is skipped, a file that grew since its copy
    (the copy's bytes are its start: a live log) replaces the copy, and a different file with a
    name already in the inbox is kept under a hash-prefixed name. A folder is copied as
    ``inbox/<folder name>/…``; its name is that of the resolved folder, so ``gdan ingest ..`` or
    ``gdan ingest .`` copy into the inbox too.
    """
    from pipelines.storage.remote import ingestable

    with object_storage_errors(store), ingestable(store) as local:
        _ingest(paths, local)


def _ingest(paths: list[Path], store: Path) -> None:
    """Copy ``paths`` into the inbox of the store folder ``store`` (see :func:`ingest`)."""
    from pipelines.steps.ingest import file_sha256
    from pipelines.storage.store import Store

    inbox = Store(store).inbox
    files = [(p, p.name) for p in paths if p.is_file()]
    for folder in (p.resolve() for p in paths if p.is_dir()):
        found = (f for f in sorted(folder.rglob("*")) if f.is_file())
        files += [(f, f.relative_to(folder.parent).as_posix()) for f in found]
    copied = same = grown = 0
    try:
        inbox.mkdir(parents=True, exist_ok=True)
        with progress_bar(console) as progress:
            task = progress.add_task("copy to inbox", total=len(files))
            for source, name in files:
                target = inbox / name
                if target.exists():
                    digest = file_sha256(source)
                    if file_sha256(target) == digest:
                        same += 1
                        progress.advance(task)
                        continue
                    if _grew_from(source, target):
                        _copy_whole(source, target)
                        grown += 1
                        progress.advance(task)
                        continue
                    target = target.with_name(f"{digest[:8]}-{target.name}")
                _copy_whole(source, target)
                copied += 1
                progress.advance(task)
    except OSError as exc:
        what = "disk full" if disk_full(exc) else "cannot copy"
        console.print(
            literal(
                f"{what}: {one_line(exc)}. {copied} file(s) copied, {same} already there; the inbox "
                "holds no partial file. Free space (or fix the cause) and run `gdan ingest` again.",
                "red",
            ),
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_FAILED) from None
    console.print(
        f"[green]{copied} file(s) copied[/] to {escape(str(inbox))}, {grown} grown since their "
        f"last copy (replaced: `gdan run` reads on where it stopped), {same} already there. "
        "Next: [bold]gdan run[/]"
    )


PARTIAL_PREFIX = ".partial-"
"""Name prefix of a copy into the inbox until it is whole: hidden, so no run reads it."""


def _grew_from(source: Path, target: Path) -> bool:
    """Whether ``source`` is ``target`` with bytes appended (a log that grew since its copy)."""
    size = target.stat().st_size
    if source.stat().st_size <= size:
        return False
    with open(source, "rb") as grown, open(target, "rb") as copy:
        while block := copy.read(1 << 20):
            if grown.read(len(block)) != block:
                return False
    return True


def _copy_whole(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` so that ``target`` appears whole or not at all.

    The copy is written under a hidden name beside ``target`` (the ingest skips hidden files) and
    renamed into place when complete; a copy that fails (a full disk) is removed.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{PARTIAL_PREFIX}{os.getpid()}-{target.name}")
    try:
        shutil.copy2(source, partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def run(
    store: StoreOption = DEFAULT_STORE,
    workers: Annotated[
        int, typer.Option(help="Parsing and replay processes (0 = one per CPU core).", min=0)
    ] = 0,
    refresh: Annotated[
        bool, typer.Option(help="Recompute scoring and views even when nothing is new.")
    ] = False,
    executor: Annotated[
        ExecutorKind,
        typer.Option(
            help="Where the replay runs: pool = worker processes here; dask = a Dask "
            "distributed cluster (--address, else a local one of --workers processes)."
        ),
    ] = ExecutorKind.POOL,
    address: Annotated[
        str | None,
        typer.Option(help="Dask scheduler address for --executor dask, e.g. tcp://host:8786."),
    ] = None,
    reviews: Annotated[
        bool,
        typer.Option(
            "--reviews/--no-reviews",
            help="Review the replayed deals with the exact endgame solver (play_reviews; about 3-4x "
            "the replay's CPU). --no-reviews: this run's matches get no play_reviews rows.",
        ),
    ] = True,
    create: Annotated[
        bool,
        typer.Option(
            "--create",
            help="Start a new, empty store when the folder is "
            "not a store yet (without it a mistyped --store is an error).",
        ),
    ] = False,
) -> None:
    """Run the whole pipeline in-process: ingest the inbox, replay complete matches, scoring, views.

    Only new files are read and only newly complete matches replayed; with nothing new, the
    downstream assets are skipped (see --refresh). The store must exist (`gdan ingest` creates
    it) unless --create. The replay's batches of whole matches run in local worker processes, or
    on a Dask cluster with --executor dask (docs/scale-out.md); the tables are the same.

    Exit status: 0 when everything this run ingested is valid, partial or incomplete; 3 when
    this run quarantined input (invalid matches, malformed or late lines: see the quarantine
    table), so a scheduler can alert; 1 when a step or an asset check failed; 2 when the
    store's path cannot hold Delta tables or the store predates them (rebuild it from its
    events); 130 when interrupted (Ctrl-C, SIGTERM). In every case but 0 and 3 the store keeps its last
    committed state.

    An s3://bucket/prefix store (docs/deployment.md) is run in this host's copy of it, under the
    store's lease (one writer at a time), and published to the bucket when the run ends with 0
    or 3; otherwise the bucket keeps its last published state.
    """
    from pipelines.storage.lease import lease_wait_notices
    from pipelines.storage.remote import writable

    def waiting(holder: str) -> None:
        console.print(literal(f"waiting for the writer ({holder}) to finish: another `gdan run` "
                              f"holds the lease of {store}"))

    if address and executor is not ExecutorKind.DASK:
        console.print(literal("--address is the Dask scheduler's: it needs --executor dask", "red"))
        raise typer.Exit(EXIT_FAILED)
    lease_wait_notices.append(waiting)
    try:
        with object_storage_errors(store), writable(store) as local:
            if not create and not is_store(local):
                console.print(
                    literal(
                        f"no store at {store}: the folder has no inbox/, state/ or tables/. Check "
                        "--store or $GDAN_STORE; `gdan ingest FILE…` creates a store, or pass --create.",
                        "red",
                    )
                )
                raise typer.Exit(EXIT_FAILED)
            require_table_path(local)
            quarantined = _run(local, workers, refresh, Executor(executor, address), reviews)
    finally:
        lease_wait_notices.remove(waiting)
    if quarantined:
        raise typer.Exit(EXIT_QUARANTINED)


def require_table_path(store: Path) -> None:
    """Exit 2 with one line when delta-rs cannot open tables under ``store`` (a ``[`` or ``]`` in
    its path), before any step starts: the store's first table read would raise it mid-run."""
    from pipelines.storage.delta import StorePathError
    from pipelines.storage.store import Store

    try:
        Store(store).check_table_path()
    except StorePathError as exc:
        console.print(literal(f"error: {exc}", "red"), soft_wrap=True)
        raise typer.Exit(EXIT_STORE_PATH) from None


def _run(store: Path, workers: int, refresh: bool = False, executor: Executor | None = None,
         reviews: bool = True) -> int:
    """Run the pipeline with progress bars and print the summary; returns the rows it quarantined.

    Exits 1 on a failure and 130 on an interrupt, in one message saying that the store keeps its
    last committed state (a full disk named as such), wherever the failure happens: in a step,
    or in the reads before and after them; says so too while it waits for another process that
    holds the writer lock.
    """
    from pipelines.storage.lock import lock_wait_notices

    def waiting(pid: int | None) -> None:
        holder = f"pid {pid}" if pid else "another process"
        console.print(
            f"waiting for the writer ({holder}) to finish: another `gdan run` or Dagster run "
            "holds the store's lock"
        )

    lock_wait_notices.append(waiting)
    try:
        return _run_and_report(store, workers, refresh, executor, reviews)
    except (typer.Exit, SystemExit):
        raise
    except Exception as exc:
        cause = (
            f"disk full ({one_line(exc)})" if disk_full(exc) else f"pipeline failed: {one_line(exc)}"
        )
        console.print(
            literal(
                f"{cause}. The store keeps its last committed state; "
                + ("free space and run again." if disk_full(exc) else "fix the cause and run again."),
                "red",
            ),
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_FAILED) from exc
    except BaseException:
        # KeyboardInterrupt (Ctrl-C, or SIGTERM through gdan's handler): a BaseException, not an
        # error of the pipeline.
        console.print(
            "[yellow]interrupted:[/] the store keeps its last committed state; "
            "`gdan run` continues from there."
        )
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        lock_wait_notices.remove(waiting)


def _run_and_report(store: Path, workers: int, refresh: bool, executor: Executor | None,
                    reviews: bool) -> int:
    """:func:`_run` without its handlers: the run, its warnings and its summary."""
    from pipelines.exec.progress import show_with
    from pipelines.run.runner import PipelineFailedError, run_pipeline

    try:
        with progress_bar(console) as progress, show_with(progress):
            report = run_pipeline(store, workers=workers, refresh=refresh, executor=executor,
                                  reviews=reviews)
    except PipelineFailedError as exc:
        _file_problems(store, _ingested_batches(exc.report))
        console.print(literal(str(exc), "red"))
        raise typer.Exit(EXIT_FAILED) from exc
    _file_problems(store, _ingested_batches(report))
    _summary(store)
    quarantined = _quarantined(report)
    if quarantined:
        console.print(
            f"[yellow]{quarantined} quarantine row(s) added by this run[/]: see "
            '`gdan sql "SELECT code, count(*) FROM quarantine GROUP BY ALL"`'
        )
    return quarantined


def _ingested_batches(report: RunReport) -> set[str]:
    """The ``raw_events`` batch this run's ingest wrote (none when it read no file).

    Taken from the run's own report, not from the store before and after: another writer may
    commit while this run waits for the lock, and its files and rows are not this run's.
    """
    return {
        str(meta["batch"])
        for step in report.steps
        if (meta := step.outputs.get("raw_events")) and meta.get("files_read") and meta.get("batch")
    }


def _quarantined(report: RunReport) -> int:
    """Quarantine rows this run's own steps added (see :func:`_ingested_batches`)."""
    return sum(int(meta.get("rows_added", 0) or 0)
               for step in report.steps if (meta := step.outputs.get("quarantine")))


def _file_problems(store: Path, batches: set[str]) -> None:
    """Warn about the files of this run's ingest ``batches`` that need attention (their
    ``ingested_files`` rows; a run that committed no batch read no file, and reads no row here)."""
    import pyarrow.compute as pc
    from rich.markup import escape

    from pipelines.storage.store import Store

    the_store = Store(store)
    batches = batches & set(the_store.committed_batches())
    if not batches or not the_store.has_data("ingested_files"):
        return
    needing = pc.field("problem").is_valid() & pc.field("batch").isin(sorted(batches))
    columns = ["source_file", "batch", "problem", "message"]
    new = the_store.read_table("ingested_files", columns=columns, where=needing).to_pylist()
    for row in new:
        console.print(f"[yellow]warning:[/] {escape(row['source_file'])}: {escape(row['message'])}",
                      soft_wrap=True, highlight=False)
    if new:
        console.print(f"{len(new)} file(s) need attention: "
                      "gdan sql \"SELECT * FROM ingested_files WHERE problem IS NOT NULL\"", highlight=False)


def _summary(store: Path) -> None:
    """Matches and raw rows by status after the run, as a table on stderr."""
    from pipelines.steps.state import summary_counts
    from pipelines.storage.store import Store

    counts = summary_counts(Store(store))
    rows: list[tuple[str, int | None, int]] = [
        (status, counts.get(f"matches_{status}", 0), counts.get(f"rows_{status}", 0))
        for status in ("valid", "partial", "results_only", "invalid", "incomplete")
    ]
    rows.append(("malformed lines", None, counts["rows_malformed"]))
    emit(
        Rows(["status", "matches", "raw rows"], rows),
        title=f"store {store}",
        cell=lambda _column, value: "" if value is None else str(value),
        out=console,
    )


def sql(
    query: Annotated[
        str,
        typer.Argument(
            help='A read-only query, e.g. "SELECT status, count(*) FROM matches '
            'GROUP BY ALL". Every table is a view.'
        ),
    ],
    store: StoreOption = DEFAULT_STORE,
    output: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="Output format.")
    ] = OutputFormat.table,
    limit: Annotated[int, typer.Option(help="Rows shown in table format (0 = all).", min=0)] = 100,
    as_of: Annotated[
        int | None,
        typer.Option("--as-of", metavar="RUN", help="Read the snapshot of an older run (its number; "
                     "an unknown number lists the runs kept) instead of the last one.", min=0),
    ] = None,
) -> None:
    """Query the store read-only (in-memory DuckDB views over the Delta tables of the last run).

    Only SELECT (and EXPLAIN of one) is accepted, and the query can read nothing but the
    store's tables: writes, COPY … TO, EXPORT, ATTACH, INSTALL/LOAD, settings and reading other
    files are refused (exit 1). To save a result, use --format csv or json and redirect stdout.
    """
    import duckdb

    from gdan.sandbox import RefusedQueryError, check_query, lock_down
    from pipelines.storage.remote import readable

    try:
        check_query(query)
    except RefusedQueryError as exc:
        console.print(literal(str(exc), "red"))
        raise typer.Exit(EXIT_FAILED) from exc
    from pipelines.storage.warehouse import UnknownRunError

    with object_storage_errors(store):
        local = readable(store)
    try:
        con = read_connection(local, as_of)
    except UnknownRunError as exc:
        console.print(literal(str(exc), "red"))
        raise typer.Exit(EXIT_FAILED) from exc
    with tempfile.TemporaryDirectory(prefix="gdan-sql-") as spill:
        try:
            lock_down(con, local, Path(spill))
            result = con.execute(query)
            columns = [d[0] for d in result.description or []]
            rows = result.fetchall()
        except duckdb.Error as exc:
            console.print(f"[red]query failed:[/] {escape(str(exc))}")
            raise typer.Exit(EXIT_FAILED) from exc
        finally:
            con.close()
    emit(Rows(columns, rows), output, cell=raw_cell, limit=limit)


PortOption = Annotated[int, typer.Option(help="Port of the Streamlit server.")]
HostOption = Annotated[
    str,
    typer.Option(help="Address to listen on: 127.0.0.1 (this computer only) unless told otherwise, "
                 "e.g. 0.0.0.0 for the tablets of the local network (needs an admin account)."),
]
AnonymousOption = Annotated[
    bool,
    typer.Option("--allow-anonymous-writes",
                 help="Let anyone who reaches the server enter results without a login (prints a warning)."),
]
IdleOption = Annotated[float, typer.Option(help="Minutes of inactivity after which a login expires.", min=1)]
LOOPBACK = "127.0.0.1"


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this computer only (``localhost``, ``127.x``, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def anonymous_writes(host: str, admin_exists: bool, allow_anonymous_writes: bool) -> bool:
    """Whether the dashboards may let visitors enter results without a login.

    On loopback without any admin account: yes (one person at this computer; `gdan demo`). Once an
    admin exists, logins are required unless ``--allow-anonymous-writes``. Exposed on another address
    without an admin account and without that flag: refused (``ExposureRefused``)."""
    if allow_anonymous_writes:
        return True
    if admin_exists:
        return False
    if is_loopback(host):
        return True
    raise ExposureRefused(
        f"refusing to serve on {host} without accounts: anyone on the network could enter results.\n"
        "Create an admin first:  gdan users add NAME --role admin\n"
        "(and referees: gdan users add NAME --role referee --event EVENT), "
        f"or serve on {LOOPBACK} only (the default), "
        "or pass --allow-anonymous-writes if everyone on this network may write results."
    )


class ExposureRefused(RuntimeError):
    """The dashboards would be reachable from the network with nobody able to log in."""


def _exposure(store: Path, host: str, allow_anonymous_writes: bool) -> bool:
    """:func:`anonymous_writes` for the store's accounts; exit 1 with its message when refused."""
    from service.accounts import has_admin

    try:
        return anonymous_writes(host, has_admin(store), allow_anonymous_writes)
    except ExposureRefused as exc:
        console.print(literal(str(exc), "red"))
        raise typer.Exit(EXIT_FAILED) from None


def dashboard(
    store: StoreOption = DEFAULT_STORE,
    port: PortOption = 8501,
    host: HostOption = LOOPBACK,
    allow_anonymous_writes: AnonymousOption = False,
    session_idle_minutes: IdleOption = 30,
) -> None:
    """Start the Streamlit dashboards over the store (safe while the pipeline runs).

    The pages read the store; results entry writes the store's inbox, for a referee of the event,
    an admin (`gdan users`), or a table's token (`gdan tokens issue`). The server listens on
    127.0.0.1 unless --host says otherwise; on another address it needs an admin account (or
    --allow-anonymous-writes, which lets anyone there enter results). Streamlit's XSRF protection
    stays on. Runs until stopped: Ctrl-C, or `kill` of this process (SIGTERM), stops the server too.

    An s3://bucket/prefix store is shown read-only from this host's reading copy of it, pulled at
    start and again whenever a run is published there (checked every $GDAN_REFRESH_SECONDS,
    default 3); nobody logs in or enters results on such a server, and it never writes the bucket.
    """
    from pipelines.storage.object_store import remote_root

    if remote_root(store) is None:
        require_tables(store)
        _dashboard(store, port, host, allow_anonymous_writes, session_idle_minutes)
        return
    if allow_anonymous_writes:
        console.print(literal(f"{store}: the dashboards of an s3:// store only read; "
                              "--allow-anonymous-writes has nothing to allow", "red"))
        raise typer.Exit(EXIT_FAILED)
    _read_only_dashboard(store, port, host, session_idle_minutes)


def _read_only_dashboard(store: Path, port: int, host: str, idle_minutes: float) -> None:
    """The dashboards over this host's reading copy of the ``s3://`` store ``store``, refreshed in
    this process while the server runs."""
    import threading

    from pipelines.storage.object_store import remote_root
    from pipelines.storage.remote import follow_published, readable

    with object_storage_errors(store):
        local = readable(store)
    require_tables(local)

    def failed(exc: Exception) -> None:
        console.print(literal(f"object storage: {one_line(exc)}. The dashboards keep showing the last "
                              "run pulled and try again.", "yellow"), soft_wrap=True)

    command, env = dashboard_server(local, port, host, idle_minutes=idle_minutes, read_only=True)
    env["GDAN_STORE_SOURCE"] = str(remote_root(store))
    stop = threading.Event()
    every_s = float(os.environ.get("GDAN_REFRESH_SECONDS", "3"))
    if every_s > 0:
        follow_published(store, every_s, stop, failed)
    try:
        code = _serve(command, env)
    finally:
        stop.set()
    raise typer.Exit(code)


STREAMLIT_SETTINGS = (
    "--browser.gatherUsageStats",
    "false",
    "--client.toolbarMode",
    "viewer",
    "--runner.magicEnabled",
    "false",
    "--server.enableXsrfProtection",
    "true",
)
"""The repository's ``.streamlit/config.toml`` as command-line flags: Streamlit reads that file only
when started from the repository root, and the dashboards keep these settings wherever
``gdan dashboard`` runs (no telemetry, no Deploy button, no magic, XSRF protection on)."""


def _dashboard(store: Path, port: int, host: str = LOOPBACK, allow_anonymous_writes: bool = False,
               idle_minutes: float = 30) -> None:
    command, env = dashboard_server(store, port, host, allow_anonymous_writes, idle_minutes)
    raise typer.Exit(_serve(command, env))


def dashboard_server(store: Path, port: int, host: str = LOOPBACK, allow_anonymous_writes: bool = False,
                     idle_minutes: float = 30, read_only: bool = False) -> tuple[list[str], dict[str, str]]:
    """The command and environment of the dashboards' Streamlit server over ``store``, after the
    host-exposure check (exit 1 when refused, :func:`anonymous_writes`) and its warnings; prints
    the address. Shared by `gdan dashboard`, `gdan demo` and `gdan serve`.

    ``read_only``: a server that lets nobody log in or write (an ``s3://`` store's reading copy),
    so no exposure check applies."""
    anonymous = False if read_only else _exposure(store, host, allow_anonymous_writes)
    if anonymous and not is_loopback(host):
        console.print(literal(f"WARNING: anyone who reaches {host}:{port} can enter and correct results "
                              "without a login (--allow-anonymous-writes)", "bold red"))
    elif anonymous:
        console.print(literal("results entry needs no login on this computer "
                              "(add an admin with `gdan users add NAME --role admin` to require one)"))
    # The dashboards are a separate app started as its own process: located, never imported.
    spec = importlib.util.find_spec("dashboards")
    app = Path(spec.origin).parent / "app.py" if spec and spec.origin else Path("dashboards/app.py")
    if not app.exists():
        console.print(literal(f"{app} not found", "red"))
        raise typer.Exit(EXIT_FAILED)
    env = {
        **os.environ,
        "GDAN_STORE": str(store.absolute()),
        "GDAN_ANONYMOUS_WRITES": "1" if anonymous else "0",
        "GDAN_READ_ONLY": "1" if read_only else "0",
        "GDAN_SESSION_IDLE_MINUTES": str(idle_minutes),
    }
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app),
        "--server.port",
        str(port),
        "--server.address",
        host,
        "--server.headless",
        "true",
        *STREAMLIT_SETTINGS,
    ]
    shown = f"[{host}]" if ":" in host else host
    console.print(literal(f"dashboards on http://{shown}:{port} (Ctrl-C or `kill {os.getpid()}` to stop)"))
    return command, env


def _serve(command: list[str], env: dict[str, str]) -> int:
    """Run the server ``command`` until it exits; on Ctrl-C or SIGTERM stop it, then exit 0.

    The server never outlives ``gdan``: it is terminated (killed after :data:`STOP_WAIT_S`) when
    this process is interrupted, rather than left serving as an orphan.
    """
    server = subprocess.Popen(command, env=env)
    try:
        return server.wait()
    except KeyboardInterrupt:
        console.print("stopping the dashboards")
        return 0
    finally:
        stop_server(server)


def stop_server(server: subprocess.Popen[bytes]) -> None:
    """Terminate ``server`` if it still runs, killing it after :data:`STOP_WAIT_S`."""
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def demo(
    store: StoreOption = DEFAULT_STORE,
    serve: Annotated[
        bool, typer.Option("--dashboard/--no-dashboard", help="Start the dashboards at the end.")
    ] = True,
    port: PortOption = 8501,
    seed: Annotated[int, typer.Option(help="Seed of the sample data.")] = 0,
    host: HostOption = LOOPBACK,
    allow_anonymous_writes: AnonymousOption = False,
) -> None:
    """On an empty store: simulate a sample tournament and league into the inbox; run; open the dashboards.

    The sample: a 16-pair Swiss tournament of 5 rounds (national rules) and a 96-player league
    of 40 sessions (bcta rules: long enough for dan promotions and window resets; about a minute).
    Creates the store when the folder is not one yet. Stop it with Ctrl-C, or `kill` its pid
    (shown with the dashboards' address).
    """
    from pipelines.storage.store import Store

    if serve:
        _exposure(store, host, allow_anonymous_writes)  # refused before minutes of simulation
    the_store = Store(store)
    if the_store.has_data("raw_events") or any(the_store.inbox.glob("*")):
        console.print(literal(f"store {store} already has data: not simulating"))
    else:
        from simulator import simulate_to_dir

        try:
            workers = os.cpu_count() or 1
            simulate_to_dir(
                the_store.inbox / "sample-tournament",
                kind="tournament",
                pairs=16,
                rounds=5,
                seed=seed,
                workers=workers,
                progress=True,
            )
            simulate_to_dir(
                the_store.inbox / "sample-league",
                kind="league",
                players=96,
                rounds=40,
                seed=seed + 1,
                workers=workers,
                progress=True,
            )
        except KeyboardInterrupt:
            console.print("[yellow]interrupted[/] while simulating: the inbox may hold part of the sample")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    _run(store, 0)
    if serve:
        _dashboard(store, port, host, allow_anonymous_writes)


def maintain(
    store: StoreOption = DEFAULT_STORE,
    retention_days: Annotated[
        float, typer.Option(help="Keep the files older versions need for this many days "
                            "(runs older than that can no longer be read with --as-of).", min=0)
    ] = 7,
) -> None:
    """Compact the tables' small files and vacuum old versions; print the store's bytes before/after.

    Takes the writer lock (waits for a running pipeline). The pipeline never needs it to be
    correct: it only saves space and speeds up reads.
    """
    from pipelines.storage.remote import writable
    from pipelines.storage.store import Store

    with object_storage_errors(store), writable(store) as local:
        require_tables(local)
        report = Store(local).maintain(retention_days)
    emit(
        Rows(["measure", "value"], sorted(report.items())),
        title=f"maintained {store}",
        cell=lambda _column, value: str(value),
        out=console,
    )


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `gdan` app."""
    for command in (ingest, run, sql, maintain, dashboard, demo):
        app.command()(command)
