"""The rule patterns' compiled engine code, made once at build time and shipped as a resource.

Compiling a scanner pattern (``re.compile``: parsing it, then generating the engine's code, both in
Python) costs 0.1--5 ms; the ~40 patterns a trace's texts give candidates for took about 40 ms of
every ``ctxviewer show --json``. The code the compiler generates is a pure function of the pattern,
its flags and the Python release, so this module stores it, with the groups the pattern defines,
in ``ctxviewer/resources/scanner_compiled.json`` (zlib-compressed, base64) and :func:`compile_pattern`
hands it straight to the engine (``_sre.compile``, the call ``re.compile`` ends with): the same
pattern object -- ``==`` to ``re.compile``'s, which compares the code word by word -- in a few
microseconds.

The table carries a fingerprint: the Python version (``major.minor.micro``), the engine's
``MAGIC`` and code-word size. A table whose fingerprint differs from the running Python's, a
pattern not in it, or an unreadable table means ``re.compile`` as before: slower, never different.
Regenerate it with the start-set table after changing a pattern::

    python -m ctxviewer.assess.scanner.start_table_build

``tests/scanner/test_compiled_cache.py`` fails while the shipped table is not current. No Qt here.
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
from re import _compiler, _parser  # type: ignore[attr-defined]
from typing import Any, Iterable

from ctxviewer.util import assets

RESOURCE = "scanner_compiled.json"
"""Name of the table in ``ctxviewer.resources``."""


def fingerprint() -> str:
    """What a table must have been built by to be used: this Python release and its engine."""
    v = sys.version_info
    return f"python {v[0]}.{v[1]}.{v[2]}; sre magic {_sre.MAGIC}; code size {_sre.CODESIZE}"


def _key(pattern: str, flags: int) -> str:
    return f"{int(flags)}:{pattern}"


def _parts(pattern: str, flags: int) -> tuple[int, list[int], int, dict[str, int]]:
    """What ``re.compile(pattern, flags)`` hands the engine: flags, code, groups, group index."""
    tree = _parser.parse(pattern, flags)
    code = _compiler._code(tree, flags)
    return flags | tree.state.flags, list(code), tree.state.groups - 1, dict(tree.state.groupdict)


def build(patterns: Iterable[tuple[str, int]]) -> dict[str, Any]:
    """The JSON-ready table of ``(pattern, flags)`` pairs: ``{"fingerprint": str, "code": base64 of
    the zlib-compressed little-endian code words of every pattern one after another, "patterns":
    {key: [flags, offset, length, groups, {name: index}]}}``."""
    words = array.array("I")
    table: dict[str, Any] = {}
    for pattern, flags in sorted(set(patterns), key=lambda pf: _key(*pf)):
        all_flags, code, groups, index = _parts(pattern, flags)
        table[_key(pattern, flags)] = [all_flags, len(words), len(code), groups, index]
        words.extend(code)
    if sys.byteorder == "big":
        words.byteswap()
    blob = base64.b64encode(zlib.compress(words.tobytes(), 9)).decode("ascii")
    return {"fingerprint": fingerprint(), "code": blob, "patterns": table}


@functools.cache
def shipped() -> tuple[dict[str, list[Any]], array.array[int]] | None:
    """The shipped table decoded, or ``None`` when it is missing, unreadable, or built by another
    Python (then every pattern is compiled by ``re.compile``)."""
    try:
        raw = json.loads(assets.read_text(RESOURCE))
        if raw.get("fingerprint") != fingerprint() or array.array("I").itemsize != _sre.CODESIZE:
            return None
        words = array.array("I")
        words.frombytes(zlib.decompress(base64.b64decode(raw["code"])))
        if sys.byteorder == "big":
            words.byteswap()
        return dict(raw["patterns"]), words
    except (OSError, ValueError, KeyError, TypeError, AttributeError, zlib.error):
        return None


def group_count(pattern: str, flags: int = 0) -> int:
    """``re.compile(pattern, flags).groups`` -- from the shipped table when it holds the pattern
    (no parse: a scout's rest is a few hundred characters), else compiled now. Raises
    ``re.error`` for a bad pattern."""
    table = shipped()
    entry = table[0].get(_key(pattern, flags)) if table is not None else None
    return int(entry[3]) if entry is not None else re.compile(pattern, flags).groups


def compile_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)`` -- from the shipped code when the table holds the pattern
    (same object by ``==``), else compiled now. Raises ``re.error`` for a bad pattern."""
    table = shipped()
    entry = table[0].get(_key(pattern, flags)) if table is not None else None
    if entry is None:
        return re.compile(pattern, flags)
    all_flags, offset, length, groups, index = entry
    indexgroup: list[str | None] = [None] * (groups + 1)
    for name, i in index.items():
        indexgroup[i] = name
    code = table[1][offset:offset + length].tolist()  # type: ignore[index]
    compiled: re.Pattern[str] = _sre.compile(pattern, all_flags, code, groups, dict(index), tuple(indexgroup))
    return compiled
