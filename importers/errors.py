"""The one exception importers raise for damaged foreign input.

A ``ConversionError`` names where the fault is (file, line, field) and what was expected, so
that a user can find and fix the offending message; importers never leak a bare ``KeyError``.
"""

from __future__ import annotations

from pathlib import Path


class ConversionError(ValueError):
    """Damaged or unsupported foreign log input, located precisely.

    ``line`` is 1-based (a line of a JSON Lines file, or the entry index of a JSON array, see
    the importer's docs); ``field`` is a dotted path inside that line's message.
    """

    def __init__(
        self,
        path: Path | str,
        line: int | None,
        field: str | None,
        expected: str,
        got: object = None,
    ) -> None:
        self.path = Path(path)
        self.line = line
        self.field = field
        self.expected = expected
        self.got = got
        where = str(self.path) if line is None else f"{self.path}:{line}"
        what = f"{field}: " if field else ""
        shown = "" if got is None else f", got {_short(got)}"
        super().__init__(f"{where}: {what}expected {expected}{shown}")


def _short(value: object, limit: int = 80) -> str:
    """A repr of ``value`` cut to ``limit`` characters (messages stay one readable line)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
