"""gzip-compressed trace files, decompressed within a bound.

A plain file holds what its size says; a gzip file can expand a thousandfold (a few MiB of zeros
become GiB: a decompression bomb), so every gzip reader of the importers stops at
:data:`MAX_GUNZIPPED_BYTES` -- whole (:func:`gunzip`) or streamed (:func:`capped_gzip`) -- and
refuses the file naming it (:func:`too_big`); a sniffer's head stops at :data:`HEAD_GUNZIPPED_BYTES`.
gzip is RFC 1952 (magic ``1f 8b``; members may follow one another). No Qt here.
"""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path
from typing import IO, Any

from ctxviewer.importers.contract import ImportFailed

GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of gzip data (RFC 1952 ID1 ID2)."""

MAX_GUNZIPPED_BYTES = 1024 * 1024 * 1024
"""Most bytes a gzipped file is decompressed to (1 GiB), read whole or streamed: a plain file's
size is what it holds, a gzip file's is not (a few MiB of zeros expand a thousandfold: a
decompression bomb). Beyond it the file is refused, naming it (:func:`too_big`)."""

HEAD_GUNZIPPED_BYTES = 16 * 1024 * 1024
"""Most bytes :func:`head_bytes` decompresses a gzipped head to for sniffing (16 MiB, the largest
head the registry reads)."""


GUNZIP_STEP = 16 * 1024 * 1024
"""Most bytes :func:`gunzip` decompresses at a time (16 MiB)."""


def too_big(path: Path | str, limit: int | None = None) -> ImportFailed:
    """The error for a gzipped file that decompresses to more than ``limit`` bytes (default
    :data:`MAX_GUNZIPPED_BYTES`)."""
    limit = MAX_GUNZIPPED_BYTES if limit is None else limit
    return ImportFailed(f"{path}: gzip data that decompresses to more than {limit:,} bytes "
                        f"({limit // (1024 * 1024)} MiB), the most ctxviewer reads from a gzipped file "
                        "(a decompression bomb?); gunzip it and import the plain file")


def gunzip(data: bytes, path: Path | str, limit: int | None = None) -> bytes:
    """``data`` (gzip, one member or several) decompressed, at most ``limit`` bytes (:data:`MAX_GUNZIPPED_BYTES`):
    more raises :func:`too_big`'s :class:`ImportFailed` without decompressing further. Raises
    ``EOFError`` for data cut short, ``zlib.error`` / ``OSError`` for data that is not gzip."""
    limit = MAX_GUNZIPPED_BYTES if limit is None else limit
    out = bytearray()
    rest = data
    while rest:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pending = rest
        while not d.eof:  # a step at a time: a refused bomb holds the limit plus one step, not twice the limit
            chunk = d.decompress(pending, min(GUNZIP_STEP, limit + 1 - len(out)))
            out += chunk
            if len(out) > limit:
                raise too_big(path, limit)
            pending = d.unconsumed_tail
            if not chunk and not pending:
                break
        if not d.eof:
            raise EOFError("Compressed file ended before the end-of-stream marker was reached")
        rest = d.unused_data
        if rest and not rest.startswith(GZIP_MAGIC):
            if rest.strip(b"\0"):
                raise OSError("trailing data after the gzip stream is not gzip")
            break
    return bytes(out)


def head_bytes(head: bytes) -> bytes:
    """The first bytes of a file with gzip undone as far as ``head`` reaches (for sniffing; at most
    :data:`HEAD_GUNZIPPED_BYTES`)."""
    if head.startswith(GZIP_MAGIC):
        try:
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, HEAD_GUNZIPPED_BYTES)
        except zlib.error:
            return b""
    return head


def capped_gzip(path: Path) -> IO[bytes]:
    """The gzip file at ``path`` opened for reading decompressed bytes (buffered, seekable as
    ``gzip.open`` is), raising :func:`too_big`'s :class:`ImportFailed` once more than
    :data:`MAX_GUNZIPPED_BYTES` came out. Raises ``OSError`` when it cannot be opened."""
    return io.BufferedReader(_Capped(gzip.open(path, "rb"), path))


class _Capped(io.RawIOBase):
    """A gzip stream that raises :func:`too_big` once more than :data:`MAX_GUNZIPPED_BYTES` came out of it."""

    def __init__(self, inner: Any, path: Path) -> None:  # a gzip.GzipFile
        super().__init__()
        self._inner, self._path, self._count = inner, path, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        pos = int(self._inner.seek(offset, whence))
        self._count = pos
        return pos

    def readinto(self, buffer: Any) -> int:
        data = self._inner.read(len(buffer))
        self._count += len(data)
        if self._count > MAX_GUNZIPPED_BYTES:
            raise too_big(self._path)
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        self._inner.close()
        super().close()
