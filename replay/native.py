"""Which replay modules run compiled, and the switch back to their Python sources.

The hot modules of the rules engine and replayer (:data:`COMPILED`) are compiled with mypyc when
the package is installed (``setup.py``): replay runs about 1.5x faster (docs/performance.md). The
Python sources stay the reference, and they run instead when

- ``GDAN_PURE_PYTHON=1`` is set (debugging: tracebacks with line numbers, breakpoints), or
- the build is out of date (:func:`stale_modules`: a source edited since, a module missing from the
  build or left over from an older one): compiled modules would silently run other code than the
  sources, so the sources run and a warning says how to rebuild.

It is all or nothing: compiled modules call each other directly, so a mix would hold two copies of
a class. This module imports only the standard library (``setup.py`` reads it on its own).
"""

from __future__ import annotations

import os
import sys
import warnings
from importlib.abc import MetaPathFinder
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec
from importlib.util import spec_from_file_location
from pathlib import Path
from types import ModuleType

COMPILED: tuple[str, ...] = (
    "cards",
    "combos",
    "moves",
    "events",
    "state",
    "tribute",
    "seats",
    "errors",
    "faults",
    "features",
    "rows",
    "reading",
    "penalties",
    "output",
    "summary",
    "outcome",
    "dealing",
    "play",
    "finish",
    "replayer",
    "lines",
    "solver",
    "review",
    "match_value",
    "batch",
)
"""Modules of ``replay`` compiled by mypyc: those a replay runs through, event by event,
``lines``, the ingest's work on every input line, the endgame solver, decision review and its
match-value model that ``gdan run`` applies to every fully known deal, and ``batch``, the loop
over a batch's input rows and matches."""

NATIVE_GROUP = "replay._native"
"""The mypyc group: one shared library, ``_native__mypyc``, holds the code of every compiled module."""

PURE_PYTHON_ENV = "GDAN_PURE_PYTHON"
"""Set to ``1`` to run the Python sources even where compiled modules are installed."""

PACKAGE_DIR = Path(__file__).resolve().parent


def compiled_file(module: str, directory: Path = PACKAGE_DIR) -> Path | None:
    """The compiled extension of ``module`` in ``directory``, if there is one."""
    return next(
        (p for p in (directory / f"{module}{suffix}" for suffix in EXTENSION_SUFFIXES) if p.exists()), None
    )


def stale_modules(directory: Path = PACKAGE_DIR) -> list[str]:
    """Modules of :data:`COMPILED` whose source changed after they were compiled, or that lack a
    compiled module while others have one (a partial build), then any other module compiled by an
    older build; all of :data:`COMPILED` when the shared library is missing. Empty when nothing is
    compiled."""
    built = {m: compiled_file(m, directory) for m in COMPILED}
    leftovers = [m for m in _shadowed_sources(directory) if m not in COMPILED]
    if not any(built.values()):
        return leftovers
    if compiled_file(NATIVE_GROUP.rpartition(".")[2] + "__mypyc", directory) is None:
        return [*COMPILED, *leftovers]
    changed = [
        m
        for m, ext in built.items()
        if ext is None or (directory / f"{m}.py").stat().st_mtime > ext.stat().st_mtime
    ]
    return [*changed, *leftovers]


def _shadowed_sources(directory: Path) -> list[str]:
    """Modules of ``directory`` that have both a ``.py`` source and a compiled extension."""
    compiled = {p.name.partition(".")[0] for s in EXTENSION_SUFFIXES for p in directory.glob(f"*{s}")}
    return sorted(compiled & {p.stem for p in directory.glob("*.py")})


class _SourceFinder(MetaPathFinder):
    """Finds the modules of ``replay`` that have a ``.py`` source as that source, never compiled."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        package, _, name = fullname.partition(".")
        source = PACKAGE_DIR / f"{name}.py"
        if package != "replay" or "." in name or not source.exists():
            return None
        return spec_from_file_location(fullname, source)


def select() -> None:
    """Run the sources instead of the compiled modules when asked to or when those are stale;
    ``replay/__init__.py`` calls this before it imports any of them."""
    if any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        return
    if os.environ.get(PURE_PYTHON_ENV) == "1":
        sys.meta_path.insert(0, _SourceFinder())
        return
    stale = stale_modules()
    if stale:
        warnings.warn(
            f"replay: the compiled engine is out of date with {', '.join(f'{m}.py' for m in stale)}; "
            "running the Python sources (slower). Rebuild with `make` or `pip install -e .`.",
            RuntimeWarning,
            stacklevel=2,
        )
        sys.meta_path.insert(0, _SourceFinder())


def is_compiled() -> bool:
    """Whether the replayer in use is the compiled one."""
    module = sys.modules.get("replay.replayer")
    return module is not None and isinstance(getattr(module.__spec__, "loader", None), ExtensionFileLoader)
