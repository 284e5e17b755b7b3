"""Scoring, standings, dan ranks and player ratings (spec: ``scoring.md``).

One module per job, each a pure function over polars frames of the replayed tables:
``round_scores`` (§S2–§S5), ``standings`` (§S7), ``dan`` (§S5 ledger), ``pro_dan`` (§S6),
``ratings`` (a Gaussian whole-history model of per-deal level margins, docs/ratings.md),
``partners``; ``params`` holds every table of numbers and policy;
``pairing`` (§S8) pairs tournament rounds, for the simulator and for ``gdan pair``.
"""
