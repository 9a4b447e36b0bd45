"""The prefilter's start sets, derived once at build time and shipped as a resource.

Deriving every rule pattern's start set (:func:`ctxviewer.assess.scanner.start_sets.start_literals`) and
line-start guard reads about ninety syntax trees and takes 0.3--0.7 s, paid by the first long text
of every process (``ctxviewer show``, the first selected trace). Both are pure functions of the
pattern text and flags, so this module stores them in ``ctxviewer/resources/scanner_start_sets.json``
and the prefilter looks a pattern up there before deriving anything.

The table is keyed by ``"<flags>:<pattern text>"`` and carries a fingerprint: the Python version
(``re._parser`` differs between releases) and the sha256 of ``start_sets.py`` and ``case_fold.py`` (the derivation). A
table whose fingerprint differs from the running code is ignored and every set is derived as
before, so a stale table costs time, never a missed hit. Regenerate it after changing a pattern or
the prefilter::

    python -m ctxviewer.assess.scanner.start_table_build

``tests/scanner/test_start_table.py`` fails while the shipped table is not current. No Qt here.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Iterable

from ctxviewer.assess.scanner import case_fold, start_sets
from ctxviewer.util import assets

RESOURCE = "scanner_start_sets.json"
"""Name of the table in ``ctxviewer.resources``."""

Entry = tuple[frozenset[start_sets.Start] | None, tuple[str, ...] | None]
"""A pattern's start set and line-start guard (each ``None`` when it has none)."""


def key(pattern: start_sets.PatternLike) -> str:
    """The table key of ``pattern``: its flags and text (what the derivation reads)."""
    return f"{int(pattern.flags)}:{pattern.pattern}"


def fingerprint() -> str:
    """Python ``major.minor`` and the sha256 of the derivation's source (:mod:`.start_sets`, :mod:`.case_fold`): what a
    table must match to be used."""
    source = Path(start_sets.__file__).read_bytes() + Path(case_fold.__file__).read_bytes()
    return f"python {sys.version_info[0]}.{sys.version_info[1]}; start_sets sha256 {hashlib.sha256(source).hexdigest()}"


def built_for_this_python() -> bool:
    """Whether the shipped table was built by this Python ``major.minor`` (the first part of its
    fingerprint). On another Python it is ignored and every set is derived at run time -- slower,
    never wrong -- and the tests that the table is current skip instead of failing."""
    try:
        shipped_print = str(json.loads(assets.read_text(RESOURCE)).get("fingerprint", ""))
    except (OSError, ValueError, AttributeError):
        return False
    return shipped_print.split(";")[0] == fingerprint().split(";")[0]


def derive(pattern: start_sets.PatternLike) -> Entry:
    """``pattern``'s start set and guard, derived now (the guard only where there is a start set)."""
    spec = start_sets.start_literals(pattern)
    return spec, (start_sets.line_start_guard(pattern) if spec is not None else None)


def build(patterns: Iterable[start_sets.PatternLike]) -> dict[str, Any]:
    """The JSON-ready table of ``patterns``: ``{"fingerprint": str, "patterns": {key: {"starts":
    [[literal, shift], ...] | null, "guard": [literal, ...] | null}}}``, literals sorted."""
    table: dict[str, Any] = {}
    for pattern in patterns:
        spec, guard = derive(pattern)
        table[key(pattern)] = {
            "starts": None if spec is None else sorted([lit, shift] for lit, shift in spec),
            "guard": None if guard is None else list(guard),
        }
    return {"fingerprint": fingerprint(), "patterns": dict(sorted(table.items()))}


@functools.cache
def shipped() -> dict[str, Entry]:
    """The shipped table decoded, or ``{}`` when it is missing, unreadable or its fingerprint is
    not the running code's (then every set is derived)."""
    try:
        raw = json.loads(assets.read_text(RESOURCE))
        if raw.get("fingerprint") != fingerprint():
            return {}
        out: dict[str, Entry] = {}
        for k, v in raw["patterns"].items():
            starts = v["starts"]
            guard = v["guard"]
            out[k] = (None if starts is None else frozenset((str(lit), int(shift)) for lit, shift in starts),
                      None if guard is None else tuple(str(g) for g in guard))
        return out
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def lookup(pattern: start_sets.PatternLike) -> Entry:
    """``pattern``'s start set and guard: from the shipped table when it holds them, else derived."""
    try:
        return shipped()[key(pattern)]
    except KeyError:
        return derive(pattern)
