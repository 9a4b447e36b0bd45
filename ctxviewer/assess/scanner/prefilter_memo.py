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
order, its start-set id, line-start guard and scouts; the automata's literal lengths, users and
start-of-text set; the shared scout passes' expressions), then the two automata as pyahocorasick's
own serialised form (the ``bytes`` its ``__reduce__`` gives, handed back to the
``ahocorasick.Automaton`` constructor: what unpickling does, without :mod:`pickle`). The header
holds the :func:`identity` -- this Python, pyahocorasick's extension module (path, size,
modification time), the size and modification time of every module of this package and of the
shipped start-set table, and the sha256 of the learnt patterns' keys and own scouts (a plug-in
rule is another identity) -- and the body's sha256. A file of another identity, or whose body
does not hash to its header's sha256 (truncated, damaged), or that cannot be parsed, is ignored:
the state is learnt and built as before and the file replaced. The automata's bytes are parsed by
pyahocorasick's C code, so only a body whose hash matches is handed to it; the file is ours,
written by this module into the user's own cache folder (whoever can write there can change the
user's programs as well). Written once per identity, to a temporary file renamed into place (no
reader sees half a file). ``CTXVIEWER_PREFILTER_MEMO=0`` turns it off (the test suite does, except
this module's own tests). Nothing leaves the machine. No Qt here.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Sequence

import ahocorasick

from ctxviewer.assess.scanner import prefilter
from ctxviewer.assess.scanner.scout import Scout
from ctxviewer.assess.scanner.start_sets import PatternLike
from ctxviewer.assess.scanner.start_table import key as start_key
from ctxviewer.util.user_cache import cache_dir, write_atomic

FILE_NAME = "scanner-prefilter.bin"
"""The memo's file in the cache folder (about 2.5 MB for the built-in rules)."""

FORMAT = 1
"""The layout of the file; another number is another identity."""

_RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def enabled() -> bool:
    """False when ``CTXVIEWER_PREFILTER_MEMO`` is ``0`` (or ``off``, ``false``, ``no``)."""
    return os.environ.get("CTXVIEWER_PREFILTER_MEMO", "1").strip().lower() not in ("0", "off", "false", "no")


def _own_scout(pattern: PatternLike) -> Any:
    own = getattr(pattern, "scout", None)
    return list(own) if isinstance(own, tuple) else own


def identity(patterns: Sequence[PatternLike]) -> list[Any] | None:
    """``[format, python version, byte order, [path, size, mtime_ns] of pyahocorasick's module,
    [[name, size, mtime_ns] per module of this package and the start-set table], sha256 of the
    patterns' keys and own scouts]``; ``None`` when a file cannot be read (then no memo)."""
    try:
        own = sorted((e.name, e.stat()) for e in os.scandir(Path(__file__).parent) if e.name.endswith(".py"))
        own.append(("scanner_start_sets.json", os.stat(_RESOURCES / "scanner_start_sets.json")))
        lib = str(getattr(ahocorasick, "__file__", ""))
        lib_stat = os.stat(lib)
    except OSError:
        return None
    keys = json.dumps([[start_key(p), _own_scout(p)] for p in patterns], ensure_ascii=False)
    return [FORMAT, list(sys.version_info[:3]), sys.byteorder, [lib, lib_stat.st_size, lib_stat.st_mtime_ns],
            [[n, s.st_size, s.st_mtime_ns] for n, s in own], hashlib.sha256(keys.encode("utf-8")).hexdigest()]


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


def _automaton_data(automaton: Any, blobs: list[bytes]) -> list[Any] | None:
    """``[[length of each chunk], other constructor arguments]`` of ``automaton``, its chunks
    appended to ``blobs``; ``None`` when there is none. Raises :class:`ValueError` for a form this
    module does not know."""
    if automaton is None:
        return None
    cls, args = automaton.__reduce__()[:2]
    if cls is not ahocorasick.Automaton or not isinstance(args[0], list) or not all(
            isinstance(b, bytes) for b in args[0]) or not all(a is None or isinstance(a, int) for a in args[1:]):
        raise ValueError("not pyahocorasick's known serialised form")
    blobs.extend(args[0])
    return [[len(b) for b in args[0]], list(args[1:])]


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
        blobs: list[bytes] = []
        state = {
            "patterns": [[reg.spec_of[p], None if reg.guard_of[p] is None else list(reg.guard_of[p]),  # type: ignore[arg-type]
                          _scout_data(reg.scout_of.get(p)), _scout_data(reg.split_of.get(p))] for p in patterns],
            "groups": [[[k[0], k[1]], g.regex] for k, g in reg.groups.items()],
            "lengths": compiled.lengths, "users": [[list(u) for u in us] for us in compiled.users],
            "begin": sorted(compiled.begin),
            "heads": None if compiled.other_heads is None else compiled.other_heads.pattern,
            "ascii": _automaton_data(compiled.ascii, blobs), "other": _automaton_data(compiled.other, blobs),
        }
        body = json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        head = {"identity": ident, "state": len(body), "sha256": hashlib.sha256(body + b"".join(blobs)).hexdigest()}
        write_atomic(FILE_NAME, json.dumps(head).encode("utf-8") + b"\n" + body + b"".join(blobs))
    except (OSError, TypeError, ValueError, KeyError):
        return False
    return True


def _automaton_of(data: list[Any] | None, rest: memoryview, at: int) -> tuple[Any, int]:
    if data is None:
        return None, at
    sizes, args = data
    chunks = []
    for size in sizes:
        chunks.append(bytes(rest[at:at + size]))
        at += size
    return ahocorasick.Automaton(chunks, *args), at


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
        if hashlib.sha256(rest).hexdigest() != head.get("sha256"):
            return False
        size = int(head["state"])
        state = json.loads(bytes(rest[:size]))
        ascii_auto, at = _automaton_of(state["ascii"], rest, size)
        other_auto, at = _automaton_of(state["other"], rest, at)
        entries = state["patterns"]
        if at != len(rest) or len(entries) != len(patterns):
            return False
        compiled = prefilter._Compiled(
            ascii_auto, other_auto, None if state["heads"] is None else re.compile(state["heads"]),
            state["lengths"], state["users"], frozenset(state["begin"]))
        reg.fill(patterns, [(sid, None if guard is None else tuple(guard), _scout_of(found), _scout_of(split))
                            for sid, guard, found, split in entries], compiled)
        regexes = {(bool(k[0]), int(k[1])): regex for k, regex in state["groups"]}
        for gkey, group in reg.groups.items():
            group._regex = regexes.get(gkey)
    except (OSError, ValueError, KeyError, TypeError, IndexError, re.error):
        reg.clear()
        return False
    return True
