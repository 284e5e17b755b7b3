"""Where the steps' heavy work runs: the forkserver process pool, a Dask cluster, and the
per-process counters and progress bars around them."""
