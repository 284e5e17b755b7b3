"""The pipeline's steps: ingest, replay and the scoring steps, each reading tables of the store
and writing others, with the bookkeeping (``state``) that makes them incremental."""
