"""Staged Parquet files written row group by row group, in parts of bounded size.

A ``ParquetWriter`` keeps the metadata of every row group it wrote until it closes (about 1 KB
a column each), and the footer it then writes holds them all: a 1M-deal first run wrote some
7,000 row groups into each derived table's one staged file, and the replay step's process grew
by about a gigabyte with the store. Here rows are buffered into row groups of
``ROW_GROUP_ROWS`` and a staged table starts its next part file after ``PART_ROW_GROUPS`` of
them, so what a writer holds is bounded whatever the run's size; ``Store.publish_batch``
appends every part of a table in one commit.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROW_GROUP_ROWS = 100_000
"""Rows buffered per staged table before they are written as one row group."""
PART_ROW_GROUPS = 64
"""Row groups per part file: the next rows start a new part."""


class PartWriter:
    """One staged table: rows appended in order, written as row groups into part files.

    ``path_of(k)`` is the path of part ``k`` (``Store.stage_file``). ``row_group_rows``: rows
    per row group (the raw events' buckets use small ones: a read of a few matches then skips
    the others' row groups by their statistics). ``plain``: columns whose values are all
    different (a raw line's payload and content hash), written without a dictionary or
    statistics, which cost time to build and help neither size nor reads there. ``undictionaried``:
    columns with few repeated values (a play's time) written without a dictionary but with their
    statistics: the dictionary is built, found too large and dropped for every page, which cost
    time and space (the ``plays`` table: 11 % of its write CPU, 20 % of its bytes).
    """

    def __init__(
        self, path_of: Callable[[int], Path], schema: pa.Schema, row_group_rows: int = ROW_GROUP_ROWS,
        *, plain: tuple[str, ...] = (), undictionaried: tuple[str, ...] = (),
    ) -> None:
        self.path_of = path_of
        self.schema = schema
        self.row_group_rows = row_group_rows
        self.encoded: list[str] | bool = [n for n in schema.names if n not in plain] if plain else True
        """The columns given statistics (all: True, nested ones included)."""
        no_dictionary = {*plain, *undictionaried}
        self.dictionary: list[str] | bool = (
            [n for n in schema.names if n not in no_dictionary] if no_dictionary else True
        )
        """The columns given dictionaries (all: True, nested ones included)."""
        self.pending: list[pa.Table] = []
        self.pending_rows = 0
        self.parts = 0
        self.groups = 0
        self.writer: pq.ParquetWriter | None = None

    def write(self, table: pa.Table) -> None:
        """Append ``table`` (already in :attr:`schema`); a full row group is written out."""
        if table.num_rows == 0:
            return
        self.pending.append(table)
        self.pending_rows += table.num_rows
        if self.pending_rows >= self.row_group_rows:
            self.flush()

    def flush(self) -> None:
        """Write the buffered rows as one row group (a new part once the current one is full)."""
        if not self.pending:
            return
        if self.writer is None or self.groups >= PART_ROW_GROUPS:
            self._next_part()
        assert self.writer is not None
        data = pa.concat_tables(self.pending)
        self.writer.write_table(data, row_group_size=max(data.num_rows, 1))
        self.groups += 1
        self.pending, self.pending_rows = [], 0

    def close(self) -> None:
        """Write what is buffered and close the current part."""
        self.flush()
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    def _next_part(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.writer = pq.ParquetWriter(self.path_of(self.parts), self.schema, compression="zstd",
                                       use_dictionary=self.dictionary, write_statistics=self.encoded)
        self.parts += 1
        self.groups = 0
