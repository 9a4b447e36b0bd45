"""The user's cache folder and the one way a kept file is written into it.

The memos that spare a one-trace command its start-up work (genai-prices' answers:
:mod:`ctxviewer.tokens.price_memo`; the scanner prefilter's state:
:mod:`ctxviewer.assess.scanner.prefilter_memo`; the plug-in entry points:
:mod:`ctxviewer.util.entry_point_memo`) each keep one file in :func:`cache_dir`. No Qt here.
"""

from __future__ import annotations

import os
import sys
import tempfile
import zlib
from pathlib import Path


def cache_dir() -> Path:
    """The cache folder: ``$CTXVIEWER_CACHE_DIR``, else ``$XDG_CACHE_HOME/ctxviewer``, else
    ``~/.cache/ctxviewer`` (the XDG Base Directory Specification's ``$XDG_CACHE_HOME``)."""
    own = os.environ.get("CTXVIEWER_CACHE_DIR")
    if own:
        return Path(own)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "ctxviewer" if xdg else Path.home() / ".cache" / "ctxviewer"


def install_name(stem: str, suffix: str) -> str:
    """``"<stem>-<8 hex>.<suffix>"``: a kept file's name for this installation -- a CRC-32 of the
    interpreter's prefix and of the folder ctxviewer is imported from --, so two virtual
    environments or work trees sharing one cache folder keep a file each instead of rebuilding and
    rewriting one file at every switch (each file still checks its identity before it is used)."""
    where = f"{sys.prefix}\0{Path(__file__).resolve().parents[1]}".encode("utf-8", "surrogatepass")
    return f"{stem}-{zlib.crc32(where):08x}.{suffix}"


def write_atomic(name: str, data: bytes) -> None:
    """Write ``data`` as ``name`` in :func:`cache_dir` (made if missing): into a temporary file
    there, then renamed into place, so no reader sees half a file (mode 0600, ``mkstemp``'s).
    Raises :class:`OSError` when the folder or file cannot be written."""
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, folder / name)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
