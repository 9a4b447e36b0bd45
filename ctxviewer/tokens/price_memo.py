"""genai-prices' answers kept on disk, so a one-trace command does not import the library again.

``ctxviewer show``, ``check`` and ``whatif`` ask genai-prices a handful of questions about one
trace -- the installed version, the data date, a model's context window, a call's price -- and
importing the library to answer them (its pydantic types and 1.6 MB of data) costs about 0.1 to
0.2 s, more than the rest of the question. Each answer is a pure function of the installed
package's data, so :func:`answer` keeps them in one JSON file, :data:`FILE_NAME` in the cache folder
(:func:`ctxviewer.util.user_cache.cache_dir`: ``$CTXVIEWER_CACHE_DIR``, else ``$XDG_CACHE_HOME/ctxviewer``, else ``~/.cache/ctxviewer``), under the
identity of the installed package and of ctxviewer's own pricing code (the path, size and
modification time of :data:`IDENTITY_FILES` and :data:`OWN_FILES`, read with ``os.stat`` without
importing anything). A file of another identity
(an upgraded package), or one that cannot be read, is ignored and replaced: an answer is never
taken from other data than the installed one.

The file holds at most :data:`MAX_ENTRIES` answers (the oldest go first). New answers are written
once, when the process exits, merged with the file as it is then and renamed into place (no reader
sees half a file; two processes writing at once lose at most some answers). ``CTXVIEWER_PRICE_MEMO=0``
turns the memo off (the test suite does, except the memo's own tests). Nothing leaves the machine.
No Qt here.
"""

from __future__ import annotations

import atexit
import json
import os
import tempfile
import threading
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Callable

from ctxviewer.util.user_cache import cache_dir

FILE_NAME = "genai-prices-memo.json"
"""The memo's file in the cache folder."""

MAX_ENTRIES = 2_000
"""Most answers kept (a price answer is about 200 bytes: the file stays near 400 KB, read in a few
ms; a bulk import's prices would otherwise fill it to megabytes that every ``show`` parses)."""

IDENTITY_FILES = ("__init__.py", "data.py", "data_snapshot.py", "types.py")
"""The files of the ``genai_prices`` package whose path, size and modification time identify the
installed data."""

OWN_FILES = ("price_memo.py", "cost.py", "catalogue.py", "price_rates.py", "model_names.py", "price_library.py")
"""ctxviewer's own modules that shape an answer (the names a model is looked up by, the provider
ids, the arithmetic, the words of a reason): a change to any of them is another identity too."""

_lock = threading.Lock()
_state: dict[str, Any] = {}  # "identity", "entries" (read once), "new" (added by this process)


def enabled() -> bool:
    """False when ``CTXVIEWER_PRICE_MEMO`` is ``0`` (or ``off``, ``false``, ``no``)."""
    return os.environ.get("CTXVIEWER_PRICE_MEMO", "1").strip().lower() not in ("0", "off", "false", "no")


def identity() -> list[Any] | None:
    """``[path, [size, mtime_ns] per IDENTITY_FILES and OWN_FILES file]``: the installed genai-prices
    and ctxviewer's pricing code; ``None`` when genai-prices is not installed or a file cannot be read."""
    try:
        spec = find_spec("genai_prices")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    folder = Path(spec.origin).parent
    own = Path(__file__).parent
    try:
        stats = [os.stat(folder / name) for name in IDENTITY_FILES] + [os.stat(own / name) for name in OWN_FILES]
    except OSError:
        return None
    return [str(folder), [[s.st_size, s.st_mtime_ns] for s in stats]]


def _entries() -> dict[str, Any] | None:
    """The answers of the installed identity (read once per process), or ``None`` when off."""
    if "entries" in _state:
        kept: dict[str, Any] | None = _state["entries"]
        return kept
    ident = identity() if enabled() else None
    entries: dict[str, Any] | None = None
    if ident is not None:
        entries = {}
        try:
            doc = json.loads((cache_dir() / FILE_NAME).read_text(encoding="utf-8"))
            if isinstance(doc, dict) and doc.get("identity") == ident and isinstance(doc.get("entries"), dict):
                entries = doc["entries"]
        except (OSError, ValueError):
            pass
    _state.update(identity=ident, entries=entries, new={})
    return entries


def answer(key: str, compute: Callable[[], Any]) -> Any:
    """The kept answer to ``key`` (``"window\\x1fopenai\\x1fgpt-4o"``...), else ``compute()`` --
    a JSON value -- kept for the next process. With the memo off or genai-prices not installed,
    just ``compute()``. Exceptions of ``compute`` propagate and keep nothing."""
    with _lock:
        entries = _entries()
        if entries is not None and key in entries:
            return entries[key]
    value = compute()
    with _lock:
        if entries is not None:
            entries[key] = value
            if not _state["new"]:
                atexit.register(flush)
            _state["new"][key] = value
    return value


def flush() -> None:
    """Write this process's new answers into the file (module docstring). Never raises: a memo
    that cannot be written is only not kept."""
    with _lock:
        new, ident = _state.get("new"), _state.get("identity")
        if not new or ident is None:
            return
        folder = cache_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            try:
                doc = json.loads((folder / FILE_NAME).read_text(encoding="utf-8"))
                kept = doc["entries"] if isinstance(doc, dict) and doc.get("identity") == ident else {}
            except (OSError, ValueError, KeyError, TypeError):
                kept = {}
            merged = {k: v for k, v in kept.items() if k not in new} if isinstance(kept, dict) else {}
            merged.update(new)
            if len(merged) > MAX_ENTRIES:
                merged = dict(list(merged.items())[len(merged) - MAX_ENTRIES:])
            fd, tmp = tempfile.mkstemp(prefix=".memo-", dir=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump({"identity": ident, "entries": merged}, out, ensure_ascii=False, separators=(",", ":"))
                os.replace(tmp, folder / FILE_NAME)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except (OSError, TypeError, ValueError):
            return
        _state["new"] = {}


def reset() -> None:
    """Forget what this process read and added (for tests: the next :func:`answer` reads the file again)."""
    with _lock:
        _state.clear()
