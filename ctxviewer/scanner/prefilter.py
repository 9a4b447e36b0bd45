"""The scanner's literal prefilter: the same matches as ``pattern.finditer(text)``, found fast in long texts.

Python's regular-expression engine tries a scanner pattern at every position of a text; with
about a hundred case-insensitive patterns that costs several microseconds per character, so a
50 MB document took half an hour to scan (issue 12). Most positions cannot start a match: every
match of ``\\b(?:ignore|disregard|...)\\s+...`` starts with one of those words, every match of
``(?<=[.!?])\\s*+(?:reply|...)`` starts right after one of those characters.

:func:`start_literals` reads a compiled pattern's syntax tree (:mod:`re._parser`) and derives such
a set -- literal strings one of which every match starts with (after ``\\b`` and other zero-width
assertions), or follows (a lookbehind), or the start of the text (``^``). One pass of an
Aho-Corasick automaton (``pyahocorasick``) over the case-folded text finds every occurrence of
every pattern's literals at once; :func:`finditer` then tries the pattern (``pattern.match(text,
pos)``) only at those positions, in order, skipping positions inside the previous match. That
yields exactly the matches of ``pattern.finditer(text)``: every position where a match can start
is tried, ``match`` at a position sees the whole text (lookbehind, ``^`` and ``\\b`` as in a
search), and ``finditer`` itself returns, left to right, the match at the first position where
there is one. Nothing is cut short: the whole text is still read.

Case folding is the engine's: simple lower case plus its extra case equivalences (``ı``/``i``,
``ſ``/``s``, ...: :data:`re._casefix._EXTRA_CASES`); case-sensitive patterns use the same folded
literals (a superset of their positions). A pattern without such a set (it may start with any
letter or space), a text shorter than :data:`MIN_CHARS`, or a text where its literals are denser
than :data:`MAX_DENSITY` uses plain ``finditer``. No Qt here.
"""

from __future__ import annotations

import functools
import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from re import _constants as C
from re import _parser
from re._casefix import _EXTRA_CASES  # type: ignore[import-not-found]
from typing import Any, Iterable, Iterator, Protocol

import ahocorasick

MIN_CHARS = 1_000
"""Texts shorter than this (code points) are searched with plain ``finditer`` unless the pattern's
start set is known without deriving it (:func:`finditer`): deriving every set costs more than it saves."""
MAX_DENSITY = 0.2
"""When a pattern's candidate positions exceed this share of the text, plain ``finditer`` is used
for that pattern and text (one ``match`` call per candidate costs more than the engine's own loop)."""
MAX_COST = 0.15
"""A start set expected to occur more often than this per character of prose (by :func:`_cost`'s
rough model: a letter or digit 6 %, a space 15 %, a line break or tab 1 %, punctuation 0.5 %, anything else 0.1 %) is not
used: its occurrences would cost more to list than the engine's own loop (base64 and hex runs,
which may start at any letter)."""
MAX_LITERAL = 12
"""Literals are cut to this many characters (longer adds no selectivity)."""
MAX_SET = 4_000
"""A pattern whose start set would exceed this many literals gets none (plain ``finditer``)."""
_MAX_CLASS = 300
"""A character class of more members than this is not a literal set."""

class PatternLike(Protocol):
    """A compiled pattern (``re.Pattern``) or one compiled on first use
    (:class:`ctxviewer.scanner._api.LazyPattern`): source, flags, ``match`` and ``finditer``."""

    @property
    def pattern(self) -> str: ...

    @property
    def flags(self) -> int: ...

    def match(self, string: str, pos: int = 0) -> re.Match[str] | None: ...

    def finditer(self, string: str) -> Iterator[re.Match[str]]: ...


def _compiled(pattern: PatternLike) -> PatternLike:
    """The ``re.Pattern`` behind ``pattern`` (a :class:`LazyPattern` compiles now): calling it
    directly saves a Python call per candidate."""
    compiled = getattr(type(pattern), "compiled", None)
    return compiled(pattern) if callable(compiled) else pattern


_BEGIN = ("", 0)
"""The start of the text (``^``): the one candidate position 0."""

Start = tuple[str, int]
"""``(literal, shift)``: a match may start ``shift`` characters after an occurrence of ``literal``
in the folded text (0: the match starts with it; ``len(literal)``: a lookbehind requires it just
before the match). ``("", 0)`` is the start of the text."""


_SPACES = frozenset(ch for ch in map(chr, range(0x3000 + 1)) if ch.isspace())
"""What ``\\s`` matches in a ``str`` pattern (``str.isspace``; none above U+3000)."""


def _canon() -> dict[int, str]:
    table: dict[int, str] = {0x130: "i"}  # U+0130's simple lower case is "i" (str.lower gives two characters)
    for lo, extra in _EXTRA_CASES.items():
        canon = min((lo, *extra))
        for cp in (lo, *extra):
            if cp != canon:
                table[cp] = chr(canon)
    for ch in _SPACES - {"\n", " "}:
        table[ord(ch)] = " "
    return table


_CANON = _canon()
_ASCII_CANON = str.maketrans({cp: v for cp, v in _CANON.items() if cp < 128})
_ASCII_SPACES = "".join(sorted(ch for ch in _SPACES - {"\n", " "} if ch.isascii()))
_NEEDS_CANON = re.compile("[" + "".join(re.escape(chr(cp)) for cp in sorted(_CANON) if cp >= 128) + "]")


def _canon_of(m: re.Match[str]) -> str:
    return _CANON[ord(m.group())]


def fold(text: str) -> str:
    """``text`` folded as the regular-expression engine compares characters, one code point for
    one code point (offsets are kept): simple lower case, the engine's extra case equivalences
    mapped to one member, and every white-space character but the line break mapped to a space
    (so ``\\s`` is two literals, not twenty-five)."""
    if text.isascii():
        return text.lower().translate(_ASCII_CANON)
    low = text.replace("\u0130", "i").lower()
    for ch in _ASCII_SPACES:
        if ch in low:
            low = low.replace(ch, " ")
    return _NEEDS_CANON.sub(_canon_of, low)


@functools.cache
def _fold_char(cp: int) -> str:
    return fold(chr(cp))


def start_literals(pattern: PatternLike) -> frozenset[Start] | None:
    """The start set of ``pattern`` (see :data:`Start`): every match of ``pattern`` starts at a
    position some member names. ``None`` when no such set of at most :data:`MAX_SET` literals
    exists (the pattern may start with any character class, or can match the empty string)."""
    try:
        tree = _parser.parse(pattern.pattern, pattern.flags)
        if tree.getwidth()[0] == 0:
            return None
        out = _starts(list(tree.data), True, bool(tree.state.flags & re.MULTILINE))
    except (_Unbounded, RecursionError):
        return None
    if out is None or not out or len(out) > MAX_SET or any(lit == "" and s != 0 for lit, s in out):
        return None
    if _cost(out) > MAX_COST:
        return None
    return frozenset(out)


def line_start_guard(pattern: PatternLike) -> tuple[str, ...] | None:
    """For a pattern that starts a sentence or a line -- every top-level alternative begins with
    ``^`` or a lookbehind and then only white space (``(?:^\\s*+|(?<=[.!?])\\s*+|(?<=\\n)[ \\t]*+)REST``)
    -- the literals one of which REST starts with (none of them starting with white space), else
    ``None``. Its candidates (after every full stop...) are many; one whose next non-space
    characters start none of these cannot match, so :func:`finditer` skips it without calling
    the engine."""
    try:
        tree = _parser.parse(pattern.pattern, pattern.flags)
        items = list(tree.data)
        while len(items) == 1 and items[0][0] is C.SUBPATTERN:
            items = list(items[0][1][-1].data)
        if len(items) < 2:
            return None
        head = items[0]
        body = list(head[1][-1].data) if head[0] is C.SUBPATTERN else [head]
        alts = [list(a.data) for a in body[0][1][1]] if len(body) == 1 and body[0][0] is C.BRANCH else [body]
        for alt in alts:
            if len(alt) != 2 or not _opens(alt[0]) or not _white_run(alt[1]):
                return None
        rest = _starts(items[1:], False, bool(tree.state.flags & re.MULTILINE))
    except (_Unbounded, RecursionError):
        return None
    if not rest or any(shift or not lit or lit[0] in " \n" for lit, shift in rest):
        return None
    return tuple(sorted({lit for lit, _shift in rest}))


def _opens(item: Any) -> bool:
    op, av = item
    return (op is C.AT and av in (C.AT_BEGINNING, C.AT_BEGINNING_STRING, C.AT_BEGINNING_LINE)) or (
        op is C.ASSERT and av[0] < 0)


def _white_run(item: Any) -> bool:
    op, av = item
    if op not in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT) or av[0] != 0:
        return False
    body = list(av[2].data)
    chars = _class(list(body[0][1])) if len(body) == 1 and body[0][0] is C.IN else None
    return chars is not None and chars <= {" ", "\n"}


class _Unbounded(Exception):
    pass


def _union(parts: list[set[Start] | None]) -> set[Start] | None:
    out: set[Start] = set()
    for p in parts:
        if p is None:
            return None
        out |= p
        if len(out) > MAX_SET:
            raise _Unbounded()
    return out


def _exact(items: list[Any]) -> set[str] | None:
    """The finite set of strings ``items`` matches (folded), or ``None`` (any class, repeat or more
    than :data:`MAX_SET` strings)."""
    out = {""}
    for op, av in items:
        if op is C.AT or op is C.ASSERT or op is C.ASSERT_NOT:
            continue
        step = _element_strings(op, av)
        if step is None:
            return None
        out = {a + b for a in out for b in step}
        if len(out) > MAX_SET:
            return None
    return out


def _element_strings(op: Any, av: Any) -> set[str] | None:
    if op is C.LITERAL:
        return {_fold_char(av)}
    if op is C.IN:
        return _class(av)
    if op is C.SUBPATTERN:
        return _exact(list(av[-1].data))
    if op is C.BRANCH:
        out: set[str] = set()
        for alt in av[1]:
            sub = _exact(list(alt.data))
            if sub is None:
                return None
            out |= sub
        return out
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT) and av[0] == av[1] and av[0] <= 4:
        sub = _exact(list(av[2].data))
        if sub is None:
            return None
        out = {""}
        for _ in range(av[0]):
            out = {a + b for a in out for b in sub}
        return out
    return None


def _class(items: list[Any]) -> set[str] | None:
    chars: set[str] = set()
    for op, av in items:
        if op is C.LITERAL:
            chars.add(_fold_char(av))
        elif op is C.RANGE:
            lo, hi = av
            if hi - lo > _MAX_CLASS:
                return None
            chars.update(_fold_char(cp) for cp in range(lo, hi + 1))
        elif op is C.CATEGORY and av is C.CATEGORY_SPACE:
            chars.update(fold(ch) for ch in _SPACES)
        else:  # NEGATE, other categories (\w, \d, \S): not a small finite set
            return None
        if len(chars) > _MAX_CLASS:
            return None
    return chars


def _starts(items: list[Any], at_start: bool, multiline: bool, room: int = MAX_LITERAL) -> set[Start] | None:
    """Start set of the sequence ``items`` (``None``: unconstrained -- it may start anywhere).
    ``multiline``: ``^`` also matches after a line break (``re.MULTILINE`` in force); ``room``:
    characters still wanted (a continuation lengthening a literal stops at :data:`MAX_LITERAL`)."""
    if room <= 0:
        return None
    i = 0
    while i < len(items):
        op, av = items[i]
        if op is C.AT:
            if at_start and av is C.AT_BEGINNING_STRING:
                return {_BEGIN}
            if at_start and av is C.AT_BEGINNING:
                return {_BEGIN, ("\n", 1)} if multiline else {_BEGIN}
            if at_start and av is C.AT_BEGINNING_LINE:
                return {_BEGIN, ("\n", 1)}
            i += 1
            continue
        if op is C.ASSERT or op is C.ASSERT_NOT:
            if at_start and op is C.ASSERT and av[0] < 0:
                behind = _exact(list(av[1].data))
                try:
                    after = _starts(items[i + 1:], False, multiline, room)
                except _Unbounded:
                    after = None
                if behind and "" not in behind and (after is None or _cost(after) > _cost_strings(behind)):
                    return {(b[-MAX_LITERAL:], len(b[-MAX_LITERAL:])) for b in behind}
                return after
            i += 1
            continue
        break
    if i == len(items):
        return None
    op, av = items[i]
    rest = items[i + 1:]
    if op is C.SUBPATTERN:
        group, add, remove, body = av
        inner = (multiline or bool(add & re.MULTILINE)) and not remove & re.MULTILINE
        if inner != multiline:  # flags scoped to the group: its start only, no continuation
            first = _starts(list(body.data), at_start, inner, room)
            return first if body.getwidth()[0] > 0 else _union([first, _starts(rest, at_start, multiline, room)])
        return _starts(list(body.data) + rest, at_start, multiline, room)
    if op is C.ATOMIC_GROUP:
        return _starts(list(av.data) + rest, at_start, multiline, room)
    if op is C.BRANCH:
        return _union([_starts(list(alt.data) + rest, at_start, multiline, room) for alt in av[1]])
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        lo, _hi, body = av
        first = _starts(list(body.data), at_start, multiline, room)
        return first if lo > 0 else _union([first, _starts(rest, at_start, multiline, room)])
    head = _element_strings(op, av)
    if head is None:
        return None
    if "" in head:
        return None
    head = {h[:room] for h in head}
    tail = _continue(rest, multiline, room - min(len(h) for h in head))
    if tail is None:
        return {(h, 0) for h in head}
    out = {((h + t)[:room], 0) for h in head for t in tail}
    if len(out) > MAX_SET:
        return {(h, 0) for h in head}
    return out


def _continue(items: list[Any], multiline: bool, room: int) -> set[str] | None:
    """Strings every match of ``items`` starts with, to lengthen a literal (``None``: stop here)."""
    try:
        more = _starts(items, False, multiline, room)
    except _Unbounded:
        return None
    if not more or any(shift for _lit, shift in more):
        return None
    return {lit for lit, _shift in more}


def _char_cost(ch: str) -> float:
    if ch.isascii():
        return 0.15 if ch == " " else 0.01 if ch.isspace() else 0.06 if ch.isalnum() else 0.005
    return 0.001


def _cost_strings(lits: set[str]) -> float:
    """Expected occurrences per character of text of any of ``lits`` (a rough model of prose)."""
    total = 0.0
    for lit in lits:
        p = 1.0
        for ch in lit:
            p *= _char_cost(ch)
        total += p
    return total


def _cost(spec: set[Start]) -> float:
    return _cost_strings({lit for lit, _shift in spec if lit})


@dataclass
class _Compiled:
    ascii: Any
    """Automaton over the literals that start with an ASCII character (run over the whole text)."""
    other: Any | None
    """Automaton over the rest, run only where the text has non-ASCII characters: an automaton
    whose root has hundreds of children (CJK, Cyrillic, Devanagari...) is several times slower
    per character, and most texts are mostly ASCII."""
    lengths: list[int]
    users: list[tuple[tuple[int, int], ...]]
    """Per literal id: ``(spec id, d)`` for each start set holding it; a candidate start is an
    occurrence's last character + ``d``."""
    begin: frozenset[int]
    """Spec ids whose set holds the start of the text."""


class _Registry:
    """Start sets of the patterns seen so far (one id per distinct set) and one automaton over
    all their literals, rebuilt when a pattern brings new ones."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spec_of: dict[PatternLike, int | None] = {}
        self.guard_of: dict[PatternLike, tuple[str, ...] | None] = {}
        self.specs: dict[frozenset[Start], int] = {}
        self.compiled: _Compiled | None = None

    def spec_id(self, pattern: PatternLike) -> int | None:
        """The id of ``pattern``'s start set (``None``: it has none)."""
        try:
            return self.spec_of[pattern]
        except KeyError:
            pass
        from .start_table import lookup  # the shipped table, else derived now (start_table.py)

        spec, guard = lookup(pattern)
        with self.lock:
            self.guard_of[pattern] = guard
            sid = None
            if spec is not None:
                sid = self.specs.get(spec)
                if sid is None:
                    sid = self.specs[spec] = len(self.specs)
                    self.compiled = None
            self.spec_of[pattern] = sid
        return sid

    def known(self, pattern: PatternLike) -> bool:
        """Whether ``pattern``'s start set is at hand without deriving it: seen before, or in the
        shipped table (:mod:`ctxviewer.scanner.start_table`)."""
        if pattern in self.spec_of:
            return True
        from .start_table import key, shipped

        return key(pattern) in shipped()

    def automaton(self) -> _Compiled:
        compiled = self.compiled
        if compiled is not None:
            return compiled
        with self.lock:
            ids: dict[str, int] = {}
            users: list[list[tuple[int, int]]] = []
            begin = set()
            for spec, sid in self.specs.items():
                for lit, shift in spec:
                    if not lit:
                        begin.add(sid)
                        continue
                    n = ids.get(lit)
                    if n is None:
                        n = ids[lit] = len(users)
                        users.append([])
                    users[n].append((sid, shift + 1 - len(lit)))
            automata = [ahocorasick.Automaton(ahocorasick.STORE_INTS), ahocorasick.Automaton(ahocorasick.STORE_INTS)]
            for lit, n in ids.items():
                automata[0 if lit[0].isascii() else 1].add_word(lit, n)
            for a in automata:
                if len(a):
                    a.make_automaton()
            lengths = [0] * len(ids)
            for lit, n in ids.items():
                lengths[n] = len(lit)
            compiled = _Compiled(automata[0] if len(automata[0]) else None, automata[1] if len(automata[1]) else None,
                                 lengths, [tuple(u) for u in users], frozenset(begin))
            self.compiled = compiled
        return compiled


_REGISTRY = _Registry()


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


class _Index:
    """Candidate start positions of every known start set in one text."""

    def __init__(self, text: str) -> None:
        self.text = text
        compiled = _REGISTRY.automaton()
        self.compiled = compiled
        ends: dict[int, list[int]] = {}
        self.folded = folded = fold(text)
        get = ends.get
        if compiled.ascii is not None:
            for end, n in compiled.ascii.iter(folded):
                found = get(n)
                if found is None:
                    ends[n] = [end]
                else:
                    found.append(end)
        if compiled.other is not None and not folded.isascii():
            lengths = compiled.lengths
            for run in _NON_ASCII.finditer(folded):  # such a literal starts inside a run, may end after it
                s, e = run.span()
                for end, n in compiled.other.iter(folded, s, e + MAX_LITERAL):
                    if end - lengths[n] + 1 < e:
                        found = get(n)
                        if found is None:
                            ends[n] = [end]
                        else:
                            found.append(end)
        per_spec: dict[int, list[int]] = {sid: [0] for sid in compiled.begin}
        for n, found in ends.items():
            for sid, d in compiled.users[n]:
                per_spec.setdefault(sid, []).extend([e + d for e in found] if d else found)
        self.raw = per_spec
        self.candidates: dict[int, list[int]] = {}

    def positions(self, sid: int) -> list[int]:
        """Sorted, distinct candidate start positions for start set ``sid``."""
        got = self.candidates.get(sid)
        if got is None:
            got = self.candidates[sid] = sorted(set(self.raw.get(sid, ())))
        return got


_LOCAL = threading.local()


def _index_for(text: str) -> _Index:
    index: _Index | None = getattr(_LOCAL, "index", None)
    if index is None or index.text is not text or index.compiled is not _REGISTRY.compiled:
        index = _Index(text)
        _LOCAL.index = index
    return index


def learn(patterns: Iterable[PatternLike]) -> None:
    """Derive the start sets of ``patterns`` now, so the automaton is built once, not once per new
    pattern met while scanning the first long text."""
    for pattern in patterns:
        _REGISTRY.spec_id(pattern)


def finditer(pattern: PatternLike, text: str, *, force: bool = False) -> Iterator[re.Match[str]]:
    """The matches of ``pattern.finditer(text)``, in order -- found by trying ``pattern`` only
    where its start set occurs in ``text`` (see the module docstring). ``force`` uses the prefilter
    whatever the text's length or the literals' density (for tests); inside :func:`plain` the
    engine's own ``finditer`` is used (the reference the prefilter must equal).

    A text shorter than :data:`MIN_CHARS` takes the prefilter too when the pattern's start set is
    at hand without deriving it (the shipped table, :mod:`ctxviewer.scanner.start_table`): the
    automaton's one pass costs less than the engine trying ~90 patterns at every position (3.5x
    faster over the labelled set's short texts, issue 11). A pattern not compiled yet
    (:class:`ctxviewer.scanner._api.LazyPattern`) is compiled at the first candidate its
    line-start guard lets through, so a text where it cannot start a match never compiles it."""
    if getattr(_LOCAL, "plain", False):
        return pattern.finditer(text)
    if len(text) < MIN_CHARS and not force and not _REGISTRY.known(pattern):
        return pattern.finditer(text)
    sid = _REGISTRY.spec_id(pattern)
    if sid is None:
        return pattern.finditer(text)
    index = _index_for(text)
    cands = index.positions(sid)
    if not force and len(cands) > MAX_DENSITY * len(text):
        return pattern.finditer(text)
    return _matches_at(pattern, text, cands, index.folded, _REGISTRY.guard_of.get(pattern))


def is_compiled(pattern: PatternLike) -> bool:
    """True for an ``re.Pattern`` and a :class:`ctxviewer.scanner._api.LazyPattern` already compiled."""
    return getattr(pattern, "_compiled", True) is not None


@contextmanager
def plain() -> Iterator[None]:
    """Within the block (this thread), :func:`finditer` is plain ``pattern.finditer``: the
    reference scan the prefilter is tested and benchmarked against."""
    old = getattr(_LOCAL, "plain", False)
    _LOCAL.plain = True
    try:
        yield
    finally:
        _LOCAL.plain = old


_FOLDED_SPACE = re.compile("[ \n]*")


def _matches_at(pattern: PatternLike, text: str, cands: list[int], folded: str,
                guard: tuple[str, ...] | None) -> Iterator[re.Match[str]]:
    match = None  # compiled at the first candidate the guard lets through (finditer's docstring)
    skip = _FOLDED_SPACE.match
    n = len(text)
    pos = 0
    for c in cands:
        if c < pos or c > n:
            continue
        if guard is not None and not folded.startswith(guard, skip(folded, c).end()):  # type: ignore[union-attr]
            continue  # line_start_guard(): after the white space, nothing REST can start with
        if match is None:
            match = _compiled(pattern).match
        m = match(text, c)
        if m is not None:
            yield m
            pos = m.end()  # start_literals() refuses patterns that can match the empty string
