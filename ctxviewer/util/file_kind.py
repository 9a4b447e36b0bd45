"""What a file is before it is read: a FIFO, a device or a directory, or too large to read whole;
and the shell words of the commands a message suggests (:func:`shell_word`, :func:`suggested_database`).

The hint for a trace file given where a trace database was expected is
:mod:`ctxviewer.pipeline.hints` (it asks the importers what the file looks like). No Qt here.
"""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

MAX_READ_BYTES = 64 * 1024 * 1024
"""Largest file ``scan`` and ``tokens`` read whole into memory (64 MiB; ``tokens`` needs about 16x
the file size while counting). Bigger files are refused before reading (``scan /dev/zero`` grew to 22 GB)."""


class InputFileError(ValueError):
    """An input file that is not read: the message names the file and says why and what to do."""


def special_kind(mode: int) -> str | None:
    """What a non-regular file is (``"a FIFO (named pipe)"``, ``"a device"``, ``"a socket"``,
    ``"a directory"``) from its ``st_mode``; ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


BINARY_KINDS: tuple[tuple[bytes, str], ...] = (
    (b"SQLite format 3\x00", "an SQLite database (a trace database? `ctxviewer check DB` scans its traces)"),
    (b"PK\x03\x04", "a zip archive (an Inspect AI .eval log? `ctxviewer import FILE -o DB` reads it)"),
    (b"\x1f\x8b", "gzip-compressed data (`ctxviewer import` reads a gzipped trace file)"),
)
"""Leading bytes of binary files a user may hand a text reader by mistake -> what to say instead of
"not UTF-8 text"."""


def binary_kind(head: bytes) -> str | None:
    """What the binary file starting with ``head`` is, in words with the command that reads it
    (:data:`BINARY_KINDS`), or ``None`` when its start is none of them."""
    for magic, words in BINARY_KINDS:
        if head.startswith(magic):
            return words
    return None


def check_readable(path: str | Path, what: str, max_bytes: int = MAX_READ_BYTES) -> None:
    """Refuse to read ``path`` whole when it is not a regular file (a FIFO would block forever, a
    device such as ``/dev/zero`` never ends) or is larger than ``max_bytes`` (bytes).

    ``what`` names the reader in the message (``"scan"``). Raises :class:`InputFileError`, e.g.
    ``"x: is a FIFO (named pipe), not a regular file; give a file"`` or ``"big.txt: is
    70,000,000 bytes; scan reads at most 67,108,864 bytes (64 MiB); split the file"``. A missing
    or unreadable file is left to the reader's own error."""
    try:
        st = os.stat(path)
    except OSError:
        return
    kind = special_kind(st.st_mode)
    if kind is not None:
        raise InputFileError(f"{path}: is {kind}, not a regular file; give a file")
    if st.st_size > max_bytes:
        raise InputFileError(f"{path}: is {st.st_size:,} bytes; {what} reads at most {max_bytes:,} bytes "
                             f"({max_bytes // (1024 * 1024)} MiB); split the file")


def shell_word(text: str) -> str:
    """``text`` as one word for a POSIX shell that a user can copy and paste: ``shlex.quote`` when
    every character is visible; otherwise bash's ``$'...'`` with each invisible or control
    character (line breaks and tabs too, :func:`ctxviewer.util.visible.one_line`'s set) written as an
    escape (``$'evil\\x1b[31m\\u202egol.jsonl\\nnew'``), so the command shows what it names and
    still names it (a revealed name named a file that does not exist)."""
    from ctxviewer.util.visible import one_line

    if one_line(text) == text:
        return shlex.quote(text)
    out = []
    for ch in text:
        if one_line(ch) == ch and ch not in "\\'":
            out.append(ch)
        elif ch in "\\'":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif 0xDC80 <= ord(ch) <= 0xDCFF:  # a byte of a name that is not UTF-8 (surrogateescape)
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        elif ord(ch) < 0x10000:  # bash writes \u as UTF-8; \x80-\xff would be lone bytes
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return "$'" + "".join(out) + "'"


def suggested_database(path: str | Path) -> str:
    """The database name offered for importing ``path``: its name up to the first dot, plus
    ``.db``, in the same folder (``spans.otlp.json`` -> ``spans.db``; ``x/traces.jsonl`` ->
    ``x/traces.db``); ``NAME.traces.db`` when that is ``path`` itself (a trace file named
    ``t.db``: never the file it reads as the one it writes)."""
    p = Path(path)
    stem = p.name.split(".", 1)[0] or p.name
    out = p.with_name(f"{stem}.db")
    return str(p.with_name(f"{stem}.traces.db") if out.name == p.name else out)
