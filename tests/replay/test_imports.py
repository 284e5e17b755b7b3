"""``import replay`` stays light: the rules engine and the replayer load no pyarrow;
only ``replay_batch``, when it runs, does."""

from __future__ import annotations

import subprocess
import sys

import pytest

LOADS_PYARROW = "import sys; {statement}; print('pyarrow' in sys.modules)"


@pytest.mark.parametrize(
    "statement",
    ["import replay", "from replay import beats", "from replay import replay_batch, replay_match"],
)
def test_import_replay_does_not_load_pyarrow(statement: str) -> None:
    """In a fresh interpreter, importing the engine (even naming ``replay_batch``) leaves pyarrow out."""
    done = subprocess.run(
        [sys.executable, "-c", LOADS_PYARROW.format(statement=statement)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "False", done.stderr
