"""Build hook: compile the replay engine's hot modules (``replay.native.COMPILED``) with mypyc.

Everything else about the package is in ``pyproject.toml``. Without a C compiler, when compiling
fails, or with ``GDAN_PURE_PYTHON=1``, the package installs as pure Python (same behaviour,
slower replay): the extensions are optional.
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
    for ext in built:
        ext.optional = True
    return built


setup(ext_modules=extensions())
