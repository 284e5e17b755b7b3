"""A/B benchmark of the replay step's two stages, ``replay`` and ``reviews``, on every ruleset.

For each built-in ruleset an ingested store of ``--matches`` simulated matches (its default
format, ``--players`` players, seed ``--seed``) is made once under ``--stores``. Then, per
ruleset, runs alternate between the base tree (``--base-dir``, a checkout of ``--base`` built
compiled, see ``bench_ab.py``) and ``--tree``, ``--pairs`` times each: a child process of that
tree (its compiled engine when its build is current) runs ``replay_step(store, workers=1)`` on a
fresh copy of the store, in-process, and reports the workers' CPU seconds of each stage
(``ReplayReport.replay_cpu_s``, ``review_cpu_s``; per tree, each run's ratio and the ratio of the
stages' fastest runs, which a shared machine's load disturbs least) and a digest of the
``play_reviews`` rows (every column, ``nodes`` included, in ``match_id, deal_no, seq`` order), so
the two trees' rows are checked to be the same on every run. Each child starts with an empty
match-value model, as a fresh pipeline worker does.

Run: ``nice .venv/bin/python benchmarks/bench_review_step.py --base 51f6b13
--base-dir /tmp/review-base [--pairs 2] [--rules huaian,national]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_ab import build, load, prepare_base, tree_env  # noqa: E402

RULESETS = ("national", "huaian", "bcta", "jiangsu", "njupt")

PREPARE_CHILD = r"""
import json, shutil, sys
from pathlib import Path
from pipelines.steps.transactions import ingest_step
from pipelines.storage.store import Store
from simulator import simulate_to_dir
store = Path(sys.argv[1])
shutil.rmtree(store, ignore_errors=True)
s = simulate_to_dir(store / "inbox", kind="matches", matches=int(sys.argv[3]), players=int(sys.argv[4]),
                    rules=sys.argv[2], seed=int(sys.argv[5]), workers=1)
ingest_step(Store(store), workers=1)
print(json.dumps({"matches": s.matches, "deals": s.deals, "events": s.events}))
"""
"""Makes one ruleset's ingested store: folder, ruleset, matches, players, seed."""

STEP_CHILD = r"""
import hashlib, json, shutil, sys
from pathlib import Path
import orjson
from pipelines.steps.transactions import replay_step
from pipelines.storage.store import Store
from replay import native
store = Path(sys.argv[2])
shutil.rmtree(store, ignore_errors=True)
shutil.copytree(sys.argv[1], store)
report = replay_step(Store(store), workers=1)
rows = Store(store).read_table("play_reviews").sort_by(
    [("match_id", "ascending"), ("deal_no", "ascending"), ("seq", "ascending")]).to_pylist()
digest = hashlib.sha256(orjson.dumps(rows, option=orjson.OPT_SORT_KEYS)).hexdigest()
shutil.rmtree(store)
print(json.dumps({"replay": report.replay_cpu_s, "reviews": report.review_cpu_s, "rows": len(rows),
                  "digest": digest, "compiled": native.is_compiled()}))
"""
"""Runs the replay step on a copy of a store: the ingested store, the copy's folder."""


def prepare_store(stores: Path, rules: str, matches: int, players: int, seed: int) -> dict[str, Any]:
    """The ingested store of ``rules`` (made once; its figures are kept beside it)."""
    store = stores / f"{rules}-{matches}-{players}-{seed}"
    facts = store.with_suffix(".json")
    if not facts.exists():
        out = subprocess.run([sys.executable, "-c", PREPARE_CHILD, str(store), rules, str(matches),
                              str(players), str(seed)], cwd=REPO, env=tree_env(REPO),
                             capture_output=True, text=True, check=True)
        facts.write_text(out.stdout.splitlines()[-1])
    return {"store": store, **json.loads(facts.read_text())}


def step_run(tree: Path, store: Path, work: Path) -> dict[str, Any]:
    """One replay step of ``tree``'s code on a copy of ``store``."""
    out = subprocess.run([sys.executable, "-c", STEP_CHILD, str(store), str(work / "store")],
                         cwd=tree, env=tree_env(tree), capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(out.stdout.splitlines()[-1])
    if not result["compiled"]:
        raise SystemExit(f"{tree} ran its Python sources, not its compiled engine: rebuild it")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="51f6b13", help="the earlier commit (A)")
    parser.add_argument("--base-dir", type=Path, default=Path("/tmp/review-base"), help="its worktree")
    parser.add_argument("--tree", type=Path, default=REPO, help="the tree to compare (B)")
    parser.add_argument("--pairs", type=int, default=2, help="A/B pairs per ruleset, alternating")
    parser.add_argument("--rules", default=",".join(RULESETS), help="rulesets, comma-separated")
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--stores", type=Path, default=Path("/tmp/review-step-stores"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/review-step-work"))
    args = parser.parse_args()

    trees = {"A": prepare_base(args.base, args.base_dir), "B": args.tree.resolve()}
    build(trees["B"])
    args.stores.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"{platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"load {load()}", flush=True)
    print("| ruleset (deals) | tree | replay stage (s) | reviews stage (s) | reviews ÷ replay, each run "
          "| best ÷ best | rows |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for rules in args.rules.split(","):
        facts = prepare_store(args.stores, rules, args.matches, args.players, args.seed)
        runs: dict[str, list[dict[str, Any]]] = {"A": [], "B": []}
        for _ in range(args.pairs):
            for side in ("A", "B"):
                runs[side].append(step_run(trees[side], facts["store"], args.work))
        digests = {r["digest"] for side in runs.values() for r in side}
        for side, label in (("A", f"base {args.base}"), ("B", "this tree")):
            got = runs[side]
            ratios = [r["reviews"] / r["replay"] for r in got]
            replayed = " / ".join(f"{r['replay']:.2f}" for r in got)
            reviewed = " / ".join(f"{r['reviews']:.2f}" for r in got)
            shown = " / ".join(f"{x:.2f}×" for x in ratios)
            best = min(r["reviews"] for r in got) / min(r["replay"] for r in got)
            print(f"| {rules} ({facts['deals']}) | {label} | {replayed} | {reviewed} "
                  f"| {shown} (median {median(ratios):.2f}×) | {best:.2f}× | {got[0]['rows']:,} |",
                  flush=True)
        if len(digests) != 1:
            print(f"| {rules}: play_reviews DIFFER between runs ({len(digests)} digests) |", flush=True)
    print(f"load {load()}, {time.strftime('%H:%M UTC', time.gmtime())}; play_reviews rows identical "
          "across trees unless said above")


if __name__ == "__main__":
    main()
