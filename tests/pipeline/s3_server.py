"""An S3-compatible server for the tests: moto's server mode on a free loopback port.

The store reaches it only through the standard AWS environment (``AWS_ENDPOINT_URL``, the
access key pair, ``AWS_REGION``), as a deployment reaches its object storage; each test gets a
bucket of its own and a cache folder of its own (``GDAN_CACHE``: one host's local copies).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

TEST_KEY = "gdan-test-key"
"""moto's server accepts any key pair; this one exists only in the tests' environment."""


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """The URL of a moto server running in this process for the whole session (port 0: a free one)."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture
def s3_store(s3_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A store root ``s3://<fresh bucket>/league`` on the test server, with the AWS environment
    pointing at it and this host's copies under ``tmp_path``."""
    import boto3

    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", TEST_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", TEST_KEY)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("GDAN_CACHE", str(tmp_path / "host-a"))
    bucket = f"gdan-{uuid.uuid4().hex[:12]}"
    boto3.client("s3").create_bucket(Bucket=bucket)
    return f"s3://{bucket}/league"
