"""Read the lines of a JSON Lines file as real tools write it, and say exactly where it is damaged.

Used by the ingest step and by ``gdan validate``, so both accept and refuse the same input:

- A UTF-8 byte order mark at the start of a file (Excel, Windows editors) is an encoding
  signature, not part of the first line (events.md "Framing": UTF-8); it is dropped silently.
  Any other bad byte stays in its line, which the caller reports as malformed.
- A line may end with CRLF; the CR is not part of the line. A file whose first read holds CRs
  but no LF (classic Mac OS line ends) has CR-only line ends: each CR ends a line.
- A file in UTF-16 or UTF-32 (with a byte order mark, or recognised by the NUL bytes around its
  first ``{``, as RFC 4627 §3 describes) is decoded to UTF-8 first;
  an undecodable byte stops the reading like damage (:class:`Damage`, naming the encoding), the
  lines before it read. Offsets and prefixes are of the UTF-8 content.
- Only whole lines are read. A last line without a line break may still be being written and
  is left for a later read (``pending``), unless it already is a complete JSON object (a writer
  that omits the final newline): an event is an object, and a cut object never parses.
- A ``.jsonl.gz`` file is decompressed as far as it is readable. Data that is not gzip, corrupt
  or truncated stops the reading with a :class:`Damage` naming the compressed byte position; the
  lines before it are read.
- A read may resume after a prefix read before (a file that grows between runs): the prefix is
  verified against its sha256 first, and when it changed the file is read from its start.
"""

from __future__ import annotations

import codecs
import hashlib
import zlib
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import orjson

BOM = b"\xef\xbb\xbf"
READ_BYTES = 1 << 20
"""Plain bytes read at a time."""
GZIP_READ_BYTES = 1 << 16
"""Compressed bytes fed to the decompressor at a time (the precision of a damage position)."""
GZIP_MAGIC = b"\x1f\x8b"
FRAGMENT_BYTES = 200
"""Bytes of a file that is not gzip shown in its damage report."""


@dataclass(frozen=True, slots=True)
class Resume:
    """How far a file was read before: ``offset`` content bytes holding ``lines`` whole lines."""

    offset: int
    lines: int
    prefix: str
    """sha256 (hex) of the first ``offset`` content bytes."""
    terminated: bool
    """Whether those bytes end with a line break (False: the last line had none but was complete)."""


@dataclass(frozen=True, slots=True)
class Damage:
    """Why a compressed file could not be read to its end, and the readable bytes of the cut line."""

    message: str
    fragment: bytes


class DamagedInputError(Exception):
    """Raised inside the byte stream of a ``.jsonl.gz`` file that cannot be decompressed further."""

    def __init__(self, message: str, fragment: bytes | None = None) -> None:
        super().__init__(message)
        self.fragment = fragment


class LineReader:
    """The whole lines of one file (without line breaks), read once by iterating :meth:`lines_iter`.

    Content bytes are the file's bytes, or for ``gz`` its decompressed bytes. After the
    iteration, ``offset``/``lines``/``prefix``/``terminated`` say how far the file was read (a
    :class:`Resume` for the next read), ``pending`` how many bytes of an unfinished last line
    were left, ``damage`` why a compressed file could not be read to its end, and ``resumed``
    whether the read continued after ``resume`` (False: no resume, or the prefix changed).
    """

    def __init__(self, path: Path, *, gz: bool, resume: Resume | None = None) -> None:
        self.path = path
        self.gz = gz
        self.resume = resume
        self.resumed = False
        self.first_line = 1
        self.offset = 0
        self.lines = 0
        self.prefix = hashlib.sha256().hexdigest()
        self.terminated = True
        self.pending = 0
        self.damage: Damage | None = None
        self._damage_fragment: bytes | None = None
        self._damage_message: str | None = None
        self._skipped = 0

    def lines_iter(self) -> Iterator[bytes]:
        """Yield each whole line once; then the attributes describe the read (see the class)."""
        return chain.from_iterable(self.blocks())

    def blocks(self) -> Iterator[list[bytes]]:
        """The whole lines in runs, one run per read of the file's content (about
        :data:`READ_BYTES`): :meth:`lines_iter` without a step per line for the caller (reading
        the lines one at a time was most of the ingest parent's CPU); then the attributes
        describe the read (see the class)."""
        hasher = hashlib.sha256()
        content = self._content()
        rest = self._skip_prefix(content, hasher) if self.resume is not None else None
        stream: Iterator[bytes] = content
        offset = number = 0
        terminated = True
        if rest is not None and self.resume is not None:
            self.resumed = True
            offset, number = self.resume.offset + self._skipped, self.resume.lines
            terminated = self.resume.terminated or self._skipped > 0
            stream = chain((rest,), stream)
        elif self.resume is not None:
            content.close()
            stream = self._content()
            hasher = hashlib.sha256()
        self.first_line = number + 1
        at_start = offset == 0
        carry = b""
        for chunk in stream:
            data = carry + chunk if carry else chunk
            parts = data.split(b"\n")
            carry = parts.pop()
            whole = len(data) - len(carry)
            if whole:
                hasher.update(memoryview(data)[:whole])
                offset += whole
                terminated = True
            if parts and at_start:
                parts[0], at_start = parts[0].removeprefix(BOM), False
            if b"\r" in data:
                parts = [part.rstrip(b"\r") for part in parts]
            if parts:
                number += len(parts)
                yield parts
        if self._damage_message is not None:
            fragment = carry if self._damage_fragment is None else self._damage_fragment
            self.damage = Damage(self._damage_message, fragment)
        elif carry:
            tail = (carry.removeprefix(BOM) if at_start else carry).rstrip(b"\r")
            if _is_json_object(tail):
                hasher.update(carry)
                offset += len(carry)
                number += 1
                terminated = False
                yield [tail]
            else:
                self.pending = len(carry)
        self.offset, self.lines, self.terminated = offset, number, terminated
        self.prefix = hasher.hexdigest()

    def _content(self) -> Generator[bytes, None, None]:
        """The content bytes in chunks; damage ends the stream and is recorded, never raised."""
        self._damage_message = self._damage_fragment = None
        source = _as_utf8(_gzip_chunks(self.path) if self.gz else _plain_chunks(self.path))
        try:
            yield from source
        except DamagedInputError as exc:
            self._damage_message = str(exc)
            self._damage_fragment = exc.fragment

    def _skip_prefix(self, stream: Iterator[bytes], hasher: hashlib._Hash) -> bytes | None:
        """Consume and verify the prefix read before; the bytes after it, or None when it changed.

        After a last line without a line break, the line break that ends it is skipped too; any
        other byte there means that line was extended, so the prefix changed after all.
        """
        resume = self.resume
        assert resume is not None
        need = resume.offset
        rest = b""
        for chunk in stream:
            if need >= len(chunk):
                hasher.update(chunk)
                need -= len(chunk)
                if need == 0 and resume.terminated:
                    break
                if need:
                    continue
                chunk = b""
            else:
                hasher.update(memoryview(chunk)[:need])
                chunk = chunk[need:]
                need = 0
            rest = chunk
            break
        if need or hasher.copy().hexdigest() != resume.prefix:
            return None
        self._skipped = 0
        if not resume.terminated:
            after = self._line_break_after(stream, rest)
            if after is None:
                return None
            rest = after
            self._skipped = len(b"\r\n") if rest[:2] == b"\r\n" else len(b"\n") if rest[:1] == b"\n" else 0
            hasher.update(rest[: self._skipped])
            rest = rest[self._skipped :]
        return rest

    @staticmethod
    def _line_break_after(stream: Iterator[bytes], rest: bytes) -> bytes | None:
        """``rest`` extended until it shows whether it starts with a line break; None when it does not."""
        while len(rest) < 2 and not rest.startswith(b"\n"):
            chunk = next(stream, None)
            if chunk is None:
                break
            rest += chunk
        if rest in (b"", b"\r") or rest.startswith((b"\n", b"\r\n")):
            return rest
        return None


WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
"""Byte order marks of the encodings other than UTF-8, the longer first (UTF-32 LE's starts
with UTF-16 LE's)."""
WIDE_STARTS = (
    (b"{\x00\x00\x00", "utf-32-le"),
    (b"\x00\x00\x00{", "utf-32-be"),
    (b"{\x00", "utf-16-le"),
    (b"\x00{", "utf-16-be"),
)
"""How a file's first ``{`` looks in those encodings without a byte order mark."""


def sniff_encoding(start: bytes) -> tuple[str, int] | None:
    """The encoding other than UTF-8 that a file starting with ``start`` (4 bytes or all) is in,
    and the length of its byte order mark; None for UTF-8 (or plain ASCII)."""
    for bom, name in WIDE_BOMS:
        if start.startswith(bom):
            return name, len(bom)
    for first, name in WIDE_STARTS:
        if start.startswith(first):
            return name, 0
    return None


_SNIFF_LINE_END = 1 << 20
"""How far the reader looks for the file's first line end to tell CR-only files from CRLF ones."""


def _as_utf8(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """``chunks`` as UTF-8 with LF line ends: decoded when :func:`sniff_encoding` recognises
    UTF-16 or UTF-32, and CR-only line ends (the file's first line end a CR not followed by LF)
    turned into LFs; a CRLF split between two reads is still a CRLF."""
    head = b""
    for chunk in chunks:
        head += chunk
        if len(head) >= 4:
            break
    if not head:
        return
    rest: Iterator[bytes] = chain((head,), chunks)
    sniffed = sniff_encoding(head[:4])
    if sniffed is not None:
        rest = _decoded(rest, *sniffed)
    first = next(rest, b"")
    while b"\n" not in first and first.find(b"\r") in (-1, len(first) - 1) and len(first) < _SNIFF_LINE_END:
        more = next(rest, None)  # no line end seen yet, or a CR at the end that may start a CRLF
        if more is None:
            break
        first += more
    cr_only = b"\r" in first.rstrip(b"\r") and b"\n" not in first
    for chunk in chain((first,), rest):
        yield chunk.replace(b"\r", b"\n") if cr_only else chunk


def _decoded(chunks: Iterator[bytes], encoding: str, bom: int) -> Iterator[bytes]:
    """The UTF-8 of ``chunks`` in ``encoding``, whose first ``bom`` bytes (all in the first
    chunk) are its byte order mark."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    consumed = skip = bom
    for chunk in chunks:
        data, skip = chunk[skip:], 0
        try:
            text = decoder.decode(data)
        except UnicodeDecodeError as exc:
            yield exc.object[: exc.start].decode(encoding).encode("utf-8")
            raise DamagedInputError(_undecodable(encoding, consumed + exc.start, exc)) from None
        consumed += len(data)
        if text:
            yield text.encode("utf-8")
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        raise DamagedInputError(_undecodable(encoding, consumed, exc)) from None


def _undecodable(encoding: str, at: int, exc: UnicodeDecodeError) -> str:
    return (
        f"not valid {encoding.upper()} near byte {at} ({exc.reason}): the file is read as "
        f"{encoding.upper()} (its first bytes say so); the lines before are read"
    )


def _is_json_object(data: bytes) -> bool:
    try:
        return isinstance(orjson.loads(data), dict)
    except orjson.JSONDecodeError:
        return False


def _plain_chunks(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        while chunk := handle.read(READ_BYTES):
            yield chunk


def _gzip_chunks(path: Path) -> Iterator[bytes]:
    """Decompressed bytes of a gzip file (one or more members, zero padding allowed).

    Raises :class:`DamagedInputError` naming the compressed byte position where it stops: data
    that is not gzip, a corrupt or checksum-failing stream, or a stream cut before its end.
    """
    size = path.stat().st_size
    position = 0
    decompressor: zlib._Decompress | None = None
    with open(path, "rb") as handle:
        while data := handle.read(GZIP_READ_BYTES):
            if position == 0 and not data.startswith(GZIP_MAGIC[: len(data)]):
                raise DamagedInputError(
                    f"not gzip data: the file starts with {data[:8]!r}, expected the gzip signature "
                    f"{GZIP_MAGIC!r} (a plain .jsonl file named .gz?)",
                    data[:FRAGMENT_BYTES],
                )
            while data:
                if decompressor is None:
                    stripped = data.lstrip(b"\0")
                    position += len(data) - len(stripped)
                    data = stripped
                    if not data:
                        break
                    decompressor = zlib.decompressobj(wbits=31)
                try:
                    out = decompressor.decompress(data)
                except zlib.error as exc:
                    raise DamagedInputError(
                        f"damaged gzip data in compressed bytes {position}–{position + len(data) - 1} "
                        f"of {size}: {exc}"
                    ) from None
                if out:
                    yield out
                if decompressor.eof:
                    rest = decompressor.unused_data
                    position += len(data) - len(rest)
                    data = rest
                    decompressor = None
                else:
                    position += len(data)
                    data = b""
    if decompressor is not None:
        raise DamagedInputError(
            f"truncated gzip data: the file ends at compressed byte {size} before the end of its "
            "stream (cut off, or still being written)"
        )
