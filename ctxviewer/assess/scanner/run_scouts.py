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
No Qt here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ctxviewer.assess.scanner.compiled_cache import compile_pattern

_CLASS = r"\[(\^?)([!-~]+?)\]\[([!-~]+?)\]\{(\d+)\}"
"""``[X][Y]{n}`` with ASCII class bodies (no white space): :func:`kind_of` reads a scout with it."""


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
    m = re.fullmatch(_CLASS, scout.regex)
    if m is None or scout.folded or scout.flags or scout.guard is not None:
        return None
    neg, first, body, n = m.group(1), m.group(2), m.group(3), int(m.group(4))
    if first != body or any(ch in "\\[]" for ch in body) or "^" in body:
        return None
    if neg and scout.shift == 1 and scout.begin == ():
        return Outside(body, n)
    if not neg and scout.shift == 0 and scout.begin is None:
        return Inside(body, n + 1)
    return None


def serves(outside: Outside, inside: Inside) -> bool:
    """Whether every run ``inside`` looks for lies inside a run ``outside`` finds: its class a
    subset (both classes match ASCII characters only: flags 0, ASCII bodies) and its runs no shorter."""
    if inside.length < outside.length:
        return False
    wide, narrow = compile_pattern(f"[{outside.body}]"), compile_pattern(f"[{inside.body}]")
    return all(wide.match(ch) for ch in map(chr, range(128)) if narrow.match(ch))


def inside_spans(outside: Outside, at: list[int], inside: Inside, text: str) -> tuple[list[int], list[int]]:
    """``(firsts, lasts)``: the positions of ``text`` where the ``inside`` scout matches are every
    ``p`` with ``firsts[i] <= p <= lasts[i]`` for some ``i`` (sorted, disjoint), found in the runs
    the ``outside`` scout's positions ``at`` start (each the character before a run) and the
    run that starts the text."""
    run = compile_pattern(f"[{outside.body}]*")
    narrow = compile_pattern(f"[{inside.body}]{{{inside.length},}}")
    k = inside.length
    firsts: list[int] = []
    lasts: list[int] = []
    for s in [0, *(q + 1 for q in at)]:  # the text's start: an empty run when it is outside the class
        e = run.match(text, s).end()  # type: ignore[union-attr]
        if e - s < k:
            continue
        for m in narrow.finditer(text, s, e):  # [s, e) is bounded by characters outside both classes
            firsts.append(m.start())
            lasts.append(m.end() - k)
    return firsts, lasts
