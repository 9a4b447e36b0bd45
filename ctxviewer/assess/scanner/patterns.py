"""The scanner's one shape: a rule finds :class:`Hit` spans in one text (no trace, no Qt).

A rule belongs to a *family* (a kind of attack, e.g. "override of earlier instructions") and
reports each match as a :class:`Hit`: a ``[start, end)`` span in code points of the text, the
rule id (``injection.<family>``), a reason in words and a severity. Rules are regular
expressions or small functions over the text; they never see which item the text came from --
:mod:`ctxviewer.assess.scanner.scope` decides which items are scanned at all.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Protocol, runtime_checkable

from ctxviewer.assess.scanner.compiled_cache import compile_pattern
from ctxviewer.assess.scanner.prefilter import finditer
from ctxviewer.model.findings import Severity


@dataclass(frozen=True)
class Hit:
    """One match of a rule in one text."""

    rule: str
    """Rule id, ``"injection.<family>"`` (e.g. ``"injection.override"``)."""
    start: int
    """First code point of the matched span (0-based)."""
    end: int
    """One past the last code point of the span."""
    reason: str
    """Why this span looks like text addressed to the model, in words."""
    severity: Severity
    """How strong the signal is (``warning`` for phrasing, ``failure`` for markers and hidden text)."""


@runtime_checkable
class Rule(Protocol):
    """A rule of one family: ``find(text)`` yields its hits, in text order. The shape of a built-in
    rule and of a ``ctxviewer.scanner_rules`` plug-in alike (checked when it is loaded)."""

    @property
    def id(self) -> str:
        """Rule id, ``"injection.<family>"``; several rules may share one family id."""
        ...

    @property
    def title(self) -> str:
        """One line of words for the family, e.g. ``"override of earlier instructions"``."""
        ...

    def find(self, text: str) -> Iterable[Hit]:
        """The hits of this rule in ``text`` (spans in code points)."""
        ...


MADE: list[tuple[str, int]] = []
"""``(pattern, flags)`` of every :class:`LazyPattern` made in this process (the compiled-code table's build)."""


class LazyPattern:
    """A regular expression compiled when first used, not at import (compiling the
    scanner's ~200 patterns took ~0.1 s of every command's start-up, also of commands that scan
    nothing). Same ``pattern`` and ``flags`` as ``re.compile(pattern, flags)``; ``finditer``,
    ``search``, ``match`` and ``fullmatch`` behave exactly like the compiled pattern's."""

    __slots__ = ("_compiled", "flags", "pattern", "scout")

    def __init__(self, pattern: str, flags: int = 0, *, scout: str | tuple[str, int] | None = None) -> None:
        self.pattern = pattern
        """The pattern text, as given."""
        self.flags = flags
        """The ``re`` flags, as given."""
        self.scout = scout
        """Optional: a regular expression (flags 0) that matches at every position where this
        pattern can start a match, rare in prose -- the prefilter then finds candidates with one
        search of it (:mod:`ctxviewer.assess.scanner.scout`) instead of its start literals;
        ``(regex, 1)``: one that matches at the character before every start but the text's first. A
        scout that misses a start would lose hits: the tests compare with the engine's own scan."""
        self._compiled: re.Pattern[str] | None = None
        MADE.append((pattern, flags))

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled on the first call, from the shipped engine code when it is
        current: :mod:`ctxviewer.assess.scanner.compiled_cache`; raises ``re.error`` for a bad pattern)."""
        if self._compiled is None:
            self._compiled = compile_pattern(self.pattern, self.flags)
        return self._compiled

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        """``re.Pattern.finditer``."""
        return self.compiled().finditer(string, pos, endpos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """``re.Pattern.search``."""
        return self.compiled().search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """``re.Pattern.match``."""
        return self.compiled().match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """``re.Pattern.fullmatch``."""
        return self.compiled().fullmatch(string, pos, endpos)

    def __getattr__(self, name: str) -> Any:  # anything else a compiled pattern has
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self.flags!r})"


Pattern = re.Pattern[str] | LazyPattern
"""A compiled pattern or one compiled on first use (:class:`LazyPattern`)."""


@dataclass(frozen=True)
class PatternRule:
    """A rule made of regular expressions, each with its reason (``{m}`` is the matched text)."""

    id: str
    title: str
    patterns: tuple[tuple[Pattern, str], ...]
    severity: Severity = Severity.WARNING
    accept: Callable[[str, re.Match[str]], bool] | None = None
    """Optional extra test on a match (e.g. "the sentence is addressed to the model")."""

    def find(self, text: str) -> Iterator[Hit]:
        """Every pattern's non-overlapping matches, as hits with the pattern's reason."""
        for pattern, reason in self.patterns:
            for m in finditer(pattern, text):
                if m.end() == m.start() or (self.accept and not self.accept(text, m)):
                    continue
                start, end = m.start(), m.end()
                while start < end and text[start].isspace():
                    start += 1
                while end > start and text[end - 1].isspace():
                    end -= 1
                yield Hit(self.id, start, end, reason.format(m=_short(text[start:end])), self.severity)


def _short(s: str, n: int = 60) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def rx(*alternatives: str) -> LazyPattern:
    """One case-insensitive pattern from ``alternatives`` (verbose off, Unicode word classes),
    compiled on first use (:class:`LazyPattern`)."""
    return LazyPattern("|".join(f"(?:{a})" for a in alternatives), re.IGNORECASE | re.UNICODE)
