"""Every SQL query of the dashboards, over the read-only views of ``pipelines.storage.warehouse``, one
module per page (or group of pages): a page imports the queries it shows from their module.

Each query takes a DuckDB connection (or cursor) and keyword parameters and returns a pandas
DataFrame. A filter parameter of ``None`` means "all". Table and column meanings are those of
``schemas/tables.py`` and ``schemas/scoring.py``.
"""
