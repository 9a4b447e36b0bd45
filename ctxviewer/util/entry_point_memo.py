"""Whether any installed distribution has ctxviewer plug-ins, remembered between processes.

Looking plug-ins up (:func:`importlib.metadata.entry_points`, :mod:`ctxviewer.util.plugins`)
imports :mod:`importlib.metadata` (with :mod:`email` and :mod:`csv`: ~15 ms) and reads the
metadata of every distribution on ``sys.path`` (~5 ms per group for ~100 distributions): about
25 ms of every ``ctxviewer show``, for plug-ins that are most often not installed. What it finds
changes only when a distribution is installed, upgraded or removed, and every one of those adds or
removes an entry of a ``sys.path`` folder -- the ``.dist-info`` folder -- which changes that folder's
modification time (checked with pip 24 on Linux/ext4: installing, upgrading, force-reinstalling and
uninstalling a wheel with an entry point each changed ``site-packages``' ``st_mtime_ns``).

So :func:`known_empty` keeps, in :data:`FILE_NAME` in the cache folder
(:func:`ctxviewer.util.user_cache.cache_dir`), the entry points found in ctxviewer's groups (:data:`GROUPS`), under
the identity of the search -- this Python, ``sys.path`` as it is and the modification time of each
of its entries (:func:`identity`; not written while one of them changed in the last :data:`RACY_NS`) -- and says a group is empty only from a file of the running
identity. A group with entry points is always looked up anew (the memo only spares the look-up
that finds nothing). Not seen: an ``entry_points.txt`` edited by hand inside an installed
distribution (no install changes a folder); reinstall it, or set ``CTXVIEWER_ENTRY_POINT_MEMO=0``
(off; the test suite does, except this module's own tests). Nothing leaves the machine. No Qt here.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any

from ctxviewer.util.user_cache import cache_dir, install_name, write_atomic

FILE_NAME = install_name("entry-points", "json")
"""The memo's file in the cache folder, one per installation (:func:`~ctxviewer.util.user_cache.install_name`; a few hundred bytes)."""

GROUPS = ("ctxviewer.importers", "ctxviewer.checks", "ctxviewer.scanner_rules")
"""The entry-point groups kept: ctxviewer's own (:mod:`ctxviewer.util.plugins`' table)."""

_lock = threading.Lock()
_state: dict[str, Any] = {}  # "groups": what this process read or found (None: off or unknown)


def enabled() -> bool:
    """False when ``CTXVIEWER_ENTRY_POINT_MEMO`` is ``0`` (or ``off``, ``false``, ``no``)."""
    return os.environ.get("CTXVIEWER_ENTRY_POINT_MEMO", "1").strip().lower() not in ("0", "off", "false", "no")


def identity() -> list[Any]:
    """``[1, python version, [[entry, st_mtime_ns or None], ...] per sys.path entry]`` (``""`` is
    the current folder; ``None``: it cannot be read)."""
    stamps: list[list[Any]] = []
    for entry in sys.path:
        try:
            stamps.append([entry, os.stat(entry or ".").st_mtime_ns])
        except (OSError, TypeError, ValueError):
            stamps.append([str(entry), None])
    return [1, list(sys.version_info[:3]), stamps]


def _found() -> dict[str, list[list[str]]]:
    """Every group of :data:`GROUPS` on ``sys.path`` now: ``{group: [[name, value], ...]}``."""
    from importlib.metadata import entry_points

    return {group: [[ep.name, ep.value] for ep in entry_points(group=group)] for group in GROUPS}


RACY_NS = 2_000_000_000
"""A folder modified less than this long ago (ns: 2 s) is not remembered: a file system stamps a
change with a coarse clock (one kernel tick, ~4 ms), so a second change within the same tick --
an install still running -- would not change the time again (git's "racy" index entries)."""


def _racy(ident: list[Any]) -> bool:
    now = time.time_ns()
    return any(stamp is not None and stamp > now - RACY_NS for _entry, stamp in ident[2])


def _groups() -> dict[str, list[list[str]]] | None:
    """The groups of the running identity (read or found once per process), ``None`` when off."""
    if "groups" in _state:
        kept: dict[str, list[list[str]]] | None = _state["groups"]
        return kept
    groups = None
    if enabled():
        ident = identity()  # before the look-up: an install meanwhile is another identity next time
        try:
            doc = json.loads((cache_dir() / FILE_NAME).read_text(encoding="utf-8"))
            if isinstance(doc, dict) and doc.get("identity") == ident and isinstance(doc.get("groups"), dict):
                groups = doc["groups"]
        except (OSError, ValueError):
            pass
        if groups is None:
            groups = _found()
            if not _racy(ident):
                try:
                    write_atomic(FILE_NAME, json.dumps({"identity": ident, "groups": groups}, ensure_ascii=False).encode("utf-8"))
                except OSError:
                    pass
    _state["groups"] = groups
    return groups


def known_empty(group: str) -> bool:
    """True when no distribution on ``sys.path`` has entry points in ``group`` (one of
    :data:`GROUPS`), by the memo of the running identity; False when it has some, the memo is off,
    or the group is not one of :data:`GROUPS` (then look them up). Never raises for a bad file."""
    if group not in GROUPS:
        return False
    with _lock:
        groups = _groups()
    return groups is not None and not groups.get(group)


def reset() -> None:
    """Forget what this process read (for tests, and a host that installed a plug-in while running)."""
    with _lock:
        _state.clear()
