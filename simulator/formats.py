"""Parse round-format strings of the CLI/API (rules.md §7) into `RoundFormat`."""

from __future__ import annotations

from replay.rulesets import RoundFormat

FORMAT_HELP = "until_a | deals:N | timed:MINUTES | timed_deals:MINUTES:N"


def parse_format(text: str) -> RoundFormat:
    """``until_a``, ``deals:11``, ``timed:60`` or ``timed_deals:60:11``; ``ValueError`` otherwise."""
    parts = text.strip().split(":")
    kind, args = parts[0], parts[1:]
    try:
        numbers = [int(a) for a in args]
    except ValueError:
        raise ValueError(f"bad round format {text!r}: numbers expected after ':' ({FORMAT_HELP})") from None
    if any(n <= 0 for n in numbers):
        raise ValueError(f"bad round format {text!r}: numbers must be positive ({FORMAT_HELP})")
    if kind == "until_a" and not numbers:
        return RoundFormat("until_a")
    if kind == "deals" and len(numbers) == 1:
        return RoundFormat("deals", deals=numbers[0])
    if kind == "timed" and len(numbers) == 1:
        return RoundFormat("timed", minutes=numbers[0])
    if kind == "timed_deals" and len(numbers) == 2:
        return RoundFormat("timed_deals", deals=numbers[1], minutes=numbers[0])
    raise ValueError(f"bad round format {text!r}: expected {FORMAT_HELP}")
