"""`gdan sql` really read-only: queries may read the store's tables and nothing else.

Two independent fences, so neither alone has to be perfect:

1. :func:`check_query` parses the text with DuckDB's own parser (``extract_statements``) and
   admits only ``SELECT`` statements and ``EXPLAIN`` of them: no ``COPY … TO``, ``CREATE``/``DROP``/
   ``INSERT``, ``ATTACH``, ``INSTALL``/``LOAD``, ``SET``/``PRAGMA``, ``CALL`` or ``EXPORT``.
2. :func:`lock_down` restricts the connection itself: external access off except the store's
   ``tables/`` folder (``allowed_directories``), so ``read_csv('/etc/passwd')`` or a
   ``read_parquet`` of another folder fails even inside a ``SELECT``; then
   ``lock_configuration``, so no statement can switch it back. DuckDB also lets a query read its
   own spill folder (``temp_directory``, by default ``.tmp`` in the working directory, which may
   hold anything), so that folder is first moved to a private, empty one.

The connection is the ordinary reader connection (``pipelines.storage.warehouse.connect``: in-memory
views over the Parquet files); the lock-down is applied after its views exist.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb


class RefusedQueryError(ValueError):
    """A ``gdan sql`` query that would do more than read the store's tables."""


_EXPLAIN = re.compile(r"^\s*EXPLAIN\b(\s+ANALY[SZ]E\b)?(\s*\([^)]*\))?", re.IGNORECASE)
"""The prefix of an ``EXPLAIN [ANALYZE] [(options)]`` statement, before the statement it explains."""


def check_query(query: str) -> None:
    """Raise :class:`RefusedQueryError` unless every statement of ``query`` only reads.

    Admitted: ``SELECT`` (also ``FROM …``, ``DESCRIBE``, ``SHOW``, ``SUMMARIZE``, which DuckDB
    parses as one) and ``EXPLAIN`` of such a statement (``EXPLAIN ANALYZE`` runs it). A query
    DuckDB cannot parse is left for the execution to report, with DuckDB's own message.
    """
    import duckdb

    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error:
        return
    for statement in statements:
        kind = statement.type.name
        if kind == "EXPLAIN":
            check_query(_EXPLAIN.sub("", statement.query, count=1))
        elif kind != "SELECT":
            raise RefusedQueryError(
                f"refused: `gdan sql` only reads (SELECT, EXPLAIN); this query has a {kind} statement. "
                "Writes, file output (COPY … TO, EXPORT), ATTACH, INSTALL/LOAD and settings are not "
                "allowed; to save a result use --format csv|json and redirect it"
            )


def lock_down(con: duckdb.DuckDBPyConnection, store: str | Path, spill: Path) -> None:
    """Let ``con`` read files only under the store's ``tables/`` folder and its spill folder
    ``spill``, and freeze its settings.

    ``spill`` is a private, empty folder the caller owns and removes afterwards (e.g. a
    ``tempfile.TemporaryDirectory``): DuckDB adds its ``temp_directory`` to the folders a query
    may read, so it must be set there before access is restricted.
    """
    from pipelines.storage.store import Store

    tables = Store(store).tables_dir.as_posix().replace("'", "''")
    spill_dir = spill.as_posix().replace("'", "''")
    con.execute(f"SET temp_directory = '{spill_dir}'")
    con.execute(f"SET allowed_directories = ['{tables}/']")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
