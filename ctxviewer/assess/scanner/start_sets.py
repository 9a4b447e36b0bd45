"""Start sets of scanner patterns: which literals every match of a pattern starts with (or follows),
derived from the compiled pattern's syntax tree (:mod:`re._parser`), and its line-start guard.

The derivation behind the prefilter (:mod:`ctxviewer.assess.scanner.prefilter`): a pure function of
a pattern's text and flags, so its results are also shipped as a table
(:mod:`ctxviewer.assess.scanner.start_table`, fingerprinted with this module's source). Case
folding is the engine's (:mod:`.case_fold`). No Qt here.
"""

from __future__ import annotations

import re
from re import _constants as C
from re import _parser
from typing import Any, Iterator, Protocol

from ctxviewer.assess.scanner.case_fold import SPACES as _SPACES
from ctxviewer.assess.scanner.case_fold import fold, fold_char

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
    (:class:`ctxviewer.assess.scanner.patterns.LazyPattern`): source, flags, ``match`` and ``finditer``."""

    @property
    def pattern(self) -> str: ...

    @property
    def flags(self) -> int: ...

    def match(self, string: str, pos: int = 0) -> re.Match[str] | None: ...

    def finditer(self, string: str) -> Iterator[re.Match[str]]: ...


_BEGIN = ("", 0)
"""The start of the text (``^``): the one candidate position 0."""

Start = tuple[str, int]
"""``(literal, shift)``: a match may start ``shift`` characters after an occurrence of ``literal``
in the folded text (0: the match starts with it; ``len(literal)``: a lookbehind requires it just
before the match). ``("", 0)`` is the start of the text."""


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
    ``None``. For top-level alternatives only some of which are so (the others starting with
    literals), the same literals of those that are: then a guard on the candidates of the start
    set's lookbehind characters and start of the text only (:func:`_partial_guard`). Its
    candidates (after every full stop...) are many; one whose next non-space characters start
    none of these cannot match, so the prefilter skips it without calling the engine."""
    try:
        tree = _parser.parse(pattern.pattern, pattern.flags)
        multiline = bool(tree.state.flags & re.MULTILINE)
        items = _unwrapped(list(tree.data))
        after = _after_line_start(items)
        if after is not None:
            return _guard(after, multiline)
        if len(items) == 1 and items[0][0] is C.BRANCH:
            return _partial_guard([_unwrapped(list(alt.data)) for alt in items[0][1][1]], multiline)
    except (_Unbounded, RecursionError):
        return None
    return None


def _partial_guard(alternatives: list[list[Any]], multiline: bool) -> tuple[str, ...] | None:
    """The guard of top-level alternatives some of which start a sentence or a line and the others
    with literals (shift 0, not the start of the text): the literals one of which the line-start
    alternatives' REST starts with -- a guard on the candidates of the start set's lookbehind
    characters and start of the text only (the others' literals are candidates as they are)."""
    guard: set[str] = set()
    for body in alternatives:
        after = _after_line_start(body)
        if after is not None:
            got = _guard(after, multiline)
            if got is None:
                return None
            guard.update(got)
            continue
        starts = _starts(body, True, multiline)
        if not starts or any(shift or not lit for lit, shift in starts):
            return None
    return tuple(sorted(guard)) if guard else None


def _unwrapped(items: list[Any]) -> list[Any]:
    while len(items) == 1 and items[0][0] is C.SUBPATTERN and not items[0][1][1] and not items[0][1][2]:
        items = list(items[0][1][-1].data)
    return items


def _after_line_start(items: list[Any]) -> list[Any] | None:
    """The items after a line-start head (``^\\s*+``, ``(?:^\\s*+|(?<=[.!?])\\s*+)``), else ``None``."""
    if len(items) < 2:
        return None
    if _opens(items[0]) and _white_run(items[1]):
        return items[2:]
    head = items[0]
    body = list(head[1][-1].data) if head[0] is C.SUBPATTERN else [head]
    alts = [list(a.data) for a in body[0][1][1]] if len(body) == 1 and body[0][0] is C.BRANCH else [body]
    for alt in alts:
        if len(alt) != 2 or not _opens(alt[0]) or not _white_run(alt[1]):
            return None
    return items[1:]


def _guard(rest_items: list[Any], multiline: bool) -> tuple[str, ...] | None:
    rest = _starts(rest_items, False, multiline)
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
    """The union of ``parts`` (``None`` if one is), its literals cut shorter (:func:`_cut`) when
    it would hold more than :data:`MAX_SET`."""
    out: set[Start] = set()
    for p in parts:
        if p is None:
            return None
        out |= p
    return _cut(out) if len(out) > MAX_SET else out


def _cut(starts: set[Start]) -> set[Start]:
    """``starts`` with every literal cut to the longest length that leaves at most :data:`MAX_SET`
    of them: exact, since a match that starts with a literal starts with its first ``k``
    characters, and one that a lookbehind literal precedes is preceded by its last ``k``. Raises
    :class:`_Unbounded` when even one character each is too many."""
    for k in range(max(len(lit) for lit, _shift in starts) - 1, 0, -1):
        out = {(lit[:k], 0) if not shift else (lit[-k:], k) if shift == len(lit) else (lit, shift)
               for lit, shift in starts}
        if len(out) <= MAX_SET:
            return out
    raise _Unbounded()


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
        return {fold_char(av)}
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
            chars.add(fold_char(av))
        elif op is C.RANGE:
            lo, hi = av
            if hi - lo > _MAX_CLASS:
                return None
            chars.update(fold_char(cp) for cp in range(lo, hi + 1))
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
        run = _char_run(av, rest, multiline, room)
        if run is not None:
            return run
        if lo == 0 and _hi == 1:  # X?REST: what X·REST or REST starts with, so "the\s+" in
            try:                  # (?:the\s+)?(?:user|...) gives "the user", not every "the "
                both = _union([_starts(list(body.data) + rest, at_start, multiline, room),
                               _starts(rest, at_start, multiline, room)])
            except _Unbounded:
                both = None
            if both is not None:
                return both
        if lo > 0 and body.getwidth()[0] > 0:  # X{n,m}REST = X X{n-1,m-1}REST: lengthen into the next X
            again = [(op, (lo - 1, _hi if _hi == C.MAXREPEAT else _hi - 1, body))] if _hi != 1 else []
            try:
                more = _starts(list(body.data) + again + rest, at_start, multiline, room)
            except _Unbounded:
                more = None
            if more is not None:
                return more
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


_MAX_RUN_CHARS = 2
"""A run (``\\s+``) is lengthened past only when its class folds to at most this many characters
(the space and the line break): the literals then number ``n * len(rest) + n * n``."""
_MAX_RUN_SET = 256
"""At most this many literals from lengthening past one run (more, and the alternatives around it
would multiply past :data:`MAX_SET`: the run's first character is taken instead)."""


def _char_run(av: Any, rest: list[Any], multiline: bool, room: int) -> set[Start] | None:
    """The start set of a run of one small class followed by ``rest`` (``the\\s+new``): one
    character of the class then what ``rest`` starts with (the run is exactly one long), or two
    characters of the class (it is longer) -- so ``the\\s+new`` starts with ``"the new"``,
    ``"the\\nnew"`` or a double white space, not with every ``"the "``. ``None`` when the run is not
    of that shape (then only its first character is taken, as before). Exact: every match of the
    run plus ``rest`` starts with one of these strings."""
    lo, hi, body = av
    if lo != 1 or hi < 2 or room < 2:
        return None
    chars = _exact(list(body.data))
    if chars is None or not chars or len(chars) > _MAX_RUN_CHARS or any(len(c) != 1 for c in chars):
        return None
    for want in range(room - 1, 0, -1):  # too many literals: what follows the run, cut shorter
        tail = _continue(rest, multiline, want)
        if tail is None:
            return None
        out = {((c + t)[:room], 0) for c in chars for t in tail} | {(a + b, 0) for a in chars for b in chars}
        if len(out) <= _MAX_RUN_SET:
            return out
    return None


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
