"""The ``gdan`` command line: one typer app, each command group in its own module."""

from __future__ import annotations

import typer

from gdan import export, importer, pipeline, rankings, rules, simulate, tournament, validate

app = typer.Typer(
    name="gdan",
    help="Guandan Lens: rules engine, replay/validation, simulation, pipeline and dashboards.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
)

for module in (rules, validate, simulate, pipeline, rankings, importer):
    module.register(app)
tournament.register(app)
export.register(app)


def main() -> None:
    """Console-script entry point."""
    app()
