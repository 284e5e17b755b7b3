"""Build hook: compile the replay engine's hot modules (``replay.native.COMPILED``) with mypyc and
its Cython core (``replay.native.CYTHON``: ``replay/_core.pyx``).

Everything else about the package is in ``pyproject.toml``. Without a C compiler, when compiling
fails, or with ``GDAN_PURE_PYTHON=1``, the package installs as pure Python (same behaviour,
slower replay): the extensions are optional, and so is the core beside the mypyc build.
The core alone rebuilds in a few seconds with ``cythonize -i -3 replay/_core.pyx``.
"""

from __future__ import annotations

import os
import runpy
import shutil
import sysconfig

from setuptools import Extension, setup

native = runpy.run_path("replay/native.py")


def compiler_available() -> bool:
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None


def extensions() -> list[Extension]:
    if os.environ.get(native["PURE_PYTHON_ENV"]) == "1":
        return []
    if not compiler_available():
        print("guandan-lens: no C compiler found, installing replay as pure Python (slower)")
        return []
    from mypyc.build import mypycify

    files = [f"replay/{m}.py" for m in native["COMPILED"]]
    built = mypycify(["--ignore-missing-imports", *files], separate=[(files, native["NATIVE_GROUP"])])
    built += cython_extensions()
    for ext in built:
        ext.optional = True
    return built


def cython_extensions() -> list[Extension]:
    """The Cython core's extensions, or none (the engine runs without it) when Cython is missing
    or rejects the source."""
    try:
        from Cython.Build import cythonize
        from Cython.Compiler.Errors import CompileError
    except ImportError:
        print("guandan-lens: Cython not installed, building the replay engine without its Cython core")
        return []
    sources = [Extension(f"replay.{m}", [f"replay/{m}.pyx"]) for m in native["CYTHON"]]
    try:
        return list(cythonize(sources, language_level=3, quiet=True))
    except CompileError as exc:
        print(f"guandan-lens: the Cython core does not compile ({exc}); building without it")
        return []


setup(ext_modules=extensions())
