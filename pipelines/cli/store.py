"""`gdan` commands of this group (being written)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `gdan` app."""
