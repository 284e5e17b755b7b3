"""Imported last by the forkserver the pool's workers fork from: freezes what the imports made.

``multiprocessing``'s forkserver imports :data:`pipelines.exec.pool.PRELOAD` in order, this module
last, then forks every worker from itself. ``gc.freeze()`` here moves every object the imports
created (modules, classes, functions, the rules engine's tables) into the permanent generation:
no collection in the server or in a worker scans them again, and a collection does not write to
their pages, so the forked workers keep sharing them copy-on-write. Nothing else imports it.
"""

from __future__ import annotations

import gc

gc.freeze()
