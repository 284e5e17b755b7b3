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


def use_test_server(patch: pytest.MonkeyPatch, endpoint: str, cache: Path) -> None:
    """Point the AWS environment at the test server, with this host's copies under ``cache``."""
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN"):
        patch.delenv(name, raising=False)
    patch.setenv("AWS_ENDPOINT_URL", endpoint)
    patch.setenv("AWS_ACCESS_KEY_ID", TEST_KEY)
    patch.setenv("AWS_SECRET_ACCESS_KEY", TEST_KEY)
    patch.setenv("AWS_REGION", "us-east-1")
    patch.setenv("GDAN_CACHE", str(cache))


def new_bucket() -> str:
    """A fresh bucket on the server the environment points at; its name."""
    import boto3

    bucket = f"gdan-{uuid.uuid4().hex[:12]}"
    boto3.client("s3").create_bucket(Bucket=bucket)
    return bucket


@pytest.fixture
def s3_store(s3_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A store root ``s3://<fresh bucket>/league`` on the test server, with the AWS environment
    pointing at it and this host's copies under ``tmp_path``."""
    use_test_server(monkeypatch, s3_endpoint, tmp_path / "host-a")
    return f"s3://{new_bucket()}/league"
