"""Run scouts: a scout for runs of a class found from another scout's runs of a wider class, so the
text is searched once for both.

Two of the patterns' own scouts (:attr:`ctxviewer.assess.scanner.patterns.LazyPattern.scout`) find
runs of an ASCII class: the base64 scout ``[^B][B]{20}`` (shift 1: it matches at the character
before every run of at least 20 base64 characters, the text's start aside) and the hex scout
``[C][C]{23}`` (shift 0: at every position that 24 hex digits follow). Each was its own pass over
the text -- 8 and 12--14 ms per 2 MB of prose. Every hex digit is a base64 character, so a run of
24 hex digits lies inside a maximal run of at least 24 base64 characters, and every such run is
found by the base64 scout (or starts the text). :func:`inside_spans` takes the base64 scout's
positions, measures each run once and searches only the runs at least 24 long for the hex runs:
the positions where the hex scout matches are, per hex run ``[a, b)`` of at least 24, every ``p`` in
``[a, b - 24]`` -- given as ``(firsts, lasts)`` spans so that a long hex run costs one entry,
which :func:`~ctxviewer.assess.scanner.scout.matches` reads as it reads a shared pass's positions.

A scout of runs of non-ASCII characters that case folding leaves as they are (the variation
selectors' ``[\U000e0100-\U000e01ef]{4}``: 5 ms per 2 MB of prose, a pass over every character) is
searched the same way inside the non-ASCII runs of the folded text the prefilter finds anyway
(:func:`ctxviewer.assess.scanner.non_ascii.runs`; folding keeps offsets, and keeps each of these
characters non-ASCII): :func:`spans_in`. No Qt here.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from re import _parser
from typing import Any, Callable

from ctxviewer.assess.scanner.case_fold import fold
from ctxviewer.assess.scanner.compiled_cache import compile_pattern

_CLASS = r"\[(\^?)([^\]\\^][^\]\\]*)\]\[([^\]\\^][^\]\\]*)\]\{(\d+)\}"
"""``[X][Y]{n}`` or ``[^X][Y]{n}``, class bodies without escapes or brackets: :func:`kind_of` reads a scout with it."""
MAX_CLASS = 4096
"""A class of more characters is not a run scout's (its members are enumerated)."""


@dataclass(frozen=True)
class Outside:
    """A scout ``[^B][B]{n}`` (shift 1, the text's start a candidate): it finds the runs of at
    least ``n`` characters of ``[B]``."""

    body: str
    length: int


@dataclass(frozen=True)
class Inside:
    """A scout ``[C][C]{n-1}`` (shift 0): it matches wherever ``n`` characters of ``[C]`` follow."""

    body: str
    length: int


def kind_of(scout: Any) -> Outside | Inside | None:
    """The run scout ``scout`` (a :class:`~ctxviewer.assess.scanner.scout.Scout`) is, or ``None``:
    searched in the text, flags 0, a class body of ASCII characters without escapes or brackets."""
    m = re.fullmatch(_CLASS, scout.regex, re.S)
    if m is None or scout.folded or scout.flags or getattr(scout, "guard", None) is not None:
        return None
    neg, first, body, n = m.group(1), m.group(2), m.group(3), int(m.group(4))
    if first != body or members(body) is None:
        return None
    if neg and scout.shift == 1 and scout.begin == ():
        return Outside(body, n)
    if not neg and scout.shift == 0 and scout.begin is None:
        return Inside(body, n + 1)
    return None


@functools.cache
def members(body: str) -> frozenset[str] | None:
    """The characters of the class ``[body]`` (flags 0): literals and ranges only, at most
    :data:`MAX_CLASS`; else ``None``."""
    try:
        tree = _parser.parse(f"[{body}]", 0)
    except re.error:
        return None
    if len(tree) != 1 or str(tree[0][0]) != "IN":
        return None
    out: set[str] = set()
    for op, arg in tree[0][1]:
        if str(op) == "LITERAL":
            out.add(chr(arg))
        elif str(op) == "RANGE" and arg[1] - arg[0] < MAX_CLASS:
            out.update(map(chr, range(arg[0], arg[1] + 1)))
        else:
            return None
    return frozenset(out) if len(out) <= MAX_CLASS else None


def serves(outside: Outside, inside: Inside) -> bool:
    """Whether every run ``inside`` looks for lies inside a run ``outside`` finds: its class a
    subset and its runs no shorter."""
    wide, narrow = members(outside.body), members(inside.body)
    return inside.length >= outside.length and wide is not None and narrow is not None and narrow <= wide


def in_non_ascii_runs(inside: Inside) -> bool:
    """Whether every run ``inside`` looks for lies inside a non-ASCII run of the folded text:
    every character of its class non-ASCII and folded to itself (:func:`~.case_fold.fold`)."""
    narrow = members(inside.body)
    return narrow is not None and all(not ch.isascii() and fold(ch) == ch for ch in narrow)


def spans_in(runs: list[tuple[int, int]], inside: Inside, text: str) -> tuple[list[int], list[int]]:
    """``(firsts, lasts)`` as :func:`inside_spans` gives them, searched in ``runs`` only (``[s, e)``
    spans of ``text`` holding every run of the ``inside`` scout's class that is long enough, each
    bounded by characters outside the class)."""
    narrow = compile_pattern(f"[{inside.body}]{{{inside.length},}}")
    k = inside.length
    firsts: list[int] = []
    lasts: list[int] = []
    for s, e in runs:
        if e - s < k:
            continue
        for m in narrow.finditer(text, s, e):
            firsts.append(m.start())
            lasts.append(m.end() - k)
    return firsts, lasts


@functools.cache
def _byte_table(body: str) -> bytes | None:
    """256 bytes mapping each byte of the class ``[body]`` to ``a``, every other byte to a space;
    ``None`` unless every member is ASCII and ``?`` (what a non-ASCII character encodes to) is none."""
    chars = members(body)
    if chars is None or "?" in chars or not all(ch.isascii() for ch in chars):
        return None
    return bytes(0x61 if chr(i) in chars else 0x20 for i in range(256))


def outside_positions(outside: Outside, text: str) -> list[int] | None:
    """Every position where the ``outside`` scout ``[^B][B]{n}`` matches in ``text`` -- the
    character before each maximal run of ``[B]`` at least ``n`` long, but the one that starts the
    text -- without the engine (which stops at every character outside the class: 18 ms per 2 MB of
    prose): the text encoded to ASCII with one ``?`` per other character (offsets kept), translated
    to ``a`` for the class and a space for the rest, then ``bytes.find`` of ``n`` ``a``s, run after
    run (5 ms). ``None`` when the class is not one of ASCII characters without ``?``."""
    table = _byte_table(outside.body)
    if table is None:
        return None
    marks = text.encode("ascii", "replace").translate(table)
    find, needle, n = marks.find, b"a" * outside.length, outside.length
    out: list[int] = []
    pos = 0
    while True:
        i = find(needle, pos)  # a run's start: pos is 0 or just past a run, so marks[i - 1] is a space
        if i < 0:
            return out
        if i:
            out.append(i - 1)
        pos = find(b" ", i + n)
        if pos < 0:
            return out


def inside_spans(outside: Outside, at: list[int], inside: Inside, text: str) -> tuple[list[int], list[int]]:
    """``(firsts, lasts)``: the positions of ``text`` where the ``inside`` scout matches are every
    ``p`` with ``firsts[i] <= p <= lasts[i]`` for some ``i`` (sorted, disjoint), found in the runs
    the ``outside`` scout's positions ``at`` start (each the character before a run) and the
    run that starts the text."""
    run = compile_pattern(f"[{outside.body}]*")
    runs = []
    for s in [0, *(q + 1 for q in at)]:  # the text's start: an empty run when it is outside the class
        e = run.match(text, s).end()  # type: ignore[union-attr]
        runs.append((s, e))  # bounded by characters outside both classes
    return spans_in(runs, inside, text)


NON_ASCII = "non-ASCII runs"
"""The server of an inside run scout whose runs lie inside the folded text's non-ASCII runs."""


class RunScouts:
    """The run scouts the prefilter has met (:meth:`add`) and which serves which."""

    def __init__(self) -> None:
        self.kind: dict[Any, Outside | Inside] = {}
        """Per run scout (a :class:`~ctxviewer.assess.scanner.scout.Scout`): its kind."""
        self._served_by: dict[Any, Any] = {}

    def add(self, scout: Any) -> None:
        """Remember ``scout`` if it is a run scout (:func:`kind_of`)."""
        kind = kind_of(scout)
        if kind is not None and scout not in self.kind:
            self.kind = {**self.kind, scout: kind}  # a new dict: readers in other threads see one or the other
            self._served_by = {}

    def server_of(self, scout: Any) -> Any:
        """The outside run scout whose runs the inside run scout ``scout`` is searched in,
        :data:`NON_ASCII` (the folded text's non-ASCII runs), or ``None``."""
        served = self._served_by
        if scout in served:
            return served[scout]
        inside, kinds = self.kind.get(scout), self.kind
        got = None
        if isinstance(inside, Inside):
            got = next((s for s, k in kinds.items() if isinstance(k, Outside) and serves(k, inside)), None)
            if got is None and in_non_ascii_runs(inside):
                got = NON_ASCII
        served[scout] = got
        return got

    def positions(self, scout: Any, text: str, non_ascii_runs: Callable[[], list[tuple[int, int]]],
                  memo: dict[Any, tuple[list[int], list[int] | None]]) -> tuple[list[int], list[int] | None] | None:
        """``(at, lasts)`` for :func:`~ctxviewer.assess.scanner.scout.matches` when ``scout`` is a run
        scout served here: an outside one's positions in ``text`` (one search, kept in ``memo`` --
        per text -- for the inside scouts it serves; ``lasts`` ``None``), an inside one's spans
        (:func:`inside_spans`, :func:`spans_in` over ``non_ascii_runs()``, the folded text's); else ``None``."""
        got = memo.get(scout)
        if got is not None:
            return got
        kind = self.kind.get(scout)
        if isinstance(kind, Outside):
            fast = outside_positions(kind, text)
            got = memo[scout] = (fast if fast is not None else [m.start() for m in scout.compiled().finditer(text)], None)
        elif isinstance(kind, Inside):
            server = self.server_of(scout)
            if server == NON_ASCII:
                got = memo[scout] = spans_in(non_ascii_runs(), kind, text)
                return got
            outer = self.positions(server, text, non_ascii_runs, memo) if server is not None else None
            outside = self.kind.get(server) if server is not None else None
            if outer is None or not isinstance(outside, Outside):
                return None
            got = memo[scout] = inside_spans(outside, outer[0], kind, text)
        return got
