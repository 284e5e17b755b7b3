"""The ``gdan`` typer app: each command group registered from its own module.

Imported by :func:`gdan.main` once the signal handlers are in place (importing every command
group takes seconds on a loaded machine), and by ``from gdan import app``.
"""

from __future__ import annotations

import typer

from gdan import (
    export,
    importer,
    pipeline,
    puzzles,
    rankings,
    review,
    rules,
    serve,
    simulate,
    single_dummy,
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

for module in (rules, validate, review, single_dummy, puzzles, simulate, pipeline, serve, rankings, importer):
    module.register(app)
tournament.register(app)
export.register(app)
users.register(app)
