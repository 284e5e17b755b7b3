"""A full disk stops `gdan ingest` and `gdan run` with one line, never a traceback, and leaves
nothing half-done: the inbox holds no truncated copy (so the copy after freeing space is the only
one) and the store keeps its last committed state.

The real thing runs on a small tmpfs (mounted when the tests may mount, as root in CI's
container); the same paths are also driven by an injected ``ENOSPC`` so they run anywhere.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gdan import app
from gdan import pipeline as gdan_pipeline
from gdan.failures import disk_full
from pipelines.storage.store import Store
from simulator import simulate_to_dir
from tests.pipeline.pipeline_helpers import match_events, write_jsonl

BIN = Path(sys.executable).parent
runner = CliRunner()


def _said(output: str) -> str:
    return " ".join(output.split())


def _every_file(folder: Path) -> list[str]:
    """Every file under ``folder``, hidden ones included."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs, unmounted afterwards; skipped where this process may not mount one."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def _resize(mount: Path, size: str) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", str(mount)], check=True)


def _gdan(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "gdan"), *args], capture_output=True, text=True, timeout=600)


def test_ingest_on_a_full_tmpfs_copies_nothing_partial_and_once_after_space_is_freed(
    small_disk: Path, tmp_path: Path
) -> None:
    source = tmp_path / "big.jsonl"
    write_jsonl(source, match_events("m1", deals=400))
    assert source.stat().st_size > 256 << 10
    store = small_disk / "store"
    full = _gdan("ingest", str(source), "--store", str(store))
    said = _said(full.stderr)
    assert full.returncode == 1, said
    assert "disk full:" in said and "Traceback" not in said
    assert _every_file(store / "inbox") == []
    _resize(small_disk, "8m")
    assert _gdan("ingest", str(source), "--store", str(store)).returncode == 0
    again = _gdan("ingest", str(source), "--store", str(store))
    assert again.returncode == 0 and "1 already there" in _said(again.stderr)
    assert _every_file(store / "inbox") == ["big.jsonl"]
    assert (store / "inbox" / "big.jsonl").read_bytes() == source.read_bytes()


def test_ingest_with_an_injected_enospc_says_so_in_one_line_and_leaves_no_partial_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "day.jsonl"
    write_jsonl(source, match_events("m1", deals=3))
    store = tmp_path / "store"

    def half_then_full(src: Path, dst: Path) -> None:
        Path(dst).write_bytes(Path(src).read_bytes()[:100])
        raise OSError(errno.ENOSPC, "No space left on device", str(dst))

    monkeypatch.setattr(gdan_pipeline.shutil, "copy2", half_then_full)
    full = runner.invoke(app, ["ingest", str(source), "--store", str(store)])
    said = _said(full.output)
    assert full.exit_code == 1, said
    assert "disk full: [Errno 28] No space left on device" in said
    assert "0 file(s) copied" in said and "no partial file" in said
    assert not isinstance(full.exception, OSError)
    assert _every_file(store / "inbox") == []
    monkeypatch.undo()
    assert runner.invoke(app, ["ingest", str(source), "--store", str(store)]).exit_code == 0
    assert _every_file(store / "inbox") == ["day.jsonl"]


def test_run_on_a_full_tmpfs_says_so_keeps_the_last_commit_and_goes_on_when_space_is_freed(
    small_disk: Path,
) -> None:
    store = small_disk / "store"
    simulate_to_dir(store / "inbox", kind="tournament", pairs=4, rounds=1, format="deals:2", seed=3)
    full = _gdan("run", "--store", str(store), "--workers", "1")
    said = _said(full.stderr)
    assert full.returncode == 1, said
    assert "disk full" in said and "The store keeps its last committed state" in said
    assert "Traceback" not in said
    _resize(small_disk, "16m")
    done = _gdan("run", "--store", str(store), "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert Store(store).read_table("matches").num_rows == 2


def test_run_failing_on_a_full_disk_outside_its_steps_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reads before and after the steps are covered too (the summary, here)."""
    write_jsonl(tmp_path / "inbox" / "a.jsonl", match_events("m1"))

    def no_space(store: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(gdan_pipeline, "_summary", no_space)
    result = runner.invoke(app, ["run", "--store", str(tmp_path), "--workers", "1"])
    said = _said(result.output)
    assert result.exit_code == 1, said
    assert "disk full ([Errno 28] No space left on device). The store keeps its last committed state" in said


@pytest.mark.parametrize(
    "error",
    [
        OSError(errno.ENOSPC, "No space left on device"),
        OSError(errno.EDQUOT, "Disk quota exceeded"),
        RuntimeError("Generic LocalFileSystem error: Unable to copy data to file: "
                     "No space left on device (os error 28)"),
        RuntimeError('FATAL Error: Could not write file "x.duckdb": No space left on device'),
    ],
)
def test_the_libraries_wordings_of_a_full_disk_are_recognised(error: Exception) -> None:
    assert disk_full(error)
    try:
        raise ValueError("wrapped") from error
    except ValueError as wrapped:
        assert disk_full(wrapped)


def test_other_failures_are_not_called_a_full_disk() -> None:
    assert not disk_full(OSError(errno.EACCES, "Permission denied"))
    assert not disk_full(RuntimeError("replayer bug"))
