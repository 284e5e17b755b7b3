"""The writer lock of a store on object storage: a lock object held under a lease.

Why a lock object and not Delta's own commit conflicts: one run of the pipeline writes many
Delta tables and then the commit log; Delta's put-if-absent of a log entry only stops two writers
that reach the *same* version of the *same* table, after both have done their work. The lock
object stops the second writer before it starts, as ``flock`` does for a local folder.

The lock is the object ``state/.lock-writer``, created with ``If-None-Match: *`` (S3 conditional
writes: AWS since 2024, MinIO, Ceph, R2, moto), so of two writers exactly one creates it. Its body
names the holder (host, pid, a random token) and the lease's length; the holder renews it
(``If-Match`` its ETag) every third of the lease, and deletes it (``If-Match``) on release. A
holder that died leaves the object behind: once it is older than its lease by the *server's*
clock (its ``Last-Modified`` against the answer's ``Date``, so no two hosts' clocks are compared),
a waiting writer replaces it (``If-Match`` the stale ETag: of two waiters one wins).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime

from botocore.exceptions import BotoCoreError, ClientError

from pipelines.storage.object_store import ObjectStoreError, RemoteRoot, S3Client

LEASE_KEY = "state/.lock-writer"
"""The lock object's store path (beside the local layout's ``state/.lock``)."""
LEASE_S = 60.0
"""How long a lease lasts without renewal: a crashed holder blocks writers this long at most."""
POLL_S = 2.0
"""How often a waiting writer asks again."""

lease_wait_notices: list[Callable[[str], None]] = []
"""Called with the holder's description (host and pid) when the lock is busy, before waiting."""


class LeaseLostError(ObjectStoreError):
    """The writer's lease was taken over (it was not renewed in time): its work must not be published."""


@dataclass
class Lease:
    """The writer lock of the store at ``root`` (see the module's docstring)."""

    s3: S3Client
    root: RemoteRoot
    seconds: float = LEASE_S
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    _etag: str | None = None
    _lost: bool = False
    _stop: threading.Event = field(default_factory=threading.Event)

    @property
    def key(self) -> str:
        return self.root.key(LEASE_KEY)

    def _body(self) -> bytes:
        return json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "token": self.token,
                           "lease_s": self.seconds}).encode()

    def try_acquire(self) -> str | None:
        """Take the lock if it is free or its lease ran out; None when taken, else the holder."""
        try:
            self._etag = self.s3.put_object(Bucket=self.root.bucket, Key=self.key, Body=self._body(),
                                            IfNoneMatch="*")["ETag"]
            return None
        except ClientError as exc:
            if not _precondition_failed(exc):
                raise
        try:
            head = self.s3.head_object(Bucket=self.root.bucket, Key=self.key)
        except ClientError as exc:
            if _not_found(exc):
                return self.try_acquire()
            raise
        holder = json.loads(self.s3.get_object(Bucket=self.root.bucket, Key=self.key,
                                               IfMatch=head["ETag"])["Body"].read())
        if _age_s(head) < float(holder.get("lease_s", LEASE_S)):
            return f"{holder.get('host', '?')} pid {holder.get('pid', '?')}"
        try:
            self._etag = self.s3.put_object(Bucket=self.root.bucket, Key=self.key, Body=self._body(),
                                            IfMatch=head["ETag"])["ETag"]
            return None
        except ClientError as exc:
            if _precondition_failed(exc) or _not_found(exc):
                return self.try_acquire()
            raise

    def renew(self) -> None:
        """Start the lease anew; :class:`LeaseLostError` when another writer took the lock over."""
        try:
            self._etag = self.s3.put_object(Bucket=self.root.bucket, Key=self.key, Body=self._body(),
                                            IfMatch=self._etag)["ETag"]
        except ClientError as exc:
            if _precondition_failed(exc) or _not_found(exc):
                self._lost = True
                raise LeaseLostError(f"store {self.root}: the writer lease was taken over by another "
                                     "writer (not renewed in time); this writer publishes nothing") from None
            raise

    def check(self) -> None:
        """Renew now, so that the work that follows (publishing) starts under a live lease."""
        if self._lost:
            raise LeaseLostError(f"store {self.root}: the writer lease was lost; this writer "
                                 "publishes nothing")
        self.renew()

    def release(self) -> None:
        """Delete the lock object if it is still this writer's."""
        try:
            self.s3.delete_object(Bucket=self.root.bucket, Key=self.key, IfMatch=self._etag)
        except ClientError as exc:
            if not (_precondition_failed(exc) or _not_found(exc)):
                raise

    @contextmanager
    def hold(self) -> Iterator[Lease]:
        """Hold the lock until the block ends, renewing it meanwhile (waits while another holds it)."""
        holder = self.try_acquire()
        if holder is not None:
            for notice in list(lease_wait_notices):
                notice(holder)
            while holder is not None:
                time.sleep(POLL_S)
                holder = self.try_acquire()
        renewer = threading.Thread(target=self._keep, name="gdan-lease", daemon=True)
        renewer.start()
        try:
            yield self
        finally:
            self._stop.set()
            renewer.join()
            if not self._lost:
                self.release()

    def _keep(self) -> None:
        """Renew every third of the lease until released; a failed renewal is tried again at the
        next, so a brief outage of the object storage costs no lease."""
        while not self._stop.wait(self.seconds / 3):
            try:
                self.renew()
            except LeaseLostError:
                return
            except (ClientError, BotoCoreError):
                continue


def _age_s(head: dict[str, object]) -> float:
    """Seconds since the object was last written, by the server's clock (its answer's ``Date``)."""
    headers = head["ResponseMetadata"]["HTTPHeaders"]  # type: ignore[index]
    now = parsedate_to_datetime(headers["date"])
    return (now - head["LastModified"]).total_seconds()  # type: ignore[operator]


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _precondition_failed(exc: ClientError) -> bool:
    return _code(exc) in {"PreconditionFailed", "412", "ConditionalRequestConflict"}


def _not_found(exc: ClientError) -> bool:
    return _code(exc) in {"404", "NoSuchKey", "NotFound"}
