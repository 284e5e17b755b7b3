"""The coach's filters and sample sizes, shared by the Player, Tributes and Bombs pages.

:func:`filter_bar` draws the filters (date range, event, ruleset, partner, seat, level) and the
minimum sample, each bound to the address (``?from=…&to=…&event=…&min_n=…``) with the helpers of
:mod:`dashboards.ui`, and returns them as one ``SeatFilters`` (``dashboards.queries.seats``), the
``coach_*`` queries' argument.
:func:`rate_metric` and :func:`rate_text` show a rate with its numerator and denominator, greyed
with a note below the minimum sample: the PokerTracker convention that no rate is shown without
the count behind it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dashboards.naming import ruleset_name, seat_name
from dashboards.queries.seats import SeatFilters, coach_options, coach_partners
from dashboards.ui import from_url, lang, player_label, run, to_url, tr, url_choice
from schemas.vocabulary import SEATS

MIN_SAMPLE = 30
"""Default minimum sample: a rate over fewer cases is greyed (``?min_n=`` changes it)."""


def _date_filter(label_key: str, key: str, param: str, first: date | None, last: date | None) -> date | None:
    """An optional day (``None`` = open end) bound to ``?param=YYYY-MM-DD``."""
    from_url(key, param, parse=date.fromisoformat)
    picked = st.date_input(tr(label_key), value=None, min_value=first, max_value=last, key=key)
    day = picked if isinstance(picked, date) else None
    to_url(key, param, day.isoformat() if day is not None else None)
    return day


def min_sample(prefix: str, default: int = MIN_SAMPLE) -> int:
    """The minimum sample setting (``default`` unless ``?min_n=`` says otherwise), bound to ``?min_n=``."""
    key = f"{prefix}_min_n"
    from_url(key, "min_n", parse=int)
    st.session_state.setdefault(key, default)
    value = int(st.number_input(tr("min_sample"), min_value=1, step=1, key=key, help=tr("min_sample_help")))
    to_url(key, "min_n", value, default=default)
    return value


def filter_bar(
    prefix: str, player: str | None = None, roster: pd.DataFrame | None = None
) -> tuple[SeatFilters, int]:
    """The filters in an expander (open when one is set), as the ``coach_*`` queries' ``filters``,
    and the minimum sample.

    The partner filter is offered only for a ``player`` (its options are the player's partners,
    labelled "name (id)" from ``roster``, ``players``); seat and level are the
    player's seat and the deal's level (rules.md §1–§2).
    """
    options = run(coach_options).iloc[0]
    first = options["first_day"] if isinstance(options["first_day"], date) else None
    last = options["last_day"] if isinstance(options["last_day"], date) else None
    active = any(st.query_params.get(p) for p in ("from", "to", "event", "rules", "partner", "seat", "level"))
    label = player_label(roster) if roster is not None else str
    with st.expander(tr("filters"), expanded=active, icon=":material/filter_list:"):
        cols = st.columns(4)
        with cols[0]:
            start = _date_filter("date_from", f"{prefix}_from", "from", first, last)
            end = _date_filter("date_to", f"{prefix}_to", "to", first, last)
        with cols[1]:
            event = _pick("event", _listed(options["events"]), f"{prefix}_event", "event")
            rules = _pick(
                "ruleset",
                _listed(options["rules"]),
                f"{prefix}_rules",
                "rules",
                lambda r: ruleset_name(r, lang()),
            )
        with cols[2]:
            partner = None
            if player is not None:
                partners = run(coach_partners, player=player)["partner"].tolist()
                partner = url_choice(
                    st.selectbox,
                    tr("partner"),
                    [None, *partners],
                    key=f"{prefix}_partner",
                    param="partner",
                    format_func=lambda p: tr("all") if p is None else label(p),
                )
            seat = _pick("seat", list(SEATS), f"{prefix}_seat", "seat", lambda x: seat_name(x, lang()))
        with cols[3]:
            level = _pick("level", _listed(options["levels"]), f"{prefix}_level", "level")
            minimum = min_sample(prefix)
    filters = SeatFilters(
        start=start, end=end, event=event, rules=rules, partner=partner, seat=seat, level=level
    )
    return filters, minimum


def _listed(value: Any) -> list[str]:
    """A list cell of ``coach_options`` (an array, or null when the store has none: None, NaN or
    ``pd.NA``, as with matches logged without an event) as a list."""
    return [str(v) for v in value] if isinstance(value, Iterable) and not isinstance(value, str) else []


def _pick(
    label_key: str, options: list[str], key: str, param: str, name: Callable[[str], str] = str
) -> str | None:
    """A select box with "All" first, each option shown as ``name(option)``, bound to ``?param=``."""
    picked: str | None = url_choice(
        st.selectbox,
        tr(label_key),
        [None, *options],
        key=key,
        param=param,
        format_func=lambda v: tr("all") if v is None else name(v),
    )
    return picked


def count_text(value: float) -> str:
    """A count as text: ``12`` or, for a score with half points (a draw counts ½), ``1.5``."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.1f}"


def rate_text(num: float, den: float) -> str:
    """A rate with what it is made of: ``"38% (12/32)"``; a dash over no cases."""
    if not den:
        return f"— (0/{int(den)})"
    return f"{num / den:.0%} ({count_text(num)}/{int(den):,})"


def low(den: float, minimum: int) -> bool:
    """Whether a sample of ``den`` cases is below the minimum sample."""
    return den < minimum


def rate_metric(
    where: DeltaGenerator, label: str, num: float, den: float, minimum: int, *, percent: bool = True
) -> None:
    """``num / den`` as a metric (a percentage, or a mean per case with ``percent=False``) with
    numerator/denominator under it; below ``minimum`` cases its label is grey, "⚠" follows the
    counts and a note says why."""
    value = "—" if not den else f"{num / den:.0%}" if percent else f"{num / den:.2f}"
    detail = f"{count_text(num)}/{int(den):,}"
    if low(den, minimum):
        where.metric(f":gray[{label}]", value, f"{detail} ⚠", delta_color="off", delta_arrow="off")
        where.caption(f"⚠ {tr('below_min_sample').format(n=minimum)}")
        return
    where.metric(label, value, detail, delta_color="off", delta_arrow="off")
