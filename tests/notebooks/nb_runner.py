"""Executes the notebooks for the tests: from their jupytext ``.py`` source, with nbclient.

The paired ``.ipynb`` is checked separately to hold the same cells; the kernel is this venv's
``python3`` and starts in ``notebooks/`` (as Jupyter would), with ``GDAN_STORE`` set.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NAMES = ("tributes", "bombs", "coach_review")
PROBE_MARK = "PROBE:"
CELL_TIMEOUT_S = 1800
"""The bound on one cell's run: only a bound on a hang, generous for a loaded machine."""


def _parameterise(nb: nbformat.NotebookNode, params: dict[str, object]) -> None:
    """Papermill-style: insert a cell assigning ``params`` right after the ``parameters`` cell."""
    index = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    source = "\n".join(f"{k} = {v!r}" for k, v in params.items())
    nb.cells.insert(index + 1, nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]}))


def _probe_output(nb: nbformat.NotebookNode) -> dict[str, object]:
    """The JSON the probe cell printed (empty when there was no probe)."""
    for output in nb.cells[-1].get("outputs", []):
        text = output.get("text", "")
        if output.get("output_type") == "stream" and PROBE_MARK in text:
            return json.loads(text.split(PROBE_MARK, 1)[1])
    return {}


def run_notebook(name: str, store: Path, params: dict[str, object] | None = None,
                 probe: str | None = None) -> tuple[nbformat.NotebookNode, dict[str, object]]:
    """Execute notebook ``name`` against ``store``; optionally inject parameters and probe variables.

    ``probe`` is a Python expression evaluated in the kernel after the last cell; its value is
    returned JSON-decoded, so tests check what the notebook computed, not only that it ran.
    Raises ``nbclient.exceptions.CellExecutionError`` when a cell fails.
    """
    nb = jupytext.read(NOTEBOOKS / f"{name}.py")
    if params:
        _parameterise(nb, params)
    if probe:
        nb.cells.append(nbformat.v4.new_code_cell(
            f"import json as _json\nprint({PROBE_MARK!r} + _json.dumps({probe}, default=str))"))
    client = NotebookClient(nb, kernel_name="python3", timeout=CELL_TIMEOUT_S,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute(env={**os.environ, "GDAN_STORE": str(store)})
    return nb, _probe_output(nb)
