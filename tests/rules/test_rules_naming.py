"""Sequences are named by the cards they span (``straight A2345``), not by the stored rank of
their lowest card (``A`` = A-low), which reads as the highest straight; ``gdan rules`` uses it."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gdan import app
from replay import readings
from replay.naming import combo_name, sequence_span

runner = CliRunner()


@pytest.mark.parametrize(
    ("type_", "rank", "span"),
    [
        ("straight", "A", "A2345"),
        ("straight", "2", "23456"),
        ("straight", "T", "TJQKA"),
        ("straight_flush", "A", "A2345"),
        ("tube", "A", "AA2233"),
        ("tube", "Q", "QQKKAA"),
        ("plate", "A", "AAA222"),
        ("plate", "K", "KKKAAA"),
    ],
)
def test_sequence_span(type_: str, rank: str, span: str) -> None:
    assert sequence_span(type_, rank) == span


@pytest.mark.parametrize(("type_", "rank"), [("straight", "J"), ("plate", "B"), ("pair", "9")])
def test_impossible_sequences_are_errors(type_: str, rank: str) -> None:
    with pytest.raises(ValueError):
        sequence_span(type_, rank)


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (("straight", "A", 5), "straight A2345"),
        (("plate", "A", 6), "plate AAA222"),
        (("straight_flush", "9", 5), "straight flush 9TJQK"),
        (("pair", "9", 2), "pair 9"),
        (("bomb", "7", 5), "bomb 7×5"),
        (("joker_bomb", "JOKER", 4), "joker bomb"),
        (("single", None, None), "single"),
    ],
)
def test_combo_name(args: tuple[str, str | None, int | None], name: str) -> None:
    assert combo_name(*args) == name


def test_every_reading_of_an_a_low_straight_names_its_span() -> None:
    (straight,) = readings(["SA", "H2", "C3", "D4", "S5"], "7")
    assert (straight.rank, combo_name(straight.type, straight.rank, straight.size)) == ("A", "straight A2345")


@pytest.mark.parametrize(
    ("play", "table", "line"),
    [
        ("S2 H3 C4 D5 S6", "SA H2 C3 D4 S5", "straight 23456 beats straight A2345"),
        ("S4 H4 C4 D5 S5 H5", "SA HA CA D2 S2 H2", "plate 444555 beats plate AAA222"),
        ("S2 H2 C3 D3 S4 H4", "SA HA C2 D2 S3 H3", "tube 223344 beats tube AA2233"),
    ],
)
def test_rules_beats_names_sequences_by_their_span(play: str, table: str, line: str) -> None:
    result = runner.invoke(app, ["rules", "beats", "--level", "9", play, table])
    assert result.exit_code == 0, result.output
    assert line in result.output


def test_rules_readings_table_names_the_span_and_keeps_the_stored_rank() -> None:
    result = runner.invoke(
        app, ["rules", "readings", "--level", "9", "SA", "H2", "C3", "D4", "S5"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if "A2345" in line)
    assert row.split()[:4] == ["straight", "A2345", "straight", "A"]
