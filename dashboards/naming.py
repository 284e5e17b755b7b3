"""Names of the game's stored ids in the reader's language: combination types and readings
(rules.md §3), tribute kinds (§6), seats (§1), match end reasons (§7), rulesets, event stages
and what a standings row ranks.

The tables store ids (``single``, ``straight``, ``double``, ``passed_a``, ``bcta``); a page shows
these names instead, so a Chinese page never prints an English id. Combination names follow the
rule books (seed 000: 單張, 對子, 三同張, 三帶對, 順子, 三連對, 鋼板, 同花順, 四大天王; in simplified
characters). Sequences are named by the cards they span, as :func:`replay.naming.combo_name` does
(``顺子 A2345``). Pure functions over :mod:`dashboards.i18n`.
"""

from __future__ import annotations

from dashboards.i18n import LABELS, Lang, t
from replay.naming import combo_name


def _label(prefix: str, value: object, lang: Lang) -> str:
    """The label ``<prefix><value>`` in ``lang``; an id without a label stays as it is."""
    key = f"{prefix}{value}"
    return t(key, lang) if key in LABELS else str(value)


def combo_type_name(type_: object, lang: Lang) -> str:
    """A combination type (``plays.combo_type``) as a word: ``straight`` → "straight" / "顺子"."""
    return _label("combo_", type_, lang)


def reading_name(type_: str, rank: str | None, size: int | None, lang: Lang) -> str:
    """A reading as people say it: ``straight A2345``, ``bomb 7×5`` / ``顺子 A2345``, ``炸弹 7×5``.

    English is :func:`replay.naming.combo_name` (the CLI's wording); Chinese puts the same rank or
    span after the rule books' name of the type.
    """
    return combo_name(type_, rank, size, label=None if lang == "en" else combo_type_name(type_, lang))


def error_name(code: object, lang: Lang) -> str:
    """A validation error code (replay/errors.py) in words: ``does_not_beat`` → "does not beat the
    last play" / "压不过上一手"; a code without a label stays as it is."""
    return _label("err_", code, lang)


def tribute_kind_name(kind: object, lang: Lang) -> str:
    """A tribute kind (``deals.tribute_kind``, ``tributes.kind``): single, double, anti; none."""
    if kind is None or (isinstance(kind, float) and kind != kind):
        return t("kind_none", lang)
    return _label("kind_", kind, lang)


def seat_name(seat: object, lang: Lang) -> str:
    """A seat letter as 东/北/西/南 in Chinese (E, N, W, S in English)."""
    return _label("seat_", seat, lang)


def end_reason_name(reason: object, lang: Lang) -> str:
    """Why a match ended (``matches.end_reason``, replay/events.py ``END_REASONS``), or a bye."""
    return "" if reason is None or (isinstance(reason, float) and reason != reason) else _label(
        "end_", reason, lang
    )


def ruleset_name(rules: object, lang: Lang) -> str:
    """A ruleset id as its name in ``lang`` (an id without a label stays as it is)."""
    return _label("ruleset_", rules, lang)


def stage_name(stage: object, lang: Lang) -> str:
    """An event stage (``matches.stage``): the usual ids (swiss, knockout, round_robin) in words,
    any other name as the log wrote it; empty when missing."""
    if stage is None or (isinstance(stage, float) and stage != stage):
        return ""
    return _label("stage_", stage, lang)


def entry_name(entry: object, lang: Lang) -> str:
    """What a standings row ranks (``standings.entry``): a pair, or an individual player."""
    return _label("standing_", entry, lang)
