"""Build hook: compile the replay engine's hot modules (``replay.native.COMPILED``) with mypyc.

Everything else about the package is in ``pyproject.toml``. Without a C compiler, or with
``GDAN_PURE_PYTHON=1``, the package installs as pure Python (same behaviour, slower replay).
"""

from __future__ import annotations

import os
import runpy
import shutil
import sysconfig

from setuptools import setup

native = runpy.run_path("replay/native.py")


def compiler_available() -> bool:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None


def extensions() -> list:
    if os.environ.get(native["PURE_PYTHON_ENV"]) == "1":
        return []
    if not compiler_available():
        print("guandan-lens: no C compiler found, installing replay as pure Python (slower)")
        return []
    from mypyc.build import mypycify

    files = [f"replay/{m}.py" for m in native["COMPILED"]]
    return mypycify(["--ignore-missing-imports", *files], separate=[(files, "replay._native")])


setup(ext_modules=extensions())
