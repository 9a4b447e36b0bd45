"""The scanner's literal prefilter: the same matches as ``pattern.finditer(text)``, found fast in long texts.

Python's regular-expression engine tries a scanner pattern at every position of a text; with
about a hundred case-insensitive patterns that costs several microseconds per character, so a
50 MB document took half an hour to scan. Most positions cannot start a match: every
match of ``\\b(?:ignore|disregard|...)\\s+...`` starts with one of those words, every match of
``(?<=[.!?])\\s*+(?:reply|...)`` starts right after one of those characters.

:func:`~ctxviewer.assess.scanner.start_sets.start_literals` reads a compiled pattern's syntax tree (:mod:`re._parser`) and derives such
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

import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import ahocorasick

from ctxviewer.assess.scanner import non_ascii, run_scouts, scout, scout_pass
from ctxviewer.assess.scanner.case_fold import fold
from ctxviewer.assess.scanner.scout import Scout
from ctxviewer.assess.scanner.start_sets import MAX_LITERAL, PatternLike, Start
from ctxviewer.assess.scanner.start_table import key as start_key
from ctxviewer.assess.scanner.start_table import lookup, shipped

MIN_CHARS = 1_000
"""Texts shorter than this (code points) are searched with plain ``finditer`` unless the pattern's
start set is known without deriving it (:func:`finditer`): deriving every set costs more than it saves."""
MAX_DENSITY = 0.2
"""When a pattern's candidate positions exceed this share of the text, plain ``finditer`` is used
for that pattern and text (one ``match`` call per candidate costs more than the engine's own loop)."""
@dataclass
class _Compiled:
    ascii: Any
    """Automaton over the literals that start with an ASCII character (run over the whole text)."""
    other: Any | None
    """Automaton over the rest, run only where the text has non-ASCII characters: an automaton
    whose root has hundreds of children (CJK, Cyrillic, Devanagari...) is several times slower
    per character, and most texts are mostly ASCII."""
    other_heads: re.Pattern[str] | None
    """Runs of the non-ASCII characters the :attr:`other` literals may start with: the only places
    it is run (a text's typographic quotes and dashes start none: :func:`_runs_outside`)."""
    lengths: Sequence[int]
    users: Sequence[Sequence[Sequence[int]]]
    """Per literal id: ``(spec id, d)`` for each start set holding it; a candidate start is an
    occurrence's last character + ``d``."""
    begin: frozenset[int]
    """Spec ids whose set holds the start of the text."""


_PUNCTUATION = ((0xA0, 0xBF), (0x2010, 0x2027), (0x2030, 0x205E), (0x20A0, 0x20CF), (0x2100, 0x2BFF), (0x3000, 0x303F))
"""Blocks of non-ASCII punctuation, spaces and symbols (Latin-1's, General Punctuation, currency,
arrows and mathematical symbols, CJK punctuation; not the zero-width and direction
characters) left out of the runs the :attr:`_Compiled.other`
automaton is run on when no literal starts with one of their characters."""


def _runs_outside(heads: set[str]) -> re.Pattern[str]:
    """Runs of non-ASCII characters outside the :data:`_PUNCTUATION` blocks that hold none of
    ``heads``: every literal starting with a non-ASCII character starts inside one (a class of
    ranges: as fast as ``[^\\x00-\\x7f]+``; a class of the few hundred heads themselves is 20x slower)."""
    blocks = "".join(f"{chr(a)}-{chr(b)}" for a, b in _PUNCTUATION if not any(a <= ord(h) <= b for h in heads))
    return re.compile("[^\\x00-\\x7f" + blocks + "]+")


class _Registry:
    """Start sets of the patterns seen so far (one id per distinct set) and one automaton over
    all their literals, rebuilt when a pattern brings new ones."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spec_of: dict[PatternLike, int | None] = {}
        self.guard_of: dict[PatternLike, tuple[str, ...] | None] = {}
        self.scout_of: dict[PatternLike, Scout] = {}
        self.split_of: dict[PatternLike, Scout] = {}
        self.specs: dict[frozenset[Start], int] = {}
        self.compiled: _Compiled | None = None
        self.groups: dict[tuple[bool, int], scout_pass.ScoutGroup] = {}
        """Scouts searched in one shared pass (:mod:`ctxviewer.assess.scanner.scout_pass`), by haystack and flags."""
        self.member_of: dict[Scout, tuple[tuple[bool, int], int]] = {}
        """A scout in :attr:`groups`: its group's key and its index there."""
        self.run_scouts = run_scouts.RunScouts()
        """The scouts of runs of a class (:mod:`ctxviewer.assess.scanner.run_scouts`)."""
        self.thaw: list[PatternLike] | None = None
        """Set by :meth:`fill`: the patterns whose start sets (:attr:`specs`) are learnt again before a new pattern joins."""

    def clear(self) -> None:
        """Forget everything learnt (a failed :func:`~.prefilter_memo.restore`, a thaw); the lock stays."""
        lock = self.lock
        self.__dict__.update(_Registry().__dict__)
        self.lock = lock

    def fill(self, patterns: Iterable[PatternLike], entries: Iterable[tuple[int | None, tuple[str, ...] | None,
             Scout | None, Scout | None]], compiled: _Compiled) -> None:
        """Take the state :meth:`spec_id` learnt for ``patterns`` (in order), ``(start-set id, guard,
        scout, split scout)`` each, and its automata ``compiled``, without the start sets themselves
        (:mod:`.prefilter_memo`): a pattern met later learns them all again first (:attr:`thaw`)."""
        patterns = list(patterns)
        with self.lock:
            for pattern, (sid, guard, found, split) in zip(patterns, entries):
                self.guard_of[pattern] = guard
                for kept, into in ((split, self.split_of), (found, self.scout_of)):
                    if kept is not None:
                        into[pattern] = kept
                        self._join(kept)
                self.spec_of[pattern] = sid
            self.thaw, self.compiled = patterns, compiled

    def _join(self, found: Scout) -> None:
        """Put ``found`` into its shared pass, if it has one (under :attr:`lock`)."""
        gkey = scout_pass.group_key(found)
        if gkey is None:
            self.run_scouts.add(found)
            return
        if found in self.member_of:
            return
        old = self.groups.get(gkey)
        members = (*(old.members if old is not None else ()), (found.regex, found.flags))
        guards = (*(old.guards if old is not None else ()), found.guard)
        self.groups[gkey] = scout_pass.ScoutGroup(members, guards)
        self.member_of[found] = (gkey, len(members) - 1)

    def spec_id(self, pattern: PatternLike) -> int | None:
        """The id of ``pattern``'s start set (``None``: it has none)."""
        try:
            return self.spec_of[pattern]
        except KeyError:
            pass
        with _THAWING:
            if self.thaw is not None:  # restored without the sets: learn them, then this one
                patterns = self.thaw
                self.clear()
                learn(patterns)
        spec, guard = lookup(pattern)  # the shipped table, else derived now
        words = frozenset(s for s in spec if s[0] and not s[1]) if spec is not None and guard else frozenset()
        found = scout.derive(pattern, spec, guard) if not words else None
        split = None
        if words and spec is not None:  # the guard is the line-start alternatives' only (partial)
            split = scout.derive(pattern, spec - words, guard)
            spec = words if split is not None else spec
            guard = None
        with self.lock:
            self.guard_of[pattern] = guard
            sid = None
            if split is not None:  # the other alternatives' literals from the automaton, these by a scout
                self.split_of[pattern] = split
                self._join(split)
            if found is not None:  # one search finds its candidates: its literals stay out of the automaton
                self.scout_of[pattern] = found
                self._join(found)
            elif spec is not None:
                sid = self.specs.get(spec)
                if sid is None:
                    sid = self.specs[spec] = len(self.specs)
                    self.compiled = None
            self.spec_of[pattern] = sid
        return sid

    def known(self, pattern: PatternLike) -> bool:
        """Whether ``pattern``'s start set is at hand without deriving it: seen before, or in the
        shipped table (:mod:`ctxviewer.assess.scanner.start_table`)."""
        if pattern in self.spec_of:
            return True
        return start_key(pattern) in shipped()

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
            heads = {lit[0] for lit in ids if not lit[0].isascii()}
            other_heads = _runs_outside(heads) if heads else None
            compiled = _Compiled(automata[0] if len(automata[0]) else None, automata[1] if len(automata[1]) else None,
                                 other_heads, lengths, [tuple(u) for u in users], frozenset(begin))
            self.compiled = compiled
        return compiled


_REGISTRY = _Registry()
_THAWING = threading.RLock()  # one thread learns the restored patterns' sets again (learn() re-enters spec_id)


class _Index:
    """Candidate start positions of every known start set in one text."""

    def __init__(self, text: str) -> None:
        self.text = text
        compiled = _REGISTRY.automaton()
        self.compiled = compiled
        ends: dict[int, list[int]] = {}
        self.folded = folded = fold(text)
        self._runs: list[tuple[int, int]] | None = None
        get = ends.get
        if compiled.ascii is not None:
            for end, n in compiled.ascii.iter(folded):
                found = get(n)
                if found is None:
                    ends[n] = [end]
                else:
                    found.append(end)
        if compiled.other is not None and compiled.other_heads is not None and not folded.isascii():
            lengths = compiled.lengths
            other, heads = compiled.other, compiled.other_heads.finditer
            for a, b in self.non_ascii_runs():  # the head runs lie inside these: no pass over every character
                for run in heads(folded, a, b):  # such a literal starts inside a run, may end after it
                    s, e = run.span()
                    for end, n in other.iter(folded[s:e + MAX_LITERAL]):  # a slice: the same occurrences
                        end += s
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
        self.scouted: dict[int, tuple[scout_pass.ScoutGroup, list[list[int]]]] = {}
        """Per shared scout pass (by the group's id): the group and its members' positions."""
        self.runs: dict[Scout, tuple[list[int], list[int] | None]] = {}
        """Per run scout searched in this text: its positions (:meth:`.run_scouts.RunScouts.positions`)."""

    def non_ascii_runs(self) -> list[tuple[int, int]]:
        """The non-ASCII runs of the folded text (:func:`~.non_ascii.runs`, found once per text)."""
        got = self._runs
        if got is None:
            got = self._runs = non_ascii.runs(self.folded)
        return got

    def scouted_at(self, found: Scout) -> list[int] | None:
        """Every position where ``found`` matches in its haystack, from its shared pass (run once
        per text and group), or ``None`` when it has no shared pass."""
        member = _REGISTRY.member_of.get(found)
        if member is None:
            return None
        gkey, i = member
        group = _REGISTRY.groups[gkey]
        got = self.scouted.get(id(group))
        if got is None or got[0] is not group:
            got = self.scouted[id(group)] = (group, group.positions(self.folded if gkey[0] else self.text))
        return got[1][i]

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
    at hand without deriving it (the shipped table, :mod:`ctxviewer.assess.scanner.start_table`): the
    automaton's one pass costs less than the engine trying ~90 patterns at every position (3.5x
    faster over the labelled set's short texts). A pattern not compiled yet
    (:class:`ctxviewer.assess.scanner.patterns.LazyPattern`) is compiled at the first candidate its
    line-start guard lets through, so a text where it cannot start a match never compiles it."""
    off = getattr(_LOCAL, "off", None)
    if off and pattern in off:
        return iter(())
    if getattr(_LOCAL, "plain", False):
        return pattern.finditer(text)
    if len(text) < MIN_CHARS and not force and not _REGISTRY.known(pattern):
        return pattern.finditer(text)
    sid = _REGISTRY.spec_id(pattern)
    found = _REGISTRY.scout_of.get(pattern)
    if found is not None:
        index = _index_for(text)
        at, lasts = index.scouted_at(found), None
        if at is None:
            at, lasts = _REGISTRY.run_scouts.positions(found, text, index.non_ascii_runs, index.runs) or (None, None)
        return scout.matches(pattern, found, text, index.folded if found.folded else None, at, lasts)
    if sid is None:
        return pattern.finditer(text)
    index = _index_for(text)
    cands = index.positions(sid)
    split = _REGISTRY.split_of.get(pattern)
    if split is not None:
        cands = sorted(cands + scout.candidates(split, index.folded, index.scouted_at(split)))
    if not force and len(cands) > MAX_DENSITY * len(text):
        return pattern.finditer(text)
    return _matches_at(pattern, text, cands, index.folded, _REGISTRY.guard_of.get(pattern))


def is_compiled(pattern: PatternLike) -> bool:
    """True for an ``re.Pattern`` and a :class:`ctxviewer.assess.scanner.patterns.LazyPattern` already compiled."""
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


@contextmanager
def switched_off(patterns: Iterable[PatternLike]) -> Iterator[None]:
    """Within the block (this thread), :func:`finditer` yields no match for ``patterns`` (the
    leave-one-family-out evaluation: :func:`ctxviewer.assess.scanner.provenance.held_out`)."""
    old = getattr(_LOCAL, "off", None)
    _LOCAL.off = frozenset(patterns) | (old or frozenset())
    try:
        yield
    finally:
        _LOCAL.off = old


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
            match = scout.compiled_of(pattern).match
        m = match(text, c)
        if m is not None:
            yield m
            pos = m.end()  # start_literals() refuses patterns that can match the empty string
