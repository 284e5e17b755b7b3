"""Which replay modules run compiled, and the switch back to their Python sources.

The hot modules of the rules engine and replayer (:data:`COMPILED`) are compiled with mypyc when
the package is installed (``setup.py``): replay runs about 1.5x faster (docs/performance.md). The
Python sources stay the reference, and they run instead when

- ``GDAN_PURE_PYTHON=1`` is set (debugging: tracebacks with line numbers, breakpoints), or
- the build is out of date (:func:`stale_modules`: a source edited since, a module missing from the
  build or left over from an older one): compiled modules would silently run other code than the
  sources, so the sources run and a warning says how to rebuild.

It is all or nothing: compiled modules call each other directly, so a mix would hold two copies of
a class. The engine's hot core written in Cython (:data:`CYTHON`: readings and legal moves in C,
``replay/_core.pyx``; the replay's per-event work and ``plays`` rows, ``replay/_replay.pyx``; the
endgame solver's search, ``replay/_search.pyx``) follows the same rule: a ``.pyx`` edited since its build
makes the build stale. The Cython modules are optional beside it: where they are not built, or
with ``GDAN_NATIVE_CORE=0``, the engine runs without them (:func:`core`). This module imports only
the standard library (``setup.py`` reads it on its own).
"""

from __future__ import annotations

import importlib
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

CYTHON: tuple[str, ...] = ("_core", "_replay", "_search")
"""Modules of ``replay`` written in Cython (``<name>.pyx``), each an extension of its own: the core
that ``combos`` and ``moves`` call for readings and legal moves when it is built, the replay's
per-event checks, event times and ``plays`` rows in typed buffers (``replayer``, ``play``,
``rows``), and the endgame solver's search (``solver``)."""

PURE_PYTHON_ENV = "GDAN_PURE_PYTHON"
"""Set to ``1`` to run the Python sources even where compiled modules are installed."""

NATIVE_CORE_ENV = "GDAN_NATIVE_CORE"
"""Set to ``0`` to run the engine without the Cython core (the mypyc build alone, for comparisons)."""

PACKAGE_DIR = Path(__file__).resolve().parent


def compiled_file(module: str, directory: Path = PACKAGE_DIR) -> Path | None:
    """The compiled extension of ``module`` in ``directory``, if there is one."""
    return next(
        (p for p in (directory / f"{module}{suffix}" for suffix in EXTENSION_SUFFIXES) if p.exists()), None
    )


def stale_modules(directory: Path = PACKAGE_DIR) -> list[str]:
    """Modules of :data:`COMPILED` whose source changed after they were compiled (after both their
    module and the shared library were written), or that lack a
    compiled module while others have one (a partial build), then the built modules of
    :data:`CYTHON` whose ``.pyx`` changed after they were compiled, then any other module compiled
    by an older build; all of :data:`COMPILED` when the shared library is missing. Empty when
    nothing is compiled. (A Cython module that is not built is not stale: it is optional.)"""
    built = {m: compiled_file(m, directory) for m in COMPILED}
    cython = [m for m in CYTHON if _pyx_changed(m, directory)]
    leftovers = [m for m in _shadowed_sources(directory) if m not in COMPILED]
    if not any(built.values()):
        return [*cython, *leftovers]
    group = compiled_file(NATIVE_GROUP.rpartition(".")[2] + "__mypyc", directory)
    if group is None:
        return [*COMPILED, *cython, *leftovers]
    # The code lives in the shared library; an incremental build rewrites it and leaves the small
    # per-module shims as they were, so a source is stale only when newer than both.
    group_built = group.stat().st_mtime
    changed = [
        m
        for m, ext in built.items()
        if ext is None or (directory / f"{m}.py").stat().st_mtime > max(ext.stat().st_mtime, group_built)
    ]
    return [*changed, *cython, *leftovers]


def _pyx_changed(module: str, directory: Path) -> bool:
    """Whether ``module``'s Cython source changed after its extension was built (False unbuilt)."""
    ext = compiled_file(module, directory)
    return ext is not None and (directory / f"{module}.pyx").stat().st_mtime > ext.stat().st_mtime


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
        sources = ", ".join(f"{m}.pyx" if m in CYTHON else f"{m}.py" for m in stale)
        warnings.warn(
            f"replay: the compiled engine is out of date with {sources}; "
            "running the Python sources (slower). Rebuild with `make` or `pip install -e .`.",
            RuntimeWarning,
            stacklevel=2,
        )
        sys.meta_path.insert(0, _SourceFinder())


def is_compiled() -> bool:
    """Whether the replayer in use is the compiled one."""
    module = sys.modules.get("replay.replayer")
    return module is not None and isinstance(getattr(module.__spec__, "loader", None), ExtensionFileLoader)


def core(name: str = CYTHON[0]) -> ModuleType | None:
    """The Cython module ``name`` of :data:`CYTHON` the engine calls (by default the core,
    ``replay._core``), or None where the engine runs without it: the Python sources run
    (``GDAN_PURE_PYTHON=1``, a stale build), ``GDAN_NATIVE_CORE=0`` is set, or it is not built.
    Called by the engine's modules as they are imported, after :func:`select`."""
    if os.environ.get(NATIVE_CORE_ENV) == "0" or any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        return None
    return built_core(name)


def built_core(name: str = CYTHON[0]) -> ModuleType | None:
    """The built Cython module ``name`` when it is up to date with its ``.pyx``, whatever the
    switches say: the differential tests compare it with the Python sources in a process that
    runs those."""
    if compiled_file(name) is None or _pyx_changed(name, PACKAGE_DIR):
        return None
    return importlib.import_module(f"replay.{name}")
