"""The user's cache folder and the one way a kept file is written into it.

The memos that spare a one-trace command its start-up work (genai-prices' answers:
:mod:`ctxviewer.tokens.price_memo`; the scanner prefilter's state:
:mod:`ctxviewer.assess.scanner.prefilter_memo`; the plug-in entry points:
:mod:`ctxviewer.util.entry_point_memo`) each keep one file in :func:`cache_dir`. No Qt here.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_dir() -> Path:
    """The cache folder: ``$CTXVIEWER_CACHE_DIR``, else ``$XDG_CACHE_HOME/ctxviewer``, else
    ``~/.cache/ctxviewer`` (the XDG Base Directory Specification's ``$XDG_CACHE_HOME``)."""
    own = os.environ.get("CTXVIEWER_CACHE_DIR")
    if own:
        return Path(own)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "ctxviewer" if xdg else Path.home() / ".cache" / "ctxviewer"


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
