"""Overriding frozen dataclasses of parameters from a mapping (a TOML/JSON file, an event's config).

Shared by rulesets (rules.md §10) and scoring parameters (scoring.md): a typo in a key must be an
error naming the expected keys, never silently ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, is_dataclass, replace
from typing import Any, TypeVar

T = TypeVar("T")


def override(base: T, changes: Mapping[str, Any], what: str) -> T:
    """``base`` with ``changes`` applied; a mapping given for a field that is itself a dataclass
    overrides that dataclass's own fields. Lists become tuples (the dataclasses are frozen).

    ``what`` names the top level in error messages (``unknown {what} keys: …``); a nested level is
    named by its field (``unknown keys in {field}: …``).
    """
    known = sorted(f.name for f in fields(base))  # type: ignore[arg-type]
    unknown = set(changes) - set(known)
    if unknown:
        prefix = f"unknown {what} keys" if what else "unknown keys"
        raise ValueError(f"{prefix}: {sorted(unknown)}; expected some of {known}")
    updates: dict[str, Any] = {}
    for key, value in changes.items():
        current = getattr(base, key)
        if is_dataclass(current) and isinstance(value, Mapping):
            try:
                updates[key] = override(current, value, "")
            except ValueError as exc:
                raise ValueError(str(exc).replace("unknown keys", f"unknown keys in {key}", 1)) from None
        else:
            updates[key] = tuple(value) if isinstance(value, list) else value
    return replace(base, **updates)  # type: ignore[type-var]
