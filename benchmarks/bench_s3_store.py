"""Benchmark: a store on S3-compatible object storage vs a local folder, same machine, one run each.

Simulates about ``--deals`` deals (independent 10-deal matches) into a folder, then for each root
(a local folder; ``s3://…`` on moto's S3 server started on a free loopback port) times
`gdan ingest`, `gdan run` (``--no-reviews`` unless ``--reviews``: the reviews' solver time is the
same on both roots) and a cold `gdan sql` (a reader host with an empty copy), each as its own
process as a deployment runs them. Then the dashboards: on the S3 root, a dashboards host's
first pull of the tables (what `gdan dashboard --store s3://…` does before it serves); on both,
the cold render of some pages (``bench_dashboards.measure``: no cached result, no warm-up) over
the local folder and over that host's reading copy. The S3 root's extra time is the copy's pull
and push, and the readers' first pull. moto keeps objects in memory in one Python process, so its
figures bound a real object store's from neither side: they show the cost of the copy, not of a
service. Run under ``nice`` on a quiet machine:
``nice .venv/bin/python benchmarks/bench_s3_store.py [--deals 100000]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

BIN = Path(sys.executable).parent
DEALS_PER_MATCH = 10
QUERY = "SELECT status, count(*) FROM matches GROUP BY ALL ORDER BY ALL"
PAGES = ["overview", "leaderboard", "player", "dan", "bombs", "replayer"]
"""The dashboards' pages timed cold (names of ``bench_dashboards.PAGES``; not the entry page,
which a dashboards host over object storage does not have)."""
PULL = ("import sys; from pathlib import Path; from pipelines.storage.remote import readable; "
        "print(readable(Path(sys.argv[1])))")
"""A dashboards host's first pull of the store's tables (printing the reading copy's folder)."""


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall seconds of ``command`` and its standard output (it must succeed)."""
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, done.stdout


def trial(store: str, source: Path, env: dict[str, str], reader_env: dict[str, str],
          reviews: bool) -> dict[str, float]:
    """Seconds of ingest, run and a cold reader's query on ``store``."""
    gdan = str(BIN / "gdan")
    ingest, _ = timed([gdan, "ingest", str(source), "--store", store], env)
    run, _ = timed([gdan, "run", "--store", store, "--reviews" if reviews else "--no-reviews"], env)
    query, out = timed([gdan, "sql", QUERY, "--store", store, "-f", "csv"], reader_env)
    print(f"  {store}: {out.strip().replace(chr(10), '; ')}")
    return {"ingest": ingest, "run": run, "cold sql": query}


def cold_pages(folder: Path, env: dict[str, str]) -> dict[str, float]:
    """Cold render seconds of :data:`PAGES` over the store folder ``folder`` (its own process)."""
    script = Path(__file__).with_name("bench_dashboards.py")
    _, out = timed([sys.executable, str(script), "--store", str(folder), "--pages", *PAGES], env)
    pages = json.loads(out.strip().splitlines()[-1])["pages"]
    return {f"{name} cold": pages[name]["cold_s"] for name in PAGES}


def dashboards(store: str, env: dict[str, str]) -> dict[str, float]:
    """The dashboards over ``store``: a dashboards host's first pull (0 for a folder: nothing to
    pull) and the pages' cold renders over what it reads."""
    if not store.startswith("s3://"):
        return {"first pull": 0.0, **cold_pages(Path(store), env)}
    pull, out = timed([sys.executable, "-c", PULL, store], env)
    shown = {**env, "GDAN_READ_ONLY": "1", "GDAN_STORE_SOURCE": store}
    return {"first pull": pull, **cold_pages(Path(out.strip().splitlines()[-1]), shown)}


def main() -> None:
    from moto.server import ThreadedMotoServer

    from simulator import simulate_to_dir

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100_000, help="deals to simulate (about)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/gdan-bench-s3"), help="work folder")
    parser.add_argument("--reviews", action="store_true", help="run with the play reviews (slower)")
    args = parser.parse_args()
    shutil.rmtree(args.dir, ignore_errors=True)
    source = args.dir / "source"
    matches = max(1, args.deals // DEALS_PER_MATCH)
    summary = simulate_to_dir(source, kind="matches", matches=matches, players=64,
                              format=f"deals:{DEALS_PER_MATCH}", seed=7, workers=os.cpu_count() or 1)
    print(f"simulated {summary.matches} matches, {summary.deals} deals, {summary.events} events")

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ENDPOINT_URL=f"http://{host}:{port}", AWS_ACCESS_KEY_ID="bench",
               AWS_SECRET_ACCESS_KEY="bench", AWS_REGION="us-east-1",
               GDAN_CACHE=str(args.dir / "writer-host"))
    reader_env = {**env, "GDAN_CACHE": str(args.dir / "reader-host")}
    try:
        import boto3

        bucket = f"gdan-bench-{uuid.uuid4().hex[:8]}"
        boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"], aws_access_key_id="bench",
                     aws_secret_access_key="bench", region_name="us-east-1").create_bucket(Bucket=bucket)
        stores = {"local": str(args.dir / "local"), "s3": f"s3://{bucket}/bench"}
        results = {
            "local": trial(stores["local"], source, env, env, args.reviews),
            "s3": trial(stores["s3"], source, env, reader_env, args.reviews),
        }
        dashboards_env = {**env, "GDAN_CACHE": str(args.dir / "dashboards-host")}
        shown = {root: dashboards(store, dashboards_env) for root, store in stores.items()}
    finally:
        server.stop()
    for title, table in (("pipeline and a reader (wall s)", results), ("dashboards (wall s)", shown)):
        print(title)
        print(f"{'':10}" + "".join(f"{k:>17}" for k in table["local"]))
        for root, times in table.items():
            print(f"{root:10}" + "".join(f"{v:16.2f}s" for v in times.values()))
    print(json.dumps({"deals": summary.deals, "matches": summary.matches, "reviews": args.reviews,
                      "pipeline": results, "dashboards": shown}))


if __name__ == "__main__":
    main()
