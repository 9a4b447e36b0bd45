"""The rule patterns' compiled engine code, built once and shipped as a resource.

Compiling one of the scanner's large case-insensitive patterns (``re.compile``: parse, then
generate the engine's code) takes about a millisecond; the first scan of a process compiled dozens
of them, most of a cold ``ctxviewer show`` (issue 11). The engine's code is a pure function of the
pattern text, the flags and the Python release, so this module stores, per rule pattern, what
``re._compiler.compile`` hands to ``_sre.compile`` (final flags, code words, groups, group names)
in ``ctxviewer/resources/scanner_regex_code.json``, and :func:`compile` builds the pattern object
from it. Such a pattern is *equal* to ``re.compile(pattern, flags)`` (``re.Pattern.__eq__``
compares the pattern text, the flags and every code word), so every match is the engine's own.

The table carries a fingerprint: the exact Python version, the engine's ``MAGIC`` and code word
size and the byte order. A table whose fingerprint is not the running interpreter's is ignored,
and so is an entry that does not build: :func:`compile` then calls ``re.compile`` as before, so a
stale table costs time, never a different match. Regenerate it (with the start-set table) after
changing a pattern or the Python version::

    python -m ctxviewer.scanner.start_table

``tests/scanner/test_code_table.py`` fails while the shipped table is not current. No Qt here.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]
import array
import base64
import functools
import json
import re
import sys
import zlib
from importlib import import_module
from re import _parser
from typing import Any, Iterable

_compiler: Any = import_module("re._compiler")  # the engine's code generator (no stub)

RESOURCE = "scanner_regex_code.json"
"""Name of the table in ``ctxviewer.resources``."""

_WORD = "I"
"""``array`` type code of one engine code word (unsigned, ``_sre.CODESIZE`` bytes)."""


def key(pattern: str, flags: int) -> str:
    """The table key of a pattern: ``"<flags>:<pattern text>"``, the flags as given to ``re.compile``."""
    return f"{int(flags)}:{pattern}"


def fingerprint() -> str:
    """What a table must match to be used: the Python version, the engine's ``MAGIC``, its code
    word size and the byte order (the stored words are native)."""
    v = sys.version_info
    return f"python {v[0]}.{v[1]}.{v[2]}; sre magic {_sre.MAGIC}; codesize {_sre.CODESIZE}; {sys.byteorder}-endian"


def program(pattern: str, flags: int) -> dict[str, Any]:
    """What ``re._compiler.compile`` passes to ``_sre.compile`` for ``pattern``: ``{"flags": int,
    "groups": int, "groupindex": {name: int}, "code": str}`` (code: base64 of the zlib-compressed
    native words). Raises ``re.error`` for a bad pattern."""
    tree = _parser.parse(pattern, flags)
    code = _compiler._code(tree, flags)
    words = array.array(_WORD, code).tobytes()
    return {"flags": int(flags) | tree.state.flags, "groups": tree.state.groups - 1,
            "groupindex": dict(tree.state.groupdict),
            "code": base64.b64encode(zlib.compress(words, 9)).decode("ascii")}


def build(patterns: Iterable[tuple[str, int]]) -> dict[str, Any]:
    """The JSON-ready table of ``(pattern text, flags)`` pairs: ``{"fingerprint": str, "patterns":
    {key: program}}``, keys sorted."""
    table = {key(p, f): program(p, f) for p, f in patterns}
    return {"fingerprint": fingerprint(), "patterns": dict(sorted(table.items()))}


@functools.cache
def shipped() -> dict[str, dict[str, Any]]:
    """The shipped table's programs by key, or ``{}`` when it is missing, unreadable or its
    fingerprint is not the running interpreter's."""
    from ctxviewer import assets

    if array.array(_WORD).itemsize != _sre.CODESIZE:
        return {}
    try:
        raw = json.loads(assets.read_text(RESOURCE))
        if raw.get("fingerprint") != fingerprint():
            return {}
        return dict(raw["patterns"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _from_program(pattern: str, entry: dict[str, Any]) -> re.Pattern[str]:
    words = array.array(_WORD)
    words.frombytes(zlib.decompress(base64.b64decode(entry["code"])))
    groups = int(entry["groups"])
    groupindex = {str(k): int(v) for k, v in entry["groupindex"].items()}
    indexgroup: list[str | None] = [None] * (groups + 1)
    for name, i in groupindex.items():
        indexgroup[i] = name
    compiled: re.Pattern[str] = _sre.compile(pattern, int(entry["flags"]), words.tolist(), groups, groupindex,
                                             tuple(indexgroup))
    return compiled


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``: built from the shipped code when the table holds ``pattern``
    with these flags (an equal pattern object), else compiled now. Raises ``re.error`` for a bad
    pattern that is not in the table."""
    entry = shipped().get(key(pattern, flags))
    if entry is not None:
        try:
            return _from_program(pattern, entry)
        except (ValueError, TypeError, KeyError, RuntimeError, zlib.error, OverflowError):
            pass  # a damaged entry: compile as usual
    return re.compile(pattern, flags)
