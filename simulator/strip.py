"""A played match reduced to its score sheet (events.md "Results-only deals").

What a paper score sheet of the same match would record: the tests use it to check that
results-only logs replay and score exactly like the full ones.
"""

from __future__ import annotations

from typing import Any

_PARTNERS = ({"E", "W"}, {"N", "S"})


def strip_to_results(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The results-only log of a played match (events.md "Results-only deals"): no hands, no
    `play`/`pass`, no `leader` on deal 1, each `deal_end.order` cut to what decides the result
    (2 seats after a double win, else 3); everything else kept and renumbered."""
    out: list[dict[str, Any]] = []
    for ev in sorted(events, key=lambda e: e["seq"]):
        if ev["type"] in ("play", "pass", "report"):
            continue
        ev = dict(ev)
        if ev["type"] == "deal_start":
            ev.pop("hands", None)
            ev.pop("leader", None)
        elif ev["type"] == "deal_end":
            order = ev["order"]
            partners = len(order) >= 2 and {order[0], order[1]} in _PARTNERS
            ev["order"] = order[: 2 if partners else 3]
        ev["seq"] = len(out)
        out.append(ev)
    return out
