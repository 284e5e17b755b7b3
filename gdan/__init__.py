"""The ``gdan`` command line: one typer app, each command group in its own module."""

from __future__ import annotations

import signal
from types import FrameType

import typer

from gdan import (
    export,
    importer,
    pipeline,
    rankings,
    review,
    rules,
    serve,
    simulate,
    tournament,
    users,
    validate,
)

app = typer.Typer(
    name="gdan",
    help="Guandan Lens: rules engine, replay/validation, simulation, pipeline and dashboards.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
)

for module in (rules, validate, review, simulate, pipeline, serve, rankings, importer):
    module.register(app)
tournament.register(app)
export.register(app)
users.register(app)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM handler: stop like Ctrl-C, so the command cleans up (workers, servers) and says why."""
    raise KeyboardInterrupt


def stop_on_signals() -> None:
    """Make Ctrl-C (SIGINT) and ``kill`` (SIGTERM) stop every command, whatever the parent ignored.

    A background job (``make test &``, ``nohup``) starts with SIGINT ignored, and ``kill`` would
    end a command without its clean-up: both signals raise KeyboardInterrupt, so a `gdan run` or
    `gdan demo` stops its workers and servers and says why, in the foreground or not.
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)


def main() -> None:
    """Console-script entry point."""
    stop_on_signals()
    app()
