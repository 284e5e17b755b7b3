"""The endgame solver's search in C (``replay/_search.pyx``) gives the Python search's answers:
the same value (rules.md §5.8), the same best moves in ``legal_moves`` order, the same node count
and the same verdict when the budget runs out, on positions of simulated matches of all five
rulesets and of random small deals (tables, passes, 接风 §5.6, seats out §5.5–§5.7), with the
transposition tables carried over between solves and cleared often.
``benchmarks/check_native_search.py`` runs the same comparison on over 10,000 positions."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from replay import native
from replay import solver as solver_module
from replay.rulesets import BUILTIN
from replay.solver import Solver

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from check_native_search import RULES, built_search, compare, random_deals, simulated_deals  # noqa: E402


@pytest.fixture(scope="module")
def search() -> ModuleType:
    module = built_search()
    if module is None:
        pytest.skip("no up-to-date replay/_search build in this checkout")
    return module


def test_simulated_positions_are_solved_as_python_does(search: ModuleType) -> None:
    """§5: one match of each ruleset, every decision from 16 cards left, budgets large and small."""
    report = compare(search, simulated_deals(len(RULES), 16), random.Random(46), None)
    assert report.differences == [], report.differences[:3]
    assert report.positions > 200
    assert 0 < report.solved < report.positions, "some budgets must run out"


@pytest.mark.parametrize("tt_limit", [None, 64])
def test_random_deals_are_solved_as_python_does(search: ModuleType, tt_limit: int | None) -> None:
    """§5.3–§5.8: random small deals of every level and ruleset along random lines of play; with
    a tiny table limit the tables clear every few dozen stores, on both sides at the same store."""
    report = compare(search, random_deals(random.Random(47), 30, max_cards=6), random.Random(48), tt_limit)
    assert report.differences == [], report.differences[:3]
    assert report.positions > 500
    assert 0 < report.solved < report.positions


@pytest.mark.parametrize("switch", ["GDAN_NATIVE_CORE=0", "GDAN_PURE_PYTHON=1"])
def test_the_python_search_runs_without_the_core(search: ModuleType, switch: str) -> None:
    """Either switch leaves the search to the Python reference (``SEARCH_ENGINE`` None)."""
    name, _, value = switch.partition("=")
    env = {k: v for k, v in os.environ.items() if k not in ("GDAN_NATIVE_CORE", "GDAN_PURE_PYTHON")}
    env[name] = value
    probe = "import replay.solver as s; print(s.SEARCH_ENGINE is None)"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["True"]


def test_the_search_in_c_runs_with_the_core(search: ModuleType) -> None:
    """Where this process runs the engine with its Cython core, solvers search in C by default."""
    if native.core() is None:
        pytest.skip("this process runs the engine without its Cython core")
    assert solver_module.SEARCH_ENGINE is search
    assert Solver("2", BUILTIN["national"])._engine is search
