"""Scouts: one regular-expression search in C that finds a pattern's candidate starts, where the
prefilter's Aho-Corasick candidates are too many to try one by one in Python.

A pattern's candidates (:mod:`ctxviewer.assess.scanner.prefilter`) are the positions where one of
its start literals occurs; each is tried with ``pattern.match``. For two kinds of pattern those
literals are single common characters -- every full stop, bar, colon or line break for a
sentence-start pattern (``(?:^\\s*+|(?<=[.!?|])\\s*+)(?:please|reply|...)``); the 8-bit binary
groups and Morse code had every ``0``, ``1``, ``.`` and ``-`` until :mod:`.start_sets` lengthened
a repeat into its next copy -- and a megabyte of prose has tens of thousands of them (most of the scanner's time on benign prose). A *scout* is a regular expression
that matches wherever the pattern can start a match (a necessary condition, never sufficient):

- a sentence-start pattern whose start set is the start of the text plus single characters that a
  lookbehind requires (shift 1), with a line-start guard (:func:`~.start_sets.line_start_guard`):
  ``[those characters](?=[ \\n]*+(?:guard literals))`` over the case-folded text, the candidate being
  the character after the scout's match -- exactly the candidates the guard lets through;
- a pattern that names its own (:attr:`ctxviewer.assess.scanner.patterns.LazyPattern.scout`),
  searched in the text itself: matching at every candidate, or (``(regex, 1)``) at the character
  before every candidate but the text's start (a run that a lookbehind says starts after a character
  outside it: ``[^A-Za-z0-9+/][A-Za-z0-9+/]{20}`` for base64).

:func:`matches` then yields exactly ``pattern.finditer(text)``: ``scout.search`` from the end of the
last match returns the leftmost position where a match may start, the pattern is tried there, and
the search goes on from the next position (or the match's end). No Qt here.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any, Iterator

from ctxviewer.assess.scanner.compiled_cache import compile_pattern
from ctxviewer.assess.scanner.start_sets import Start


@dataclass(frozen=True)
class Scout:
    """How to find one pattern's candidate starts with one search."""

    regex: str
    """The scout's source; compiled on first use (:meth:`compiled`)."""
    flags: int
    """Its ``re`` flags."""
    shift: int
    """A candidate is the scout match's start plus this many characters."""
    folded: bool
    """Searched in the case-folded text (:func:`~.case_fold.fold`), else in the text."""
    begin: tuple[str, ...] | None
    """The start of the text is a candidate too when this is not ``None``: when the folded text,
    after its leading ``[ \\n]*``, starts with one of these (``()``: always)."""
    guard: tuple[str, ...] | None = None
    """A sentence-start scout's line-start guard: the scout is ``[leads](?=[ \\n]*+TRIE)``, ``TRIE``
    being :func:`trie` of these literals (a shared pass merges its members' guards into one trie:
    :mod:`ctxviewer.assess.scanner.scout_pass`); ``None`` for any other scout."""

    def compiled(self) -> re.Pattern[str]:
        """The compiled scout (compiled once, from the shipped engine code when it is current:
        :mod:`ctxviewer.assess.scanner.compiled_cache`)."""
        return _compile(self.regex, self.flags)


_CACHE: dict[tuple[str, int], re.Pattern[str]] = {}


def _compile(regex: str, flags: int) -> re.Pattern[str]:
    got = _CACHE.get((regex, flags))
    if got is None:
        got = _CACHE[(regex, flags)] = compile_pattern(regex, flags)
    return got


def derive(pattern: Any, spec: frozenset[Start] | None, guard: tuple[str, ...] | None) -> Scout | None:
    """The scout of ``pattern`` (its start set ``spec`` and line-start guard ``guard``, as
    :func:`ctxviewer.assess.scanner.start_table.lookup` gives them), or ``None`` when the
    prefilter's candidates serve: the pattern's own ``scout`` (searched in the text, shift 0), else
    the sentence-start scout described in the module docstring."""
    own = getattr(pattern, "scout", None)
    if isinstance(own, str):
        return Scout(own, 0, 0, False, None)
    if isinstance(own, tuple):  # (regex, 1): it matches the character before every start but the text's first
        return Scout(str(own[0]), 0, int(own[1]), False, ())
    if spec is None:
        return None
    if guard is None or not guard:
        return None
    chars = sorted(lit for lit, shift in spec if lit)
    if not chars or any(len(lit) != 1 or shift != 1 for lit, shift in spec if lit):
        return None
    # a class first: the engine skips to the characters in it (its "charset prefix")
    regex = "[" + "".join(re.escape(c) for c in chars) + "](?=[ \\n]*+" + trie(set(guard)) + ")"
    return Scout(regex, 0, 1, True, guard if ("", 0) in spec else None, tuple(sorted(set(guard))))


def trie(literals: set[str]) -> str:
    """A regular expression matching exactly the strings of ``literals`` (non-empty), shaped as a
    trie -- ``(?:a(?:lso|lways)|now)`` -- so the engine checks each character once, not each
    literal in turn (2.5x faster for the 88 literals of the longest guard). Branches in code-point
    order; made from the sorted literals in one walk (a shared pass's ~2,000 in about a millisecond)."""
    lits = sorted(literals)
    return _trie(lits, 0, len(lits), 0)


def _trie(lits: list[str], lo: int, hi: int, depth: int) -> str:
    """:func:`trie` of ``lits[lo:hi]`` (sorted, distinct, sharing their first ``depth`` characters)
    without that prefix."""
    optional = lo < hi and len(lits[lo]) == depth  # the prefix itself: sorted first
    i = lo + optional
    alts = []
    while i < hi:
        ch = lits[i][depth]
        j = i + 1
        while j < hi and lits[j][depth] == ch:
            j += 1
        alts.append(re.escape(ch) + _trie(lits, i, j, depth + 1))
        i = j
    if not alts:
        return ""
    if len(alts) == 1 and not optional:
        return alts[0]
    return "(?:" + "|".join(alts) + ")" + ("?" if optional else "")


_SPACE_RUN = re.compile("[ \n]*")


def candidates(scout: Scout, folded: str, at: list[int] | None = None) -> list[int]:
    """Every candidate ``scout`` finds in the case-folded text, in order (a scout over the folded
    text whose matches are one character long: the lookbehind characters of a pattern's
    line-start alternatives, its other alternatives' candidates coming from the automaton).
    ``at``: every position where the scout matches, found already by a shared pass
    (:mod:`ctxviewer.assess.scanner.scout_pass`); else it is searched now."""
    out = []
    if scout.begin is not None and (not scout.begin or folded.startswith(scout.begin, _SPACE_RUN.match(folded).end())):  # type: ignore[union-attr]
        out.append(0)
    shift = scout.shift
    if at is not None:
        out.extend(p + shift for p in at)
    else:
        out.extend(m.start() + shift for m in scout.compiled().finditer(folded))
    return out


def matches(pattern: Any, scout: Scout, text: str, folded: str | None,
            at: list[int] | None = None, lasts: list[int] | None = None) -> Iterator[re.Match[str]]:
    """The matches of ``pattern.finditer(text)``, trying ``pattern`` only where ``scout`` finds a
    candidate. ``folded`` is the case-folded text (needed when ``scout.folded``). ``at``: the sorted
    positions of the haystack where the scout matches, found by a shared pass
    (:mod:`ctxviewer.assess.scanner.scout_pass`): the leftmost one ``>= pos`` is what
    ``scout.search`` would return. ``lasts`` (with ``at``): the scout matches at every position
    from ``at[i]`` to ``lasts[i]`` (:mod:`ctxviewer.assess.scanner.run_scouts`). The pattern itself (a
    :class:`~ctxviewer.assess.scanner.patterns.LazyPattern`) is compiled at the first candidate only."""
    haystack = folded if scout.folded else text
    assert haystack is not None
    match = None
    pos = 0
    if scout.begin is not None:
        lead = _SPACE_RUN.match(haystack).end()  # type: ignore[union-attr]
        if not scout.begin or haystack.startswith(scout.begin, lead):
            match = compiled_of(pattern).match
            m = match(text, 0)
            if m is not None:
                yield m
                pos = m.end()
    search = scout.compiled().search if at is None else None
    ends = at if lasts is None else lasts
    shift = scout.shift
    n = len(text)
    i = 0
    while pos <= n:
        if search is not None:
            s = search(haystack, max(pos - shift, 0))
            if s is None:
                return
            c = s.start() + shift
        else:
            assert at is not None and ends is not None
            t = max(pos - shift, 0)
            i = bisect.bisect_left(ends, t, i)
            if i == len(ends):
                return
            c = max(at[i], t) + shift
        if match is None:
            match = compiled_of(pattern).match
        m = match(text, c)
        if m is not None:
            yield m
            pos = m.end()  # start_literals() refuses patterns that can match the empty string
        else:
            pos = c + 1


def compiled_of(pattern: Any) -> Any:
    """The ``re.Pattern`` behind ``pattern`` (a :class:`~ctxviewer.assess.scanner.patterns.LazyPattern`
    compiles now): calling it directly saves a Python call per candidate."""
    compiled = getattr(type(pattern), "compiled", None)
    return compiled(pattern) if callable(compiled) else pattern
