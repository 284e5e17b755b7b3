"""A run across hosts: network namespaces on this machine stand for separate hosts, joined by
one switch (a bridge in a namespace of its own): moto's S3 server on one, a Dask scheduler on
another, two Dask workers on two more, the `gdan` driver on another, the dashboards on another
and an analyst (`gdan sql` and a browser) on the last. The driver's run (``--store s3://…
--executor dask --address``) gives the tables of a local run, though one worker's process dies in
the middle of its first task (``dying_worker``: the task is run again on the restarted worker or
the other one); the analyst's `gdan sql` and the dashboards' overview page, opened in Chromium
from the analyst's host, show them through the object storage.

Needs root and ``ip netns`` (iproute2); skipped with the reason where namespaces cannot be made
(`make test-s3`, run by ``.ci/run`` after `make test`). Marked slow: not part of `make test`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dashboards.i18n import t
from gdan import app
from pipelines.storage.object_store import RemoteRoot
from pipelines.storage.remote import CACHE_ENV, cache_folder
from tests.dashboards.browser import CHROMIUM
from tests.pipeline.pipeline_helpers import store_tables

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
NET = "10.231.7"
"""The test hosts' subnet: addresses that exist only inside this test's namespaces."""
HOSTS = {"s3": 11, "scheduler": 12, "worker1": 13, "worker2": 14, "driver": 15, "dashboards": 16,
         "analyst": 17}
GIVE_UP_S = 240.0
"""Bound of every readiness wait: far beyond what starting a server needs."""
S3_PORT, SCHEDULER_PORT, DASHBOARDS_PORT = 5000, 8786, 8501
KEY = "gdan-test-key"
"""moto accepts any key pair; this one exists only in the test hosts' environment."""
DRIVER = (
    "import sys; from pipelines.steps import replaying; replaying.CHUNK_EVENTS = 150; "
    "from gdan import main; sys.argv = ['gdan', *sys.argv[1:]]; main()"
)
"""`gdan` with small replay tasks (about one match each), so the cluster gets many of them."""


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + GIVE_UP_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.2)


class Hosts:
    """Namespaces ``<tag>-<name>`` on one bridge; processes started in them, stopped at the end."""

    def __init__(self, tag: str, logs: Path) -> None:
        self.tag = tag
        self.logs = logs
        self.made: list[str] = []
        self.started: list[subprocess.Popen[bytes]] = []
        self.names: dict[int, str] = {}

    def ns(self, name: str) -> str:
        return f"{self.tag}-{name}"

    def build(self) -> None:
        switch = self.ns("switch")
        _ip("netns", "add", switch)
        self.made.append(switch)
        _ip("-n", switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", switch, "link", "set", "br0", "up")
        for index, (name, last) in enumerate(HOSTS.items()):
            ns = self.ns(name)
            _ip("netns", "add", ns)
            self.made.append(ns)
            port = f"p{index}"
            _ip("-n", switch, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns)
            _ip("-n", switch, "link", "set", port, "master", "br0")
            _ip("-n", switch, "link", "set", port, "up")
            _ip("-n", ns, "addr", "add", f"{NET}.{last}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")

    def start(self, host: str, command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        with open(self.logs / f"{host}.log", "wb") as out:
            process = subprocess.Popen(["ip", "netns", "exec", self.ns(host), *command], env=env,
                                       stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.started.append(process)
        self.names[process.pid] = host
        return process

    def alive(self) -> bool:
        """True while every started server runs (a test fails at once, with its log, when one exited)."""
        for process in self.started:
            if process.poll() is not None:
                host = self.names[process.pid]
                log = (self.logs / f"{host}.log").read_text(errors="replace")[-3000:]
                pytest.fail(f"the {host} host's server exited ({process.returncode}):\n{log}")
        return True

    def run(self, host: str, command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["ip", "netns", "exec", self.ns(host), *command], env=env,
                              capture_output=True, text=True, timeout=GIVE_UP_S * 2)

    def reachable(self, host: str, address: str, port: int) -> bool:
        probe = f"import socket; socket.create_connection(({address!r}, {port}), timeout=2).close()"
        return self.run(host, [sys.executable, "-c", probe], os.environ.copy()).returncode == 0

    def tear_down(self) -> None:
        for process in reversed(self.started):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def _host_env(cache: Path) -> dict[str, str]:
    """A host's environment: the project on the path, the pure-Python engine, the S3 server."""
    root = Path(__file__).parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(PYTHONPATH=str(root), GDAN_PURE_PYTHON="1", GDAN_CACHE=str(cache),
               AWS_ENDPOINT_URL=f"http://{NET}.{HOSTS['s3']}:{S3_PORT}", AWS_ACCESS_KEY_ID=KEY,
               AWS_SECRET_ACCESS_KEY=KEY, AWS_REGION="us-east-1")
    return env


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hosts]:
    if os.geteuid() != 0:
        pytest.skip("network namespaces as hosts need root (ip netns add): run as root to test a cluster")
    made = Hosts(f"gd{uuid.uuid4().hex[:6]}", tmp_path_factory.mktemp("host-logs"))
    try:
        made.build()
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        made.tear_down()
        reason = exc.stderr.decode().strip() if isinstance(exc, subprocess.CalledProcessError) else str(exc)
        pytest.skip(f"network namespaces cannot be created here ({reason}): the cluster test needs them")
    try:
        yield made
    finally:
        made.tear_down()


@dataclass(frozen=True)
class Published:
    """The cluster's run, published to the bucket, and a local run of the same input."""

    store: str
    local: Path
    env: dict[str, dict[str, str]]
    worker_died: Path
    folder: Path


@pytest.fixture(scope="module")
def published(hosts: Hosts, tmp_path_factory: pytest.TempPathFactory) -> Published:
    """One simulated day (4 pairs, 2 rounds of 2 deals) run locally and by the driver on the
    cluster into a fresh bucket, worker1's process dying in its first replay task."""
    from simulator import simulate_to_dir

    folder = tmp_path_factory.mktemp("cluster")
    source = folder / "day"
    simulate_to_dir(source / "t", kind="tournament", pairs=4, rounds=2, format="deals:2", seed=21)
    local = folder / "local"
    for args in (["ingest", str(source)], ["run", "--workers", "1"]):
        result = CliRunner().invoke(app, [*args, "--store", str(local)])
        assert result.exit_code == 0, result.output

    s3_address, scheduler = f"{NET}.{HOSTS['s3']}", f"tcp://{NET}.{HOSTS['scheduler']}:{SCHEDULER_PORT}"
    env = {name: _host_env(folder / f"cache-{name}") for name in HOSTS}
    died = folder / "worker1-died"
    env["worker1"]["GDAN_TEST_DIE_ONCE"] = str(died)
    hosts.start("s3", [str(BIN / "moto_server"), "-H", s3_address, "-p", str(S3_PORT)], env["s3"])
    hosts.start("scheduler", [str(BIN / "dask"), "scheduler", "--host", f"{NET}.{HOSTS['scheduler']}",
                              "--port", str(SCHEDULER_PORT), "--no-dashboard"], env["scheduler"])
    for worker, preload in (("worker1", ["--preload", "tests.pipeline.dying_worker"]), ("worker2", [])):
        hosts.start(worker, [str(BIN / "dask"), "worker", scheduler, "--nworkers", "1", "--nthreads", "1",
                             "--host", f"{NET}.{HOSTS[worker]}", "--no-dashboard", "--name", worker,
                             *preload], env[worker])
    _wait_for(lambda: hosts.alive() and hosts.reachable("driver", s3_address, S3_PORT), "the S3 server")
    count_workers = (f"from distributed import Client; c = Client({scheduler!r}, timeout=30); "
                     "print(len(c.scheduler_info()['workers'])); c.close()")
    _wait_for(lambda: hosts.alive() and hosts.run("driver", [sys.executable, "-c", count_workers],
                                                  env["driver"]).stdout.strip() == "2", "two Dask workers")

    bucket = f"gdan-{uuid.uuid4().hex[:12]}"
    store = f"s3://{bucket}/federation"
    make_bucket = f"import boto3; boto3.client('s3').create_bucket(Bucket={bucket!r})"
    steps = [
        [sys.executable, "-c", make_bucket],
        [str(BIN / "gdan"), "ingest", str(source), "--store", store],
        [sys.executable, "-c", DRIVER, "run", "--store", store, "--executor", "dask", "--address",
         scheduler],
    ]
    for command in steps:
        done = hosts.run("driver", command, env["driver"])
        assert done.returncode == 0, done.stdout + done.stderr
    return Published(store, local, env, died, folder)


def test_a_run_across_hosts_gives_the_tables_of_a_local_run(hosts: Hosts, published: Published,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    assert published.worker_died.exists(), "worker1 never ran a replay task"
    query = "SELECT match_id, status FROM matches ORDER BY ALL"
    read = [str(BIN / "gdan"), "sql", query, "--store", published.store, "-f", "csv"]
    seen = hosts.run("analyst", read, published.env["analyst"])
    assert seen.returncode == 0, seen.stderr
    expected = CliRunner().invoke(app, ["sql", query, "--store", str(published.local), "-f", "csv"]).stdout
    assert seen.stdout == expected and len(expected.splitlines()) > 2
    monkeypatch.setenv(CACHE_ENV, str(published.folder / "cache-analyst"))
    analyst_copy = cache_folder(RemoteRoot.parse(published.store), "read")  # pulled by its `gdan sql`
    assert store_tables(analyst_copy) == store_tables(published.local)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="the dashboards host is checked in Chromium: needs "
                    "/usr/bin/chromium (apt-get install chromium; .ci/run installs it)")
def test_the_dashboards_on_their_own_host_show_the_run(hosts: Hosts, published: Published) -> None:
    """`gdan dashboard --store s3://…` on the dashboards host, opened from the analyst's host."""
    address = f"{NET}.{HOSTS['dashboards']}"
    hosts.start("dashboards", [str(BIN / "gdan"), "dashboard", "--store", published.store, "--host", address,
                               "--port", str(DASHBOARDS_PORT)], published.env["dashboards"])
    _wait_for(lambda: hosts.alive() and hosts.reachable("analyst", address, DASHBOARDS_PORT),
              "the dashboards server")
    url = f"http://{address}:{DASHBOARDS_PORT}/?lang=en"
    opened = hosts.run("analyst", [sys.executable, "-m", "tests.pipeline.overview_in_browser", url],
                       published.env["analyst"])
    assert opened.returncode == 0, opened.stdout + opened.stderr
    page = json.loads(opened.stdout.splitlines()[-1])
    local = CliRunner().invoke(app, ["sql", "SELECT count(*) AS n FROM deals", "--store",
                                     str(published.local), "-f", "csv"]).stdout.split()
    assert page["errors"] == [] and page["title"]
    assert int(page["metrics"][t("deals", "en")].replace(",", "")) == int(local[-1]) > 0
