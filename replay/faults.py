"""How a replay stops at the first offending event: a :class:`Fault` carries its ``ReplayError``."""

from __future__ import annotations

from replay.errors import ErrorCode, ReplayError


class Fault(Exception):
    """Raised inside the replay to stop at the first offending event."""

    def __init__(self, error: ReplayError) -> None:
        super().__init__(error.message)
        self.error = error


def fault(seq: int | None, code: ErrorCode, message: str) -> Fault:
    """The fault of the event ``seq`` (None: of no single event)."""
    return Fault(ReplayError(seq, code, message))
