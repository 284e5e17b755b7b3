"""How `gdan` tells a full disk from other failures, so it can say so in one line."""

from __future__ import annotations

import errno

DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
"""No space left on the device, or the user's disk quota exceeded."""
DISK_FULL_TEXTS = ("no space left on device", "disk quota exceeded", "os error 28", "os error 122")
"""How the libraries that write the store (delta-rs, DuckDB, Arrow) word those errors: they raise
their own exception types, with the operating system's message in the text."""


def disk_full(exc: BaseException) -> bool:
    """Whether ``exc``, or an exception it was raised from or during, says the disk is full."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in DISK_FULL_ERRNOS:
            return True
        if any(text in str(current).lower() for text in DISK_FULL_TEXTS):
            return True
        current = current.__cause__ or current.__context__
    return False


def one_line(exc: BaseException) -> str:
    """``exc``'s message on one line (the libraries' messages span several)."""
    return " ".join(str(exc).split()) or type(exc).__name__
