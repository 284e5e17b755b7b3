"""Side-by-side benchmark of two source trees on the same input in one run: an earlier commit (A)
against a working tree (B), runs alternating A, B, A, B, … so that a shared machine's load, which
moves single runs by 2×, weighs on both alike; it reports the B/A ratio of each pair.

Each tree runs in its own child process with the tree first on ``PYTHONPATH`` (its compiled
``replay`` modules when it has a current build, else its sources: ``replay.native``), so a
commit is measured with its own code. ``--base COMMIT`` makes (once) a detached ``git worktree``
of it under ``--base-dir`` and builds its compiled engine there (``setup.py build_ext
--inplace``); ``--tree`` is the tree to compare (default: this script's repository).

Two measures:

- ``replay``: the replay step's core on a fixed corpus (``--matches`` simulated matches of the
  built-in rulesets, cached as JSON Lines under ``--corpus-dir``): ``orjson`` parsing the lines,
  parse + ``replay_match`` of every match, and ``replay_batch`` from ``RAW_EVENTS`` Arrow rows to
  every derived table; process CPU seconds, best of ``--repeat`` in each child.
- ``pipeline``: ``run_pipeline`` (``gdan run --no-reviews`` unless ``--reviews``) on a fresh store
  whose inbox links the files of ``--input`` (a folder ``gdan simulate`` or ``bench_pipeline.py``
  wrote); the process tree's CPU seconds, the workers' own split (parse, ``replay_batch``) and
  "the rest" (everything else: the steps after the replay, the parents' own work).
- ``add``: the same run adding the files of ``--input`` to a copy of ``--store`` (hard links:
  the store's files are never changed in place, so each run starts from the same store), as a
  league's next round arrives; ``bench_pipeline.py --add`` simulates such files.

Run: ``.venv/bin/python benchmarks/bench_ab.py replay --base 643037a [--pairs 3]`` or
``… bench_ab.py pipeline --base 643037a --input /tmp/perf-corpus/in10k [--pairs 2]`` or
``… bench_ab.py add --base 643037a --store /tmp/gdan-bench-pipeline/store --input NEW_FILES``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

REPLAY_CHILD = r"""
import gc, json, sys, time
import orjson
sys.path.insert(0, sys.argv[2])
from bench_replay import raw_table
import replay
from replay import native, replay_batch, replay_match
from replay.replayer import paused_gc

lines = open(sys.argv[1], "rb").read().splitlines()
repeat = int(sys.argv[3])
table = raw_table(lines)
best = {"parse": float("inf"), "replay_match": float("inf"), "replay_batch": float("inf")}
deals = 0
for _ in range(repeat):
    t0 = time.process_time()
    for line in lines:
        orjson.loads(line)
    best["parse"] = min(best["parse"], time.process_time() - t0)
    t0 = time.process_time()
    with paused_gc():
        by_match = {}
        for line in lines:
            ev = orjson.loads(line)
            by_match.setdefault(ev["match"], []).append(ev)
        for events in by_match.values():
            result = replay_match(events)
        del by_match, events, result
    best["replay_match"] = min(best["replay_match"], time.process_time() - t0)
    gc.collect()
    t0 = time.process_time()
    out = replay_batch(table)
    best["replay_batch"] = min(best["replay_batch"], time.process_time() - t0)
    deals = out["deals"].num_rows
    del out
    gc.collect()
best["deals"] = deals
best["compiled"] = native.is_compiled()
best["replay_from"] = replay.__file__
print(json.dumps(best))
"""
"""The ``replay`` measure's child: corpus file, the benchmarks folder, repeats -> JSON on stdout."""

PIPELINE_CHILD = r"""
import json, pathlib, sys
from pipelines.exec.cpu import CPU_S
from pipelines.run.runner import run_pipeline
run_pipeline(sys.argv[1], workers=int(sys.argv[2]), reviews=sys.argv[3] == "1")
import replay
from replay import native
pathlib.Path(sys.argv[4]).write_text(json.dumps({"split": CPU_S, "replay_from": replay.__file__,
                                                 "compiled": native.is_compiled()}))
"""
"""The ``pipeline`` measure's child: store, workers, reviews (0/1), the file for its CPU split."""


def tree_env(tree: Path) -> dict[str, str]:
    """The environment of a child running ``tree``'s code (its compiled engine when built)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GDAN_PURE_PYTHON")}
    env["PYTHONPATH"] = str(tree)
    return env


def prepare_base(commit: str, base_dir: Path) -> Path:
    """A detached worktree of ``commit`` with its compiled engine built (made once, then reused)."""
    if not (base_dir / ".git").exists():
        command = ["git", "-C", str(REPO), "worktree", "add", "--detach", str(base_dir), commit]
        subprocess.run(command, check=True)
    head = subprocess.run(["git", "-C", str(base_dir), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    wanted = subprocess.run(["git", "-C", str(REPO), "rev-parse", commit], capture_output=True, text=True,
                            check=True).stdout.strip()
    if head != wanted:
        raise SystemExit(f"{base_dir} is at {head[:10]}, not {commit}: remove it or give another --base-dir")
    build(base_dir)
    return base_dir


def build(tree: Path) -> None:
    """Build ``tree``'s compiled engine in place unless its build is current."""
    check = "from replay import native; import sys; sys.exit(1 if native.stale_modules() or " \
            "not native.compiled_file('replayer') else 0)"
    if subprocess.run([sys.executable, "-c", check], cwd=tree, env=tree_env(tree),
                      stderr=subprocess.DEVNULL).returncode:
        print(f"building the compiled engine in {tree} …", flush=True)
        subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=tree,
                       env=tree_env(tree), check=True, stdout=subprocess.DEVNULL)


def corpus_file(corpus_dir: Path, matches: int) -> Path:
    """The replay measure's JSON Lines: ``matches`` simulated matches, simulated once and cached."""
    path = corpus_dir / f"replay-{matches}.jsonl"
    if not path.exists():
        sys.path.insert(0, str(HERE))
        from bench_replay import simulated_lines

        corpus_dir.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\n".join(simulated_lines(matches)) + b"\n")
    return path


def replay_run(tree: Path, corpus: Path, repeat: int) -> dict[str, Any]:
    """One child of ``tree`` measuring the replay on ``corpus``."""
    out = subprocess.run([sys.executable, "-c", REPLAY_CHILD, str(corpus), str(HERE), str(repeat)],
                         cwd=tree, env=tree_env(tree), capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(out.stdout.splitlines()[-1])
    return result


def pipeline_run(tree: Path, inbox: Path, work: Path, workers: int, reviews: bool) -> dict[str, Any]:
    """One pipeline run of ``tree`` on a fresh store holding ``inbox``: CPU seconds and their split."""
    store = work / "store"
    shutil.rmtree(store, ignore_errors=True)
    shutil.copytree(inbox, store / "inbox", copy_function=os.link)
    return timed_run(tree, store, work, workers, reviews)


def add_run(tree: Path, store: Path, added: Path, work: Path, workers: int, reviews: bool) -> dict[str, Any]:
    """One pipeline run of ``tree`` adding the files of ``added`` to a hard-linked copy of ``store``."""
    copy = work / "store"
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-al", str(store), str(copy)], check=True)
    shutil.copytree(added, copy / "inbox" / "added-ab", copy_function=os.link)
    try:
        return timed_run(tree, copy, work, workers, reviews)
    finally:
        shutil.rmtree(copy)


def timed_run(tree: Path, store: Path, work: Path, workers: int, reviews: bool) -> dict[str, Any]:
    """One pipeline run of ``tree`` on ``store``: wall and CPU seconds, the workers' split."""
    split_file = work / "split.json"
    split_file.unlink(missing_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", PIPELINE_CHILD, str(store), str(workers), str(int(reviews)),
                    str(split_file)], cwd=tree, env=tree_env(tree), stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    child = json.loads(split_file.read_text())
    split = child["split"]
    parse, replay, reviews = (split.get(k, 0.0) for k in ("parse", "replay", "reviews"))
    return {"wall": wall, "cpu": cpu, "parse": parse, "replay_batch": replay,
            "reviews": reviews, "rest": cpu - parse - replay - reviews,
            "replay_from": child["replay_from"], "compiled": child["compiled"]}


def load() -> str:
    """The machine's load averages (``uptime``)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("measure", choices=("replay", "pipeline", "add"))
    parser.add_argument("--base", default="643037a", help="the earlier commit (A)")
    parser.add_argument("--base-dir", type=Path, default=Path("/tmp/perf-base"), help="its worktree")
    parser.add_argument("--tree", type=Path, default=REPO, help="the tree to compare (B)")
    parser.add_argument("--pairs", type=int, default=3, help="A/B pairs, alternating")
    parser.add_argument("--repeat", type=int, default=3, help="replay: best of this many in each child")
    parser.add_argument("--matches", type=int, default=100, help="replay: simulated matches in the corpus")
    parser.add_argument("--corpus-dir", type=Path, default=Path("/tmp/perf-corpus"))
    parser.add_argument("--input", type=Path, help="pipeline, add: the simulated input folder")
    parser.add_argument("--store", type=Path, help="add: the store the input is added to")
    parser.add_argument("--work", type=Path, default=Path("/tmp/perf-ab"), help="pipeline, add: work folder")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--reviews", action="store_true", help="pipeline: with the endgame reviews")
    args = parser.parse_args()

    base = prepare_base(args.base, args.base_dir)
    build(args.tree)
    trees = {"A": base, "B": args.tree.resolve()}
    print(f"{platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"A = {args.base} ({base}), B = {trees['B']}")
    if args.measure != "replay" and args.input is None:
        raise SystemExit(f"{args.measure} needs --input")
    if args.measure == "add" and args.store is None:
        raise SystemExit("add needs --store")
    corpus = corpus_file(args.corpus_dir, args.matches) if args.measure == "replay" else None
    results: dict[str, list[dict[str, Any]]] = {"A": [], "B": []}
    for pair in range(args.pairs):
        for label in ("A", "B") if pair % 2 == 0 else ("B", "A"):
            before = load()
            if corpus is not None:
                result = replay_run(trees[label], corpus, args.repeat)
            elif args.measure == "add":
                (args.work / label).mkdir(parents=True, exist_ok=True)
                result = add_run(trees[label], args.store, args.input, args.work / label, args.workers,
                                 args.reviews)
            else:
                args.work.mkdir(parents=True, exist_ok=True)
                result = pipeline_run(trees[label], args.input, args.work / label, args.workers, args.reviews)
            results[label].append(result)
            shown = ", ".join(f"{k} {v:.3f}" for k, v in result.items() if isinstance(v, float))
            engine = "compiled" if result["compiled"] else "sources"
            print(f"pair {pair + 1} {label}: {shown} | load {before} -> {load()} | "
                  f"{result['replay_from']} ({engine})", flush=True)
        a, b = results["A"][-1], results["B"][-1]
        ratios = ", ".join(f"{k} {b[k] / a[k]:.3f}" for k in a if isinstance(a[k], float) and a[k] > 0)
        print(f"pair {pair + 1} B/A: {ratios}", flush=True)
    a_runs, b_runs = results["A"], results["B"]
    keys = [k for k in a_runs[0] if isinstance(a_runs[0][k], float) and a_runs[0][k] > 0]
    print("median of the pairs' B/A: " + ", ".join(
        f"{k} {median(b[k] / a[k] for a, b in zip(a_runs, b_runs, strict=True)):.3f}" for k in keys))
    if corpus is not None:
        for label, runs in results.items():
            parse = min(r["parse"] for r in runs)
            batch = min(r["replay_batch"] for r in runs)
            print(f"{label}: best replay_batch / best orjson parse {batch / parse:.1f}x, "
                  f"parse + replay_match / parse {min(r['replay_match'] for r in runs) / parse:.1f}x, "
                  f"{runs[0]['deals']:.0f} deals")


if __name__ == "__main__":
    main()
