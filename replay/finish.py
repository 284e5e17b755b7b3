"""The end of a deal (rules.md §5.5–§5.7, §7, §8): the finishing order a ``deal_end`` logs, checked
against the play, a foul, ``rank_last`` rulings and the extra deal's first-out end; and the order a
results-only deal's ``deal_end`` stands in for its play with (docs/event-extensions.md).

Pure checks of the deal state: a fault raises :class:`replay.faults.Fault` with the event's seq.
"""

from __future__ import annotations

from replay.errors import ErrorCode
from replay.faults import Fault, fault
from replay.rulesets import Ruleset
from replay.state import DealState, ranked_last_orders
from replay.tribute import TributePhase
from schemas.vocabulary import OTHER_TEAM, SEATS, TEAM, TEAM_SEATS


def end_results_only(seq: int, ruleset: Ruleset, d: DealState, tp: TributePhase, logged: list[str]) -> None:
    """End a results-only deal at its ``deal_end`` (docs/event-extensions.md): the tribute phase
    must be complete (routing, rules.md §6), and ``order`` stands in for the play — 2 partners (a
    double win) or at least 3 seats (rules.md §5.7). The seats out are then taken from it, so
    :func:`finish_order` and the level rules run as for a played deal.

    A score sheet may leave out the tribute: with no tribute event at all the tribute is not
    checked and its kind is unknown (None); once one is logged, all must be."""
    if tp.payments or tp.anti_seats is not None or tp.due == "none":
        error = tp.check_complete(seq)
        if error is not None:
            raise Fault(error)
        d.tribute_kind = tp.kind
    else:
        d.tribute_kind = None
    if d.extra_deal and ruleset.extra_deal.first_out_ends:
        if len(logged) != 1:
            raise fault(
                seq,
                ErrorCode.WRONG_FINISH_ORDER,
                f"order {logged} of a results-only extra deal: it ends when the first player goes "
                "out, so the order is that one seat (rules.md §7)",
            )
        d.out = list(logged)
        d.over = True
        return
    double = len(logged) >= 2 and TEAM[logged[0]] == TEAM[logged[1]]
    if not double and len(logged) < 3:
        raise fault(
            seq,
            ErrorCode.WRONG_FINISH_ORDER,
            f"order {logged} of a results-only deal: 2 partners (a double win) or at least "
            "3 seats are needed to tell the result (rules.md §5.7)",
        )
    d.out = list(logged[: 2 if double else 3])
    d.over = True


def finish_order(seq: int, ruleset: Ruleset, d: DealState, logged: list[str]) -> list[str]:
    """Check ``deal_end.order`` against the play; return the order to record (rules.md §5.5–§5.7)."""
    if d.foul_team is not None:
        winners = set(TEAM_SEATS[OTHER_TEAM[d.foul_team]])
        if len(logged) < 2 or set(logged[:2]) != winners:
            raise fault(
                seq,
                ErrorCode.WRONG_FINISH_ORDER,
                f"order {logged}; after {d.foul_team}'s foul or red card the "
                f"deal is a double win for {OTHER_TEAM[d.foul_team]} (rules.md §8)",
            )
        return list(logged)
    out = d.out
    if d.extra_deal and ruleset.extra_deal.first_out_ends:
        if out[0] in d.ranked_last:
            raise fault(
                seq,
                ErrorCode.WRONG_FINISH_ORDER,
                f"order {logged}; the extra deal ends when the first player goes out, and the "
                f"rank_last ruling against {out[0]}, that player, leaves it without a 1st "
                "(rules.md §7, docs/event-extensions.md)",
            )
        if logged != out:
            raise fault(
                seq,
                ErrorCode.WRONG_FINISH_ORDER,
                f"order {logged}; the extra deal ends when the first player goes out: "
                f"the play gives {out} (rules.md §7)",
            )
        return list(out)
    if d.ranked_last:
        return _ranked_order(seq, out, d.ranked_last, logged)
    rest = [s for s in SEATS if s not in out]
    derived = out + rest if len(out) == 3 else list(out)
    need = len(out)
    ok = len(logged) >= need and logged[:need] == out
    if ok and len(out) == 3 and len(logged) == 4:
        ok = logged[3] == rest[0]
    if not ok:
        tail = " (then the other two in any order)" if len(out) == 2 else ""
        raise fault(seq, ErrorCode.WRONG_FINISH_ORDER, f"order {logged}; the play gives {derived}{tail}")
    return list(logged) if len(logged) == 4 else derived


def _ranked_order(seq: int, out: list[str], last: list[str], logged: list[str]) -> list[str]:
    """Check ``deal_end.order`` of a deal with ``rank_last`` rulings against the amended order
    (docs/event-extensions.md): the play's order with the seats ``last`` moved to the end, the
    others moving up. As for any order, 2 seats suffice when the amended order is a double win,
    else at least 3 (the 4th implied); two seats that never went out may come in either order.
    Returns the full amended order (4 seats) to record."""
    orders = ranked_last_orders(out, last)
    full = orders[0]
    need = 2 if TEAM[full[0]] == TEAM[full[1]] else 3
    for order in orders:
        if len(logged) >= need and logged == order[: len(logged)]:
            return order
    rulings = f"the rank_last ruling{'s' if len(last) > 1 else ''} against {', then '.join(last)}"
    either = ""
    if len(orders) == 2:
        a, b = (s for s, t in zip(full, orders[1], strict=True) if s != t)
        either = f", {a} and {b} (who did not go out) in either order"
    short = f"; at least {need} seats" if len(logged) < need else ""
    raise fault(
        seq,
        ErrorCode.WRONG_FINISH_ORDER,
        f"order {logged}; {rulings} places {'them' if len(last) > 1 else last[0]} last and the "
        f"seats behind move up: expected {full}{either}{short} (docs/event-extensions.md)",
    )
