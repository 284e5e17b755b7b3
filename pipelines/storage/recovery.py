"""Recovery and maintenance: undo what a crashed step left (staging, uncommitted links and
versions), find files no Delta log added, and compact and vacuum the tables."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

from deltalake import DeltaTable

from pipelines.storage.commit_log import COMMITS, NO_COMMIT, CommitLog, Snapshot
from pipelines.storage.delta import (
    DELTA_LOG,
    is_uncommitted_append,
    latest_table,
    logged_files,
    open_table,
    table_uri,
)
from pipelines.storage.layout import WAREHOUSE_TMP, StoreLayout
from pipelines.storage.lock import WriterLock
from pipelines.storage.staging import Staging
from schemas.catalog import ALL_TABLES


class Recovery:
    """Recovery and maintenance of the store at ``layout``."""

    def __init__(self, layout: StoreLayout, lock: WriterLock, log: CommitLog, staging: Staging) -> None:
        self.layout = layout
        self.lock = lock
        self.log = log
        self.staging = staging

    def recover(self) -> list[str]:
        """Undo a crashed step: drop staging, temp files and the files a crashed publish linked
        into a table without committing them (:meth:`_remove_orphans`), roll back versions no
        commit names.

        A table (or memory table) whose latest version is past the last commit's is restored
        to that version's content (a new version, which a commit row then names, so the next
        recovery finds nothing to do); one the last commit does not name at all, created by the
        crashed step, is removed. Returns the tables rolled back or removed.
        """
        self.staging.remove_orphans()
        if self.layout.staging_dir.exists():
            shutil.rmtree(self.layout.staging_dir)
        for tmp in self.layout.root.glob(f"{WAREHOUSE_TMP}*"):
            tmp.unlink(missing_ok=True)
        last = self.log.last_commit() or NO_COMMIT
        named = last.versions
        out = []
        restored = {}
        candidates = [(n, self.layout.table_path(n)) for n in ALL_TABLES]
        memory = sorted(self.layout.state_dir.glob("*"))
        candidates += [(p.name, p) for p in memory if p.name != COMMITS and p.is_dir()]
        for name, path in candidates:
            table = latest_table(path)
            if table is None:
                continue
            version = named.get(name)
            if version is not None and table.version() > version:
                DeltaTable(table_uri(path)).restore(version)
                restored[name] = DeltaTable(table_uri(path)).version()
                out.append(name)
            elif version is None and is_uncommitted_append(table):
                shutil.rmtree(path)
                out.append(name)
        if restored:
            self.log.commit(None, restored, unquarantined=last.unquarantined,
                            malformed_rows=last.malformed_rows)
        return sorted(out)

    def foreign_files(self) -> list[Path]:
        """Files under ``tables/`` that no table's Delta log ever added, sorted.

        Such a file is never read (Delta readers read the files the log names); it is reported.
        """
        if not self.layout.tables_dir.exists():
            return []
        out = []
        for entry in sorted(self.layout.tables_dir.iterdir()):
            if entry.name not in ALL_TABLES or not entry.is_dir() or latest_table(entry) is None:
                out.extend(_walk(entry))
                continue
            known = logged_files(entry)
            for f in _walk(entry):
                relative = f.relative_to(entry)
                if DELTA_LOG not in relative.parts and relative.as_posix() not in known:
                    out.append(f)
        return sorted(out)

    def maintain(self, retention_days: float = 7) -> dict[str, int]:
        """Compact small files and vacuum files unreferenced for ``retention_days``; bytes before/after.

        Compaction rewrites small files of each partition into larger ones (a new Delta version
        with the same rows, so nothing a reader sees changes); vacuum deletes the files that
        no version younger than the retention needs. The pipeline never needs it to be correct.
        Runs of which a table version was vacuumed can no longer be read with ``--as-of``.
        """
        with self.lock.hold():
            self.recover()
            before = _size(self.layout.tables_dir) + _size(self.layout.state_dir)
            compacted, vacuumed = 0, 0
            rewritten: dict[str, int] = {}
            paths = {n: self.layout.table_path(n) for n in ALL_TABLES}
            memory = sorted(self.layout.state_dir.glob("*"))
            paths |= {p.name: p for p in memory if p.is_dir() and p.name != COMMITS}
            for name, path in paths.items():
                table = open_table(path)
                if table is None:
                    continue
                removed = int(table.optimize.compact().get("numFilesRemoved", 0))
                if removed:
                    compacted += removed
                    rewritten[name] = DeltaTable(table_uri(path)).version()
            self._adopt(rewritten)
            for path in [*paths.values(), self.layout.memory_path(COMMITS)]:
                if open_table(path) is not None:
                    vacuumed += len(
                        DeltaTable(table_uri(path)).vacuum(
                            retention_hours=int(retention_days * 24), dry_run=False,
                            enforce_retention_duration=False,
                        )
                    )
            after = _size(self.layout.tables_dir) + _size(self.layout.state_dir)
        return {"bytes_before": before, "bytes_after": after, "files_compacted": compacted,
                "files_vacuumed": vacuumed}

    def _adopt(self, rewritten: Mapping[str, int]) -> None:
        """Name the compacted versions (same rows) in a new step commit and run record.

        So the next step does not roll the compaction back, and readers of the last run read
        the compacted files (vacuum may then delete the ones they replace).
        """
        last = self.log.last_commit()
        named = {n: v for n, v in rewritten.items() if last is not None and n in last.versions}
        commit = last
        if last is not None and named:
            commit = self.log.commit(
                None, named, unquarantined=last.unquarantined, malformed_rows=last.malformed_rows
            )
        run = self.log.published()
        if run is not None and commit is not None:
            versions = {**run.versions, **{n: v for n, v in rewritten.items() if n in run.versions}}
            of_seq = commit.seq if last is not None and run.seq == last.seq else run.seq
            self.log.publish(Snapshot(seq=of_seq, versions=versions))


def _walk(path: Path) -> list[Path]:
    """Every file (or symlink) at or under ``path``."""
    if path.is_symlink() or not path.is_dir():
        return [path]
    return [p for p in path.rglob("*") if p.is_symlink() or not p.is_dir()]


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in _walk(path) if p.is_file()) if path.exists() else 0
