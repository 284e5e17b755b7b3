"""The Cython core (``replay/_core.pyx``) gives the Python engine's readings and legal moves, in the
same order and as the same interned readings, and its answers to "can this hand beat that table?"
(rules.md §3–§5), over seeded random card sets and
positions: every level with its wilds, jokers, joker pairs in full houses allowed or not (§10),
every table type and bomb class, and input both refuse. ``benchmarks/check_native_core.py`` runs
the same comparison on 100,000 cases of each."""

from __future__ import annotations

import os
import random
import sys
from collections import Counter
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

import pytest

from replay import RANKS, Combo, native
from replay.combos import beat_key, bind_core, readings_of_codes
from replay.moves import Move, MovesCore, core_legal_moves, reference_legal_moves

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from check_native_core import (
    TABLES,
    compare_moves,
    compare_probes,
    compare_readings,
    move_cases,
    probe_cases,
    reading_cases,
)


@pytest.fixture(scope="module")
def core() -> ModuleType:
    module = native.built_core()
    if module is None:
        pytest.skip("no up-to-date Cython core built in this checkout")
    return module


def test_readings_are_the_python_engines(core: ModuleType) -> None:
    """§3: 20,000 random 1–10-card sets, every level: the same readings, weakest first (§4)."""
    report = compare_readings(core, reading_cases(random.Random(46), 20_000))
    assert report.differences is None, report.differences[:5]
    assert report.refused > 0, "some cases must hold a third copy of a card"


def test_legal_moves_are_the_python_engines(core: ModuleType) -> None:
    """§3–§5: 3,000 random positions (hands of 1–27 cards, leading or following every table type
    and bomb class, joker pairs allowed or not): the same moves in the same order."""
    report, total = compare_moves(core, move_cases(random.Random(47), 3_000))
    assert report.differences is None, report.differences[:5]
    assert total > 100_000


def test_can_beat_answers_are_the_python_engines(core: ModuleType) -> None:
    """§4: 3,000 "can this hand beat that table?" questions (hands as cards or as a ``Counter``,
    tables of every type, rank and bomb size): the core's probe says yes exactly where the Python
    engine finds a legal move that beats the table."""
    report = compare_probes(core, probe_cases(random.Random(48), 3_000))
    assert report.differences is None, report.differences[:5]


@pytest.mark.parametrize("level", RANKS)
def test_every_level_with_both_wilds_and_all_jokers(core: ModuleType, level: str) -> None:
    """§2 wilds at each level and §3 jokers: a hand holding both wilds and all four jokers, leading
    and following every table, with and without joker pairs in full houses (§10)."""
    wild = "H" + level
    rng = random.Random(level)
    rest = [suit + rank for suit in "SCD" for rank in RANKS]
    hand = [wild, wild, "SB", "SB", "HR", "HR", *rng.sample(rest, 14)]
    cases = [(hand, level, table, joker_pair) for table in TABLES for joker_pair in (True, False)]
    report, _ = compare_moves(core, cases)
    assert report.differences is None, report.differences[:5]


def test_refused_input_goes_back_to_the_python_engine(core: ModuleType) -> None:
    """The core hands input it does not take back (None), so the reference reports it."""
    readings_core = bind_core(core, None)
    moves_core: MovesCore = bind_core(core, Move)
    assert readings_core.readings(["S9", "S9", "S9"], "2") is None
    assert readings_core.readings(["S9", "X9"], "2") is None
    assert readings_core.readings(["S9"], "1") is None
    assert readings_core.readings(["S9"] * 11, "2") == list(readings_of_codes([7] * 11, "2")) == []
    assert core_legal_moves(moves_core, ["S9", "S9", "S9"], "2", None, True) is None
    assert core_legal_moves(moves_core, ["S9"], "Z", None, True) is None
    with pytest.raises(ValueError, match="more than two copies"):
        reference_legal_moves(["S9", "S9", "S9"], "2", None, True)
    assert moves_core.probe(Counter({"S9": 3}), 0, True) is None
    assert moves_core.probe(Counter({"X9": 1}), 0, True) is None
    probe = moves_core.probe(Counter({"X9": 0, "S9": 2, "H9": -1}), 0, True)
    assert probe is not None and probe.beats_key(beat_key(Combo("pair", "8", 2), "2"))
    assert not probe.beats_key(beat_key(Combo("pair", "T", 2), "2"))


def test_engine_calls_the_core_when_it_runs_with_it(core: ModuleType) -> None:
    """``legal_moves``, ``readings`` and ``BeatProbe`` run the core unless the sources run
    (GDAN_PURE_PYTHON=1 or a stale build) or GDAN_NATIVE_CORE=0; either way the answers are the
    reference's."""
    from replay import combos, legal_moves, moves, readings

    in_use = native.core() is not None
    assert (combos._CORE is not None) == (moves._CORE is not None) == in_use
    hand = ["HR", "HR", "SB", "SB", "S3", "H3", "C3", "D5", "D5"]
    assert legal_moves(hand, "5", Combo("full_house", "2", 5)) == reference_legal_moves(
        hand, "5", Combo("full_house", "2", 5), True
    )
    assert readings(["HR", "HR", "S3", "H3", "C3"], "5") == [Combo("full_house", "3", 5)]
    joker_pair_hand = ["HR", "HR", "S3", "H3", "C3", "D4"]
    probe = moves.BeatProbe(Counter(joker_pair_hand), "5")
    assert (probe._native is not None) == in_use
    assert probe.beats(Combo("full_house", "2", 5))
    no_joker_pair = moves.BeatProbe(joker_pair_hand, "5", full_house_joker_pair=False)
    assert not no_joker_pair.beats(Combo("full_house", "2", 5))


def test_an_edited_pyx_makes_the_build_stale(tmp_path: Path) -> None:
    """A Cython source edited after its build is stale like a mypyc module's (the sources run);
    a Cython module that is not built is not (the core is optional)."""
    suffix = EXTENSION_SUFFIXES[0]
    (tmp_path / "_core.pyx").write_text("")
    assert native.stale_modules(tmp_path) == []
    (tmp_path / f"_core{suffix}").write_text("")
    os.utime(tmp_path / "_core.pyx", (1_000, 1_000))
    os.utime(tmp_path / f"_core{suffix}", (2_000, 2_000))
    assert native.stale_modules(tmp_path) == []
    os.utime(tmp_path / "_core.pyx", (3_000, 3_000))
    assert native.stale_modules(tmp_path) == ["_core"]
