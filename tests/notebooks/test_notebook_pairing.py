"""The committed notebooks: each ``.ipynb`` is paired with its ``.py`` (jupytext) and has no outputs.

Outputs are stripped in git so diffs stay readable and no data from a private store leaks
into the repository; ``notebooks/README.md`` explains the workflow.
"""

from __future__ import annotations

import jupytext
import nbformat
import pytest
from nb_runner import NAMES, NOTEBOOKS


def _cells(nb: nbformat.NotebookNode) -> list[tuple[str, str, list[str]]]:
    return [(c.cell_type, c.source, list(c.metadata.get("tags", []))) for c in nb.cells]


@pytest.mark.parametrize("name", NAMES)
def test_ipynb_is_committed_without_outputs(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    assert all(c.outputs == [] and c.execution_count is None for c in code)


@pytest.mark.parametrize("name", NAMES)
def test_ipynb_and_py_hold_the_same_cells(name: str) -> None:
    """Edit either file and run ``jupytext --sync``; this fails when the pair drifted apart."""
    ipynb = jupytext.read(NOTEBOOKS / f"{name}.ipynb")
    script = jupytext.read(NOTEBOOKS / f"{name}.py")
    assert _cells(ipynb) == _cells(script)
    for nb in (ipynb, script):
        assert nb.metadata["jupytext"]["formats"] == "ipynb,py:percent"
        assert nb.metadata["kernelspec"]["name"] == "python3"


def test_coach_review_has_a_papermill_parameters_cell() -> None:
    nb = jupytext.read(NOTEBOOKS / "coach_review.py")
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    assert "PLAYER = None" in tagged[0].source.splitlines()
