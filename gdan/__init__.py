"""The ``gdan`` command line: one typer app (``gdan.cli``), each command group in its own module.

Importing this package is cheap on purpose: :func:`main` installs the signal handlers first and
only then imports the app, so a Ctrl-C or ``kill`` in the seconds the imports take is not lost
(a background job starts with SIGINT ignored) nor a traceback.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

    app: typer.Typer

EXIT_INTERRUPTED = 130
"""Stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report an interrupted command)."""


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
    """Console-script entry point: the signal handlers, then the app's imports, then the command."""
    stop_on_signals()
    try:
        from gdan.cli import app
    except KeyboardInterrupt:
        print("interrupted: the store keeps its last committed state (the command had not started).",
              file=sys.stderr)
        raise SystemExit(EXIT_INTERRUPTED) from None
    app()


def __getattr__(name: str) -> Any:
    """``gdan.app``: the typer app, imported when first asked for."""
    if name == "app":
        from gdan.cli import app

        return app
    raise AttributeError(f"module 'gdan' has no attribute {name!r}")
