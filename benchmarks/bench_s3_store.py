"""Benchmark: a store on S3-compatible object storage vs a local folder, same machine, one run each.

Simulates about ``--deals`` deals (independent 10-deal matches) into a folder, then for each root
(a local folder; ``s3://…`` on moto's S3 server started on a free loopback port) times
`gdan ingest`, `gdan run` and a cold `gdan sql` (a reader host with an empty copy), each as its own
process as a deployment runs them. The S3 root's extra time is the copy's pull and push, and the
reader's first pull. moto keeps objects in memory in one Python process, so its figures bound a
real object store's from neither side: they show the cost of the copy, not of a service.
Run under ``nice`` on a quiet machine:
``nice .venv/bin/python benchmarks/bench_s3_store.py [--deals 100000]``.
"""

from __future__ import annotations

import argparse
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


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall seconds of ``command`` and its standard output (it must succeed)."""
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, done.stdout


def trial(store: str, source: Path, env: dict[str, str], reader_env: dict[str, str]) -> dict[str, float]:
    """Seconds of ingest, run and a cold reader's query on ``store``."""
    gdan = str(BIN / "gdan")
    ingest, _ = timed([gdan, "ingest", str(source), "--store", store], env)
    run, _ = timed([gdan, "run", "--store", store], env)
    query, out = timed([gdan, "sql", QUERY, "--store", store, "-f", "csv"], reader_env)
    print(f"  {store}: {out.strip().replace(chr(10), '; ')}")
    return {"ingest": ingest, "run": run, "cold sql": query}


def main() -> None:
    from moto.server import ThreadedMotoServer

    from simulator import simulate_to_dir

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100_000, help="deals to simulate (about)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/gdan-bench-s3"), help="work folder")
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
        results = {
            "local": trial(str(args.dir / "local"), source, env, env),
            "s3": trial(f"s3://{bucket}/bench", source, env, reader_env),
        }
    finally:
        server.stop()
    print(f"{'':10}" + "".join(f"{k:>12}" for k in results["local"]))
    for root, times in results.items():
        print(f"{root:10}" + "".join(f"{v:11.1f}s" for v in times.values()))


if __name__ == "__main__":
    main()
