"""The prefilter's learnt state kept on disk, so a one-trace command does not rebuild it.

Before the first scan a process learns every rule pattern's start set (:mod:`.start_table`: the
shipped table decoded into about 30,000 ``(literal, shift)`` pairs) and builds the prefilter's
Aho-Corasick automata over their ~29,000 distinct literals (:meth:`.prefilter._Registry.automaton`):
about 0.13 to 0.2 s of a ``ctxviewer show --json`` that otherwise costs ~0.45 s. All of it is a
pure function of the patterns, the derivation code and pyahocorasick, so :func:`save` keeps it in
one file, :data:`FILE_NAME` in the cache folder (:func:`ctxviewer.util.user_cache.cache_dir`:
``$CTXVIEWER_CACHE_DIR``, else ``$XDG_CACHE_HOME/ctxviewer``, else ``~/.cache/ctxviewer``), and
:func:`restore` reads it back in a few ms.

The file is one JSON header line, then a body: the learnt state as JSON (per pattern, in learning
order, its start-set id, line-start guard and scouts; the start-of-text set; the shared scout
passes' expressions), the literals' lengths and users as flat C ``int`` arrays (:data:`INT`; as
JSON lists of lists they cost ~13 ms to parse and more in collector passes over ~90,000 small
lists), then the two automata as pyahocorasick's own serialised form (the ``bytes`` its ``__reduce__`` gives, handed back to the
``ahocorasick.Automaton`` constructor: what unpickling does, without :mod:`pickle`). The header
holds the :func:`identity` -- this Python, pyahocorasick's extension module (path, size,
modification time), this package's folder, the size and modification time of every module of it and of the
shipped start-set table, and the sha256 of the learnt patterns' keys and own scouts (a plug-in
rule is another identity) -- and the body's CRC-32 (:func:`zlib.crc32`, 1 ms where sha256 took 5:
it catches damage, not forgery). A file of another identity, or whose body does not give its
header's CRC-32 (truncated, damaged), or that cannot be parsed, is ignored: the state is learnt and
built as before and the file replaced. The automata's bytes are parsed by
pyahocorasick's C code, so only a body whose CRC-32 matches is handed to it; the file is ours,
written by this module into the user's own cache folder (whoever can write there can change the
user's programs as well). Written once per identity, to a temporary file renamed into place (no
reader sees half a file). ``CTXVIEWER_PREFILTER_MEMO=0`` turns it off (the test suite does, except
this module's own tests). Nothing leaves the machine. No Qt here.
"""

from __future__ import annotations

import array
import hashlib
import json
import os
import re
import sys
import zlib
from collections.abc import Sequence as SequenceABC
from pathlib import Path
from typing import Any, Iterable, Sequence

import ahocorasick

from ctxviewer.assess.scanner import prefilter
from ctxviewer.assess.scanner.scout import Scout
from ctxviewer.assess.scanner.start_sets import PatternLike
from ctxviewer.assess.scanner.start_table import key as start_key
from ctxviewer.util.user_cache import cache_dir, install_name, write_atomic

FILE_NAME = install_name("scanner-prefilter", "bin")
"""The memo's file in the cache folder, one per installation (:func:`~ctxviewer.util.user_cache.install_name`; about 2.5 MB for the built-in rules)."""

FORMAT = 2
"""The layout of the file; another number is another identity."""

INT = "i"
"""The :mod:`array` type code of the literal lengths and users kept (C ``int``, native byte order:
the byte order is part of the identity)."""

_RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def enabled() -> bool:
    """False when ``CTXVIEWER_PREFILTER_MEMO`` is ``0`` (or ``off``, ``false``, ``no``)."""
    return os.environ.get("CTXVIEWER_PREFILTER_MEMO", "1").strip().lower() not in ("0", "off", "false", "no")


def _own_scout(pattern: PatternLike) -> Any:
    own = getattr(pattern, "scout", None)
    return list(own) if isinstance(own, tuple) else own


def identity(patterns: Sequence[PatternLike]) -> list[Any] | None:
    """``[format, python version, byte order, int size, [path, size, mtime_ns] of pyahocorasick's module,
    this package's folder, [[name, size, mtime_ns] per module of it and the start-set table], sha256 of the
    patterns' keys and own scouts]``; ``None`` when a file cannot be read (then no memo)."""
    try:
        own = sorted((e.name, e.stat()) for e in os.scandir(Path(__file__).parent) if e.name.endswith(".py"))
        own.append(("scanner_start_sets.json", os.stat(_RESOURCES / "scanner_start_sets.json")))
        lib = str(getattr(ahocorasick, "__file__", ""))
        lib_stat = os.stat(lib)
    except OSError:
        return None
    keys = json.dumps([[start_key(p), _own_scout(p)] for p in patterns], ensure_ascii=False)
    return [FORMAT, list(sys.version_info[:3]), sys.byteorder, array.array(INT).itemsize, [lib, lib_stat.st_size, lib_stat.st_mtime_ns],
            str(Path(__file__).parent), [[n, s.st_size, s.st_mtime_ns] for n, s in own], hashlib.sha256(keys.encode("utf-8")).hexdigest()]


def _scout_data(found: Scout | None) -> list[Any] | None:
    if found is None:
        return None
    return [found.regex, found.flags, found.shift, found.folded,
            None if found.begin is None else list(found.begin), None if found.guard is None else list(found.guard)]


def _scout_of(data: list[Any] | None) -> Scout | None:
    if data is None:
        return None
    regex, flags, shift, folded, begin, guard = data
    return Scout(str(regex), int(flags), int(shift), bool(folded), None if begin is None else tuple(begin),
                 None if guard is None else tuple(guard))


class PackedUsers(SequenceABC[list[tuple[int, int]]]):
    """:attr:`.prefilter._Compiled.users` read from the file: per literal id its ``(spec id, d)``
    pairs, made when asked from two flat int arrays (no 29,000 small lists for the collector to walk)."""

    def __init__(self, at: array.array[int], pairs: array.array[int]) -> None:
        self._at, self._pairs = at, pairs  # literal n's pairs are pairs[2*at[n]:2*at[n+1]]

    def __len__(self) -> int:
        return len(self._at) - 1

    def __getitem__(self, n: int) -> list[tuple[int, int]]:  # type: ignore[override]
        if not 0 <= n < len(self._at) - 1:
            raise IndexError(n)
        p = self._pairs
        return [(p[i], p[i + 1]) for i in range(2 * self._at[n], 2 * self._at[n + 1], 2)]


def _ints(values: Iterable[int]) -> bytes:
    return array.array(INT, values).tobytes()


def _automaton_data(automaton: Any, blobs: list[bytes]) -> list[Any] | None:
    """``[number of chunks, other constructor arguments]`` of ``automaton``, its chunks appended
    to ``blobs``; ``None`` when there is none. Raises :class:`ValueError` for a form this module
    does not know."""
    if automaton is None:
        return None
    cls, args = automaton.__reduce__()[:2]
    if cls is not ahocorasick.Automaton or not isinstance(args[0], list) or not all(
            isinstance(b, bytes) for b in args[0]) or not all(a is None or isinstance(a, int) for a in args[1:]):
        raise ValueError("not pyahocorasick's known serialised form")
    blobs.extend(args[0])
    return [len(args[0]), list(args[1:])]


def save(patterns: Sequence[PatternLike]) -> bool:
    """Write the prefilter registry's state -- learnt from nothing over ``patterns``, in this
    order -- into the file (module docstring). Returns whether it was written; never raises (a memo
    that cannot be written is only not kept)."""
    reg = prefilter._REGISTRY
    ident = identity(patterns) if enabled() else None
    if ident is None:
        return False
    try:
        compiled = reg.automaton()
        for group in reg.groups.values():
            group.regex  # noqa: B018  (made now, kept: the guards' trie)
        at = [0]
        for us in compiled.users:
            at.append(at[-1] + len(us))
        blobs = [_ints(compiled.lengths), _ints(at), _ints(v for us in compiled.users for u in us for v in u)]
        state = {
            "patterns": [[reg.spec_of[p], None if reg.guard_of[p] is None else list(reg.guard_of[p]),  # type: ignore[arg-type]
                          _scout_data(reg.scout_of.get(p)), _scout_data(reg.split_of.get(p))] for p in patterns],
            "groups": [[[k[0], k[1]], g.regex] for k, g in reg.groups.items()],
            "begin": sorted(compiled.begin),
            "heads": None if compiled.other_heads is None else compiled.other_heads.pattern,
            "ascii": _automaton_data(compiled.ascii, blobs), "other": _automaton_data(compiled.other, blobs),
        }
        body = json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        head = {"identity": ident, "sizes": [len(body), *map(len, blobs)],
                "crc32": zlib.crc32(b"".join(blobs), zlib.crc32(body))}
        write_atomic(FILE_NAME, json.dumps(head).encode("utf-8") + b"\n" + body + b"".join(blobs))
    except (OSError, TypeError, ValueError, KeyError, OverflowError):
        return False
    return True


def _parts(rest: memoryview, sizes: list[int]) -> list[bytes]:
    """``rest`` cut into parts of ``sizes`` bytes. Raises :class:`ValueError` when they do not add up."""
    if sum(sizes) != len(rest) or any(not isinstance(n, int) or n < 0 for n in sizes):
        raise ValueError("the parts do not add up to the body")
    out, at = [], 0
    for n in sizes:
        out.append(bytes(rest[at:at + n]))
        at += n
    return out


def _array(data: bytes) -> array.array[int]:
    got = array.array(INT)
    got.frombytes(data)
    return got


def _automaton_of(data: list[Any] | None, parts: list[bytes]) -> Any:
    """The automaton of ``data`` (:func:`_automaton_data`), its chunks taken off the front of ``parts``."""
    if data is None:
        return None
    count, args = data
    chunks = parts[:count]
    del parts[:count]
    return ahocorasick.Automaton(chunks, *args)


def restore(patterns: Sequence[PatternLike]) -> bool:
    """Fill the prefilter registry -- which must hold nothing yet -- with the state kept for
    ``patterns`` (in learning order). Returns whether it did: ``False`` when the memo is off, the
    file is missing, of another identity, damaged or unreadable (the registry is left empty).
    Never raises."""
    reg = prefilter._REGISTRY
    if not enabled() or reg.spec_of:
        return False
    try:
        raw = (cache_dir() / FILE_NAME).read_bytes()
        line = raw.index(b"\n")
        head = json.loads(raw[:line])
        ident = identity(patterns)
        if ident is None or not isinstance(head, dict) or head.get("identity") != ident:
            return False
        rest = memoryview(raw)[line + 1:]
        if zlib.crc32(rest) != head.get("crc32"):
            return False
        parts = _parts(rest, list(head["sizes"]))
        state = json.loads(parts.pop(0))
        lengths, at, pairs = (_array(parts.pop(0)) for _ in range(3))
        ascii_auto = _automaton_of(state["ascii"], parts)
        other_auto = _automaton_of(state["other"], parts)
        entries = state["patterns"]
        if parts or len(entries) != len(patterns) or len(at) != len(lengths) + 1 or len(pairs) != 2 * at[-1]:
            return False
        compiled = prefilter._Compiled(
            ascii_auto, other_auto, None if state["heads"] is None else re.compile(state["heads"]),
            lengths, PackedUsers(at, pairs), frozenset(state["begin"]))
        reg.fill(patterns, [(sid, None if guard is None else tuple(guard), _scout_of(found), _scout_of(split))
                            for sid, guard, found, split in entries], compiled)
        regexes = {(bool(k[0]), int(k[1])): regex for k, regex in state["groups"]}
        for gkey, group in reg.groups.items():
            group._regex = regexes.get(gkey)
    except (OSError, ValueError, KeyError, TypeError, IndexError, re.error):
        reg.clear()
        return False
    return True
