"""`gdan serve`: the whole results service in one command, the dashboards and an inbox watcher.

An event day on one laptop: the dashboards (the same Streamlit server as `gdan dashboard`, with
the same host-exposure rules) in a child process, and in this process a watcher that runs the
in-process pipeline (what `gdan run` runs) whenever a submission lands in the store's inbox, so a
result counts seconds after it is entered and open pages show it by themselves. A deployment
with schedules and a run history uses Dagster instead (`dagster dev` or the daemon: the inbox
sensor, `pipelines.defs.sensors`), which detects new files with the same code.
"""

from __future__ import annotations

import subprocess
from datetime import datetime
from typing import Annotated

import typer

from gdan.pipeline import (
    DEFAULT_STORE,
    EXIT_FAILED,
    LOOPBACK,
    AnonymousOption,
    HostOption,
    IdleOption,
    PortOption,
    StoreOption,
    console,
    dashboard_server,
    is_store,
    literal,
    require_table_path,
    stop_server,
)


def _say(message: str) -> None:
    """One line of the service's log, with the local time."""
    console.print(literal(f"{datetime.now():%H:%M:%S} {message}"), soft_wrap=True, highlight=False)


def serve(
    store: StoreOption = DEFAULT_STORE,
    port: PortOption = 8501,
    host: HostOption = LOOPBACK,
    allow_anonymous_writes: AnonymousOption = False,
    session_idle_minutes: IdleOption = 30,
    poll_seconds: Annotated[
        float, typer.Option(help="Seconds between two looks at the inbox for new submissions.", min=0.1)
    ] = 2.0,
    workers: Annotated[
        int,
        typer.Option(help="Parsing and replay processes of each run (0 = one per CPU core). One "
                     "suits submissions (a match each); more help a large drop of files.", min=0),
    ] = 1,
    reviews: Annotated[
        bool, typer.Option("--reviews/--no-reviews", help="Review the replayed deals (as `gdan run`).")
    ] = True,
    create: Annotated[
        bool, typer.Option("--create", help="Start a new, empty store when the folder is not a store yet.")
    ] = False,
) -> None:
    """Serve an event day: the dashboards, and every submitted result processed within seconds.

    Starts the dashboards (as `gdan dashboard`: 127.0.0.1 unless --host, logins and table
    tokens for results entry) and watches the store's inbox every --poll-seconds: new files (a
    submitted table, a `gdan ingest`) start the pipeline in this process, as `gdan run` would,
    and open pages show the newly published run by themselves. A failed run is logged and the
    service keeps serving; the store keeps its last committed state. Files already in the inbox
    are processed at start. Ctrl-C, or `kill` of this process (SIGTERM), stops the dashboards and
    any run (which continues from the last commit next time).

    For a deployment with schedules and a run history, run Dagster instead (`dagster dev`, or its
    daemon): its inbox sensor does the same work.
    """
    from pipelines.run.inbox_watch import InboxWatcher, pipeline_runner
    from pipelines.storage.lock import lock_wait_notices
    from pipelines.storage.store import Store

    if not create and not is_store(store):
        console.print(literal(f"no store at {store}: the folder has no inbox/, state/ or tables/. Check "
                              "--store or $GDAN_STORE, or pass --create to start a new store.", "red"))
        raise typer.Exit(EXIT_FAILED)
    require_table_path(store)
    inbox = Store(store).inbox
    inbox.mkdir(parents=True, exist_ok=True)
    command, env = dashboard_server(store, port, host, allow_anonymous_writes, session_idle_minutes)
    server = subprocess.Popen(command, env=env)

    def waiting(pid: int | None) -> None:
        _say(f"waiting for the writer ({f'pid {pid}' if pid else 'another process'}) to finish")

    watcher = InboxWatcher(inbox, pipeline_runner(store, workers=workers, reviews=reviews), report=_say)
    _say(f"watching {inbox} every {poll_seconds:g} s")
    lock_wait_notices.append(waiting)
    try:
        watcher.watch(poll_seconds, keep_going=lambda: server.poll() is None)
    except KeyboardInterrupt:
        _say("stopping the service: the store keeps its last committed state")
        return
    finally:
        lock_wait_notices.remove(waiting)
        stop_server(server)
    _say(f"the dashboards' server stopped (exit status {server.returncode}): stopping the service")
    raise typer.Exit(EXIT_FAILED)


def register(app: typer.Typer) -> None:
    """Add `serve` to the `gdan` app."""
    app.command()(serve)
