"""A store root on S3-compatible object storage: its URI, the client, and what lies under it.

A root ``s3://bucket/prefix`` holds the same layout as a store folder (``pipelines.storage.layout``),
one object per file. The client is boto3's, configured only by the standard AWS environment
(``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``/``AWS_SESSION_TOKEN`` or ``AWS_PROFILE``,
``AWS_REGION``, ``AWS_ENDPOINT_URL`` for a server other than AWS: MinIO, Ceph, R2, moto) or the
machine's role: nothing of it is stored or passed on the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

SCHEME = "s3://"
S3Client: TypeAlias = Any
"""boto3's S3 client (boto3 ships no type hints)."""


class ObjectStoreError(ValueError):
    """An object-storage root that cannot be used (malformed URI, missing bucket, lost lease)."""


@dataclass(frozen=True, slots=True)
class RemoteRoot:
    """The store root ``s3://bucket/prefix`` (``prefix`` without slashes at either end; may be empty)."""

    bucket: str
    prefix: str

    @classmethod
    def parse(cls, uri: str) -> RemoteRoot:
        """The root named by ``uri`` (``s3://bucket`` or ``s3://bucket/some/prefix``)."""
        if not uri.startswith(SCHEME):
            raise ObjectStoreError(f"store {uri!r}: an object-storage store is s3://bucket/prefix")
        bucket, _, prefix = uri.removeprefix(SCHEME).partition("/")
        if not bucket:
            raise ObjectStoreError(f"store {uri!r}: no bucket (expected s3://bucket/prefix)")
        return cls(bucket, prefix.strip("/"))

    def __str__(self) -> str:
        return f"{SCHEME}{self.bucket}/{self.prefix}" if self.prefix else f"{SCHEME}{self.bucket}"

    def key(self, relative: str) -> str:
        """The object key of the store's file ``relative`` (a POSIX path under the root)."""
        return f"{self.prefix}/{relative}" if self.prefix else relative

    def relative(self, key: str) -> str:
        """The store path of object ``key`` (the inverse of :meth:`key`)."""
        return key[len(self.prefix) + 1:] if self.prefix else key


def remote_root(store: str | Path) -> RemoteRoot | None:
    """The object-storage root ``store`` names, None for a local folder.

    A command-line ``--store s3://bucket/prefix`` arrives as a :class:`~pathlib.Path`, which folds
    the double slash (``s3:/bucket/prefix``); both spellings name the same root.
    """
    text = str(store)
    if text.startswith(SCHEME):
        return RemoteRoot.parse(text)
    if isinstance(store, Path) and store.parts and store.parts[0] == "s3:":
        return RemoteRoot.parse(SCHEME + "/".join(store.parts[1:]))
    return None


def client() -> S3Client:
    """An S3 client configured by the standard AWS environment (see the module's docstring)."""
    import boto3

    return boto3.client("s3")


@dataclass(frozen=True, slots=True)
class RemoteObject:
    """One object under a root: its store path, size and ETag (which changes with its content)."""

    relative: str
    size: int
    etag: str


def list_objects(s3: S3Client, root: RemoteRoot, under: str = "") -> dict[str, RemoteObject]:
    """Every object of ``root`` whose store path starts with ``under``, by store path."""
    prefix = root.key(under) if under else (f"{root.prefix}/" if root.prefix else "")
    out: dict[str, RemoteObject] = {}
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=root.bucket, Prefix=prefix)
    for page in pages:
        for item in page.get("Contents", []):
            relative = root.relative(item["Key"])
            out[relative] = RemoteObject(relative, item["Size"], item["ETag"])
    return out


def require_bucket(s3: S3Client, root: RemoteRoot) -> None:
    """Raise :class:`ObjectStoreError` when ``root``'s bucket does not exist or cannot be reached."""
    from botocore.exceptions import ClientError

    try:
        s3.head_bucket(Bucket=root.bucket)
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "?")
        raise ObjectStoreError(
            f"store {root}: bucket {root.bucket!r} cannot be used ({code}); create it, or check "
            "AWS_ENDPOINT_URL and the credentials in the environment"
        ) from None
