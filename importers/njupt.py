"""Convert NJUPT Guandan AI platform recordings to event format v1 (events.md).

Two inputs:

- a **game**: the four clients' recordings of one platform game (``client-0.jsonl`` …
  ``client-3.jsonl``). Their public messages must agree; the four ``beginning`` hands give the
  full deal, so the match can replay ``valid``.
- a **single client**'s recording: the public course of play is complete but only that
  client's hand is known, so the other hands are omitted and the match replays ``partial``.

The matches use the ``njupt`` ruleset (the platform's variant, rules.md §10) and the
``until_a`` format. A recording holding several platform games (``gameOver`` then a new
``beginning``) becomes several matches. Platform seats 0–3 are E, N, W, S (see ``common``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from importers.common import SEATS, EventWriter, seats_payload, team_of
from importers.errors import ConversionError
from importers.njupt_parse import ClientStream, ParsedDeal, ParsedMatch, Step, read_client

RULESET = "njupt"
GAME_FILES = tuple(f"client-{k}.jsonl" for k in range(4))
"""File names of a game folder, one per seat."""


def convert_njupt_game(
    paths: Sequence[Path], match_id: str | None = None, players: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Events of one platform game recorded by all four clients (full information).

    ``paths`` are the four clients' recordings in any order (their ``myPos`` decides the seat).
    Raises :class:`ConversionError` when a seat is missing or twice, or when the clients'
    public messages disagree (the first difference is reported in the later file).
    """
    if len(paths) != 4:
        raise ConversionError(
            Path(paths[0]).parent if paths else Path("."), None, None, "four client recordings", len(paths)
        )
    streams = sorted((read_client(Path(p)) for p in paths), key=lambda s: s.my_pos)
    seats = [s.my_pos for s in streams]
    if seats != [0, 1, 2, 3]:
        raise ConversionError(streams[-1].path, None, "myPos", "one recording per seat 0-3", seats)
    for other in streams[1:]:
        _check_agree(streams[0], other)
    for m_index, match in enumerate(streams[0].matches):
        for d_index, deal in enumerate(match.deals):
            for other in streams[1:]:
                deal.hands.update(other.matches[m_index].deals[d_index].hands)
    base = match_id or _default_id(paths, Path(paths[0]).parent.name)
    return _events(streams[0], base, players)


def convert_njupt_client(
    path: Path, match_id: str | None = None, players: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Events from one client's recording: other seats' hands unknown (replays ``partial``)."""
    stream = read_client(Path(path))
    base = match_id or _default_id([path], f"{Path(path).parent.name}-{_stem(path)}")
    return _events(stream, base, players)


def _stem(path: Path) -> str:
    name = Path(path).name
    for suffix in (".njupt.jsonl", ".jsonl", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _default_id(paths: Sequence[Path], label: str) -> str:
    """A deterministic match id: the source's name plus a digest of the recorded bytes."""
    digest = hashlib.sha1(usedforsecurity=False)
    for path in sorted(Path(p) for p in paths):
        digest.update(path.read_bytes())
    return f"njupt-{label}-{digest.hexdigest()[:10]}"


def _check_agree(first: ClientStream, other: ClientStream) -> None:
    """Raise where ``other``'s public messages first differ from ``first``'s."""
    if len(first.matches) != len(other.matches):
        raise ConversionError(
            other.path,
            None,
            None,
            f"{len(first.matches)} game(s) as in {first.path.name}",
            len(other.matches),
        )
    for match_a, match_b in zip(first.matches, other.matches, strict=True):
        if len(match_a.deals) != len(match_b.deals):
            where = match_b.deals[-1].line if match_b.deals else None
            raise ConversionError(
                other.path,
                where,
                None,
                f"{len(match_a.deals)} deals as in {first.path.name}",
                len(match_b.deals),
            )
        for deal_a, deal_b in zip(match_a.deals, match_b.deals, strict=True):
            _check_deal_agrees(first.path, deal_a, other.path, deal_b)


def _check_deal_agrees(path_a: Path, deal_a: ParsedDeal, path_b: Path, deal_b: ParsedDeal) -> None:
    if deal_a.level != deal_b.level:
        raise ConversionError(
            path_b,
            deal_b.line,
            "curRank",
            f"{deal_a.level!r} as in {path_a.name}:{deal_a.line}",
            deal_b.level,
        )
    for index in range(max(len(deal_a.steps), len(deal_b.steps))):
        step_a = deal_a.steps[index] if index < len(deal_a.steps) else None
        step_b = deal_b.steps[index] if index < len(deal_b.steps) else None
        if step_a != step_b:
            line = step_b.line if step_b else deal_b.order_line or deal_b.line
            want = (
                f"the message of {path_a.name}:{step_a.line}" if step_a else f"no more moves ({path_a.name})"
            )
            raise ConversionError(path_b, line, None, want + " (the clients' recordings disagree)", step_b)
    if deal_a.order != deal_b.order:
        raise ConversionError(
            path_b,
            deal_b.order_line or deal_b.line,
            "order",
            f"{deal_a.order} as in {path_a.name}",
            deal_b.order,
        )


def _events(stream: ClientStream, base_id: str, players: Sequence[str] | None) -> list[dict[str, Any]]:
    """All events of every game in ``stream`` (one match per game)."""
    events: list[dict[str, Any]] = []
    for index, match in enumerate(stream.matches):
        match_id = base_id if len(stream.matches) == 1 else f"{base_id}-g{index + 1}"
        ids = players or [f"{match_id}/{k}" for k in range(4)]
        events.extend(_match_events(stream, match, match_id, ids))
    return events


def _match_events(
    stream: ClientStream, match: ParsedMatch, match_id: str, players: Sequence[str]
) -> list[dict[str, Any]]:
    writer = EventWriter(match_id)
    writer.emit(
        "match_start",
        rules=RULESET,
        format={"kind": "until_a"},
        seats=seats_payload(players),
        source={"format": "njupt", "clients": sorted(match.deals[0].hands) if match.deals else []},
    )
    previous_first: int | None = None
    for number, deal in enumerate(match.deals, start=1):
        following = match.deals[number] if number < len(match.deals) else None
        _deal_events(writer, stream, number, deal, previous_first, following)
        previous_first = deal.order[0] if deal.order else None
    last = match.deals[-1] if match.deals else None
    if match.finished and last is not None and last.order is not None:
        writer.emit("match_end", reason="passed_a", winner=team_of(last.order[0]))
    return writer.events


def _deal_events(
    writer: EventWriter,
    stream: ClientStream,
    number: int,
    deal: ParsedDeal,
    previous_first: int | None,
    following: ParsedDeal | None,
) -> None:
    """deal_start, the deal's steps and (when recorded) deal_end of one deal (events.md)."""
    first_move = next((s for s in deal.steps if s.kind in ("play", "pass")), None)
    start: dict[str, Any] = {
        "deal": number,
        "level": deal.level,
        "declarers": None if previous_first is None else team_of(previous_first),
        "hands": {SEATS[seat]: cards for seat, cards in sorted(deal.hands.items())},
    }
    if first_move is not None:
        start["leader"] = SEATS[first_move.seat]
    elif deal.order is not None:
        raise ConversionError(stream.path, deal.order_line, None, "at least one play before 'episodeOver'")
    writer.emit("deal_start", **start)
    for step in deal.steps:
        writer.emit(step.kind, **_step_payload(step))
    if deal.order is None:
        return
    end: dict[str, Any] = {"order": [SEATS[s] for s in _finishing_order(deal.order)]}
    if following is not None:
        mine, other = team_of(stream.my_pos), team_of(stream.my_pos + 1)
        end["levels"] = {mine: following.self_level, other: following.oppo_level}
    writer.emit("deal_end", **end)


def _finishing_order(order: list[int]) -> list[int]:
    """The platform's order; after a double win only the two winners (events.md ``deal_end``).

    The platform also ranks the two seats still holding cards after a double win, but nobody
    finished there, so that part is not a result of the play.
    """
    if team_of(order[0]) == team_of(order[1]):
        return order[:2]
    return order


def _step_payload(step: Step) -> dict[str, Any]:
    if step.kind in ("tribute", "return"):
        return {"from": SEATS[step.seat], "to": SEATS[step.to], "card": step.cards[0]}
    if step.kind == "anti_tribute":
        return {"seats": [SEATS[s] for s in step.seats]}
    if step.kind == "pass":
        return {"seat": SEATS[step.seat]}
    payload: dict[str, Any] = {"seat": SEATS[step.seat], "cards": list(step.cards)}
    if step.combo is not None:
        payload["combo"] = {"type": step.combo[0], "rank": step.combo[1]}
    return payload
