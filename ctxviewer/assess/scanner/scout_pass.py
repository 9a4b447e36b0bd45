"""Shared scout passes: the scouts whose first character is one of a few rare characters, searched
together in one regular-expression pass per text instead of one pass each.

A scout (:mod:`ctxviewer.assess.scanner.scout`) is a regular expression ``LEAD REST`` whose
matches start where its pattern may start a match; :func:`~.scout.matches` asks it, again and
again, for the leftmost position ``>= pos`` where it matches. The prefilter's scouts are the
sentence-start scouts (``[.!?:\\n...](?=[ \\n]*+(?:please|reply|...))``, over the case-folded text)
and the patterns' own scouts (binary and Morse runs had theirs, ``[01]...`` and ``[.\\-]...``,
until their start literals sufficed): each is its own pass over the
text, and each pass costs about as much as the engine's charset skip over the whole text. When
``LEAD`` is a class of a few characters that are not letters (:func:`lead_of`), the scouts of one
haystack (the text or its folded form) and flags are searched as one expression (:class:`ScoutGroup`):

    [union of the leads](?:(?<=LEAD1)(?=REST1)|(?<=LEAD2)(?=REST2)|...)

A match of it is one character long, so ``finditer`` visits every position of the text; it matches
at ``p`` exactly when one of the scouts matches at ``p`` (the consumed character is the lead's, the
lookahead the rest's). At each such ``p`` (tens per 100k characters of prose) each member is tried
with its own ``LEAD(?=REST)``: :meth:`ScoutGroup.positions` is, per member, the sorted list of every
position where it matches -- so the leftmost one ``>= pos`` is the same as ``scout.search(h, pos)``
returns, and :func:`~.scout.matches` over it yields the same matches. No Qt here.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterable

from ctxviewer.assess.scanner.compiled_cache import compile_pattern, group_count
from ctxviewer.assess.scanner.scout import trie

MAX_LEAD = 24
"""A lead class of more characters (or a range, or one holding a letter) keeps its own pass: a union
of common characters would make the engine stop at most positions and try every member there."""

_LEAD = re.compile(r"\[((?:\\.|[^\]\\])+)\](.*)", re.S)
_ESCAPE = re.compile(r"\\(.)", re.S)


@functools.cache
def lead_of(regex: str) -> tuple[str, str] | None:
    """``(lead class body, rest)`` of a scout ``[LEAD]REST`` whose class enumerates at most
    :data:`MAX_LEAD` characters, none of them a letter, no range and no negation; else ``None``.
    The rest's groups are counted from the shipped compiled code (:func:`rests`), not by compiling it."""
    m = _LEAD.fullmatch(regex)
    if m is None or m.group(1).startswith("^") or not m.group(2):
        return None
    body = m.group(1)
    chars = _ESCAPE.sub(r"\1", body)
    if "-" in _ESCAPE.sub("", body) or len(chars) > MAX_LEAD or any(ch.isalpha() for ch in chars):
        return None
    if group_count(m.group(2)):  # the rest goes inside a lookahead of a bigger expression: no groups to renumber
        return None
    return body, m.group(2)


def rests(regexes: Iterable[str]) -> list[tuple[str, int]]:
    """The ``(rest, 0)`` whose groups :func:`lead_of` counts, of each of ``regexes`` that has a lead
    class (for the shipped compiled code, :mod:`ctxviewer.assess.scanner.compiled_cache`)."""
    out = []
    for regex in regexes:
        m = _LEAD.fullmatch(regex)
        if m is not None and m.group(2):
            out.append((m.group(2), 0))
    return out


@functools.lru_cache(maxsize=256)
def _guard_rest(guard: tuple[str, ...] | None) -> str | None:
    """The rest of a sentence-start scout with line-start guard ``guard`` (:func:`~.scout.derive`)."""
    return None if not guard else "(?=[ \\n]*+" + trie(set(guard)) + ")"


class ScoutGroup:
    """Scouts of one haystack and flags searched in one pass (see the module docstring).

    When every member is a sentence-start scout ``[LEAD](?=[ \\n]*+TRIE)`` whose guard is known
    (``guards``, per member: :attr:`~.scout.Scout.guard`), the pass is
    ``[union of the leads](?=[ \\n]*+TRIE of the union of the guards)`` instead: at each of the
    leads' ~100,000 stops per 2 MB of prose the engine skips the white space once and walks one
    trie, not one lookbehind, white-space skip and trie per member (25 ms -> 11 ms per 2 MB). It
    matches wherever a member does (and a few places more, where one member's lead meets another's
    guard); each member is then tried with its own ``[LEAD](?=REST)`` there, as before."""

    def __init__(self, members: tuple[tuple[str, int], ...],
                 guards: tuple[tuple[str, ...] | None, ...] | None = None) -> None:
        self.members = members
        """``(scout regex, flags)`` of each member, in the order they joined."""
        self.guards: tuple[tuple[str, ...] | None, ...] = (
            guards if guards is not None and len(guards) == len(members) else (None,) * len(members))
        """Each member's line-start guard (:attr:`~.scout.Scout.guard`), ``None`` when it has none or it is not known."""
        flags = members[0][1]
        parts = [lead_of(regex) for regex, _flags in members]
        assert all(p is not None for p in parts)
        self.single = [f"[{body}](?={rest})" for body, rest in parts]  # type: ignore[misc]
        """Each member as ``[LEAD](?=REST)``: it matches where the member does, one character long."""
        self._parts: list[tuple[str, str]] = parts  # type: ignore[assignment]
        self._regex: str | None = None
        self.flags = flags
        self._merged: re.Pattern[str] | None = None
        self._singles: list[re.Pattern[str]] | None = None

    @property
    def regex(self) -> str:
        """The one expression searched (made at first use: the prefilter remakes a group as each
        member joins, and the guards' trie of ~2,000 literals takes a few milliseconds)."""
        if self._regex is None:
            parts, guards = self._parts, self.guards
            union = "".join(body for body, _rest in parts)
            if all(g and _guard_rest(g) == rest for g, (_body, rest) in zip(guards, parts)):
                every = {lit for g in guards if g for lit in g}
                self._regex = f"[{union}](?=[ \\n]*+{trie(every)})"
            else:
                alts = "|".join(f"(?<=[{body}])(?={rest})" for body, rest in parts)
                self._regex = f"[{union}](?:{alts})"
        return self._regex

    def regexes(self) -> list[tuple[str, int]]:
        """Every expression this group compiles (for the shipped compiled code)."""
        return [(self.regex, self.flags), *((s, self.flags) for s in self.single)]

    def positions(self, haystack: str) -> list[list[int]]:
        """Per member, the sorted positions of ``haystack`` where it matches (one pass, then
        each member tried at the positions that pass found)."""
        if self._merged is None:
            self._singles = [compile_pattern(s, self.flags) for s in self.single]
            self._merged = compile_pattern(self.regex, self.flags)
        singles = self._singles
        assert singles is not None
        out: list[list[int]] = [[] for _ in singles]
        hits = [m.start() for m in self._merged.finditer(haystack)]
        if len(singles) == 1:
            return [hits]
        for i, single in enumerate(singles):
            match = single.match
            out[i] = [p for p in hits if match(haystack, p) is not None]
        return out


def groups_of(scouts: Iterable[Any]) -> dict[tuple[bool, int], ScoutGroup]:
    """The shared passes of ``scouts`` (:class:`~.scout.Scout`), each joining its group in order
    (:func:`group_key`; repeated scouts once)."""
    members: dict[tuple[bool, int], dict[tuple[str, int], tuple[str, ...] | None]] = {}
    for found in scouts:
        key = group_key(found)
        if key is not None:
            members.setdefault(key, {}).setdefault((found.regex, found.flags), getattr(found, "guard", None))
    return {key: ScoutGroup(tuple(m), tuple(m.values())) for key, m in members.items()}


def group_key(scout: Any) -> tuple[bool, int] | None:
    """The group a scout may join -- ``(searched in the folded text, flags)`` -- or ``None``."""
    return (bool(scout.folded), int(scout.flags)) if lead_of(scout.regex) is not None else None
