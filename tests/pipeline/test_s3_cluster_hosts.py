"""A run across hosts: network namespaces on this machine stand for separate hosts, joined by
one switch (a bridge in a namespace of its own): moto's S3 server on one, a Dask scheduler on
another, two Dask workers on two more, the `gdan` driver on another and a reader on the last.
The driver's run (``--store s3://… --executor dask --address``) gives the tables of a local run,
though one worker's process dies in the middle of its first task (``dying_worker``), and the
reader on its own host sees them through the object storage.

Needs root and ``ip netns`` (iproute2); skipped with the reason where namespaces cannot be made.
Slow (a cluster and two pipeline runs): run with ``-m slow``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gdan import app
from pipelines.storage.object_store import RemoteRoot
from pipelines.storage.remote import CACHE_ENV, cache_folder
from tests.pipeline.pipeline_helpers import store_tables

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
NET = "10.231.7"
"""The test hosts' subnet: addresses that exist only inside this test's namespaces."""
HOSTS = {"s3": 11, "scheduler": 12, "worker1": 13, "worker2": 14, "driver": 15, "reader": 16}
GIVE_UP_S = 240.0
"""Bound of every readiness wait: far beyond what starting a server needs."""
S3_PORT, SCHEDULER_PORT = 5000, 8786
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


@pytest.fixture
def hosts(tmp_path: Path) -> Iterator[Hosts]:
    if os.geteuid() != 0:
        pytest.skip("network namespaces as hosts need root (ip netns add)")
    made = Hosts(f"gd{uuid.uuid4().hex[:6]}", tmp_path)
    try:
        made.build()
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        made.tear_down()
        reason = exc.stderr.decode().strip() if isinstance(exc, subprocess.CalledProcessError) else str(exc)
        pytest.skip(f"network namespaces cannot be created here: {reason}")
    try:
        yield made
    finally:
        made.tear_down()


def test_a_run_across_hosts_gives_the_tables_of_a_local_run(hosts: Hosts, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from simulator import simulate_to_dir

    source = tmp_path / "day"
    simulate_to_dir(source / "t", kind="tournament", pairs=4, rounds=2, format="deals:2", seed=21)
    local = tmp_path / "local"
    for args in (["ingest", str(source)], ["run", "--workers", "1"]):
        result = CliRunner().invoke(app, [*args, "--store", str(local)])
        assert result.exit_code == 0, result.output

    s3_address, scheduler = f"{NET}.{HOSTS['s3']}", f"tcp://{NET}.{HOSTS['scheduler']}:{SCHEDULER_PORT}"
    env = {name: _host_env(tmp_path / f"cache-{name}") for name in HOSTS}
    hosts.start("s3", [str(BIN / "moto_server"), "-H", s3_address, "-p", str(S3_PORT)], env["s3"])
    hosts.start("scheduler", [str(BIN / "dask"), "scheduler", "--host", f"{NET}.{HOSTS['scheduler']}",
                              "--port", str(SCHEDULER_PORT), "--no-dashboard"], env["scheduler"])
    _wait_for(lambda: hosts.alive() and hosts.reachable("driver", s3_address, S3_PORT), "the S3 server")
    scheduler_address = f"{NET}.{HOSTS['scheduler']}"
    _wait_for(lambda: hosts.alive() and hosts.reachable("driver", scheduler_address, SCHEDULER_PORT),
              "the Dask scheduler")
    died = tmp_path / "worker1-died"
    env["worker1"]["GDAN_TEST_DIE_ONCE"] = str(died)
    for worker, preload in (("worker1", ["--preload", "tests.pipeline.dying_worker"]), ("worker2", [])):
        hosts.start(worker, [str(BIN / "dask"), "worker", scheduler, "--nworkers", "1", "--nthreads", "1",
                             "--host", f"{NET}.{HOSTS[worker]}", "--no-dashboard", "--name", worker,
                             *preload], env[worker])
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

    assert died.exists(), "worker1 never ran a replay task"
    query = "SELECT match_id, status FROM matches ORDER BY ALL"
    read = [str(BIN / "gdan"), "sql", query, "--store", store, "-f", "csv"]
    seen = hosts.run("reader", read, env["reader"])
    assert seen.returncode == 0, seen.stderr
    expected = CliRunner().invoke(app, ["sql", query, "--store", str(local), "-f", "csv"]).stdout
    assert seen.stdout == expected and len(expected.splitlines()) > 2
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache-reader"))
    reader_copy = cache_folder(RemoteRoot.parse(store), "read")  # pulled by the reader's `gdan sql`
    assert store_tables(reader_copy) == store_tables(local)
