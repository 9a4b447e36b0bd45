"""The scanner's rule registry and :func:`scan_text`: every family over one text.

:data:`RULES` is a :class:`~ctxviewer.util.plugins.PluginRegistry` of :class:`~.patterns.Rule`
objects: the built-ins of :data:`BUILTIN` in a fixed order (one module per family), rules added
with :func:`register`, then plug-ins from the entry-point group :data:`ENTRY_POINT_GROUP`
(``ctxviewer.scanner_rules``; an entry point names a rule object, or a class or factory returning
one). :func:`scan_text` runs each rule in isolation -- a rule that raises is skipped for that text
and recorded once in ``RULES.problems`` (naming the rule and the error), never breaking the scan;
a plug-in that could not be loaded is left out and recorded there too -- and returns the hits
sorted by position, overlapping hits of the same rule merged into the strongest one. A text with
disguises (zero-width characters, homoglyphs, fullwidth letters, tag characters:
:mod:`.normalise`) is scanned again as a model reads it; a hit there that covers a disguise is
reported on the original span, as a ``failure``, its reason naming the disguise.
"""

from __future__ import annotations

import functools
import re
import sys
import threading
from typing import Any, Iterator

from ctxviewer.assess.scanner import prefilter, prefilter_memo, start_table
from ctxviewer.assess.scanner.encoded import ENCODED
from ctxviewer.assess.scanner.invisible import INVISIBLE
from ctxviewer.assess.scanner.multilingual import MULTILINGUAL
from ctxviewer.assess.scanner.normalise import normalise
from ctxviewer.assess.scanner.override import OVERRIDE
from ctxviewer.assess.scanner.patterns import Hit, LazyPattern, Pattern, PatternRule, Rule
from ctxviewer.model.findings import Severity
from ctxviewer.util.interrupt import checkpoint, progress
from ctxviewer.util.plugins import PluginRegistry, conform, source_of

ENTRY_POINT_GROUP = "ctxviewer.scanner_rules"
"""Entry-point group third-party scanner rules register under."""

BUILTIN = tuple(f"ctxviewer.assess.scanner.{spec}" for spec in (
    "override:OVERRIDE", "template:ROLE_MARKERS", "tool_request:TOOL_REQUEST", "invisible:INVISIBLE",
    "exfil:EXFILTRATION", "hidden:HIDDEN", "address:ADDRESS", "intent:INTENT", "intent_features:INTENT_FEATURES", "multilingual:MULTILINGUAL",
    "multilingual_intent:MULTILINGUAL_ACTION", "encoded:ENCODED"))
"""The built-in rules in running order. Family ids: ``injection.override``, ``.role_marker``,
``.tool_request``, ``.invisible``, ``.exfiltration``, ``.hidden``, ``.address``, ``.intent``,
``.multilingual``, ``.encoded`` (``multilingual_intent`` reports under ``.tool_request``)."""


def rule_of(obj: Any) -> Rule:
    """An entry point's (or built-in spec's) object as a scanner rule, its shape checked (a class
    or factory is called first). Raises :class:`TypeError` for an object without ``id``,
    ``title`` and ``find``, or whose ``id`` is not a non-empty string."""
    rule: Rule = conform(obj, Rule, "a scanner rule", "id, title, find")
    if not isinstance(rule.id, str) or not rule.id:
        raise TypeError(f"{rule!r}: a scanner rule's id is a non-empty string, not {rule.id!r}")
    return rule


_LEARNT: list[bool] = []  # [True] once the prefilter learnt the start sets of the current rules


def _rules_changed() -> None:
    """The rules changed: forget the remembered scans and the learnt start sets."""
    _LEARNT.clear()
    scan_text_cached.cache_clear()


RULES: PluginRegistry[Rule] = PluginRegistry(
    "scanner rule", key=lambda r: r.id, shape=rule_of, builtin=BUILTIN, group=ENTRY_POINT_GROUP,
    unique=False, on_change=_rules_changed)
"""Every rule, in running order (loaded on first use; several rules may share a family id)."""


def register(rule: Rule) -> Rule:
    """Add ``rule`` to :data:`RULES` after the others (a plug-in family). Returns it. Raises
    :class:`TypeError` for an object without the rule shape."""
    return RULES.register(rule)


def family_titles() -> dict[str, str]:
    """Rule id -> title of its family, for the SARIF rules list and the review filters."""
    return {r.id: r.title for r in RULES}


WINDOW_CHARS = 100_000
"""Texts longer than this (code points) are scanned in windows of this size, each overlapping the
next by :data:`WINDOW_OVERLAP`, so no single regular-expression call runs for long (a cancelled
import stops between windows: :func:`ctxviewer.util.interrupt.checkpoint`); hits are mapped back to
offsets in the whole text and merged."""
WINDOW_OVERLAP = 2_000
"""Characters shared by consecutive windows: a hit up to this long across a window edge is found whole."""


def all_patterns() -> Iterator[Pattern]:
    """Every pattern of the registered rules and of their modules (for the prefilter)."""
    for rule in RULES.all():
        yield from (p for p, _reason in getattr(rule, "patterns", ()))
        for value in vars(sys.modules[type(rule).__module__]).values():
            if isinstance(value, (re.Pattern, LazyPattern)):
                yield value
            elif isinstance(value, PatternRule):
                yield from (p for p, _reason in value.patterns)


def _learn() -> None:
    """Learn every rule's start set once, before the first scan that uses the prefilter (one
    automaton build): a few ms from the kept state (:mod:`.prefilter_memo`), ~0.15 s from the
    shipped table (:mod:`.start_table`; the state is then kept for the next process), about half a
    second more when they must be derived; a cancelled import stops between patterns."""
    if _LEARNT:
        return
    with _LEARNING:
        if _LEARNT or _restored():
            return
        patterns = list(dict.fromkeys(all_patterns()))
        fresh = not prefilter._REGISTRY.spec_of  # nothing else learnt: the state is the rules' own
        for pattern in patterns:
            checkpoint()
            prefilter.learn([pattern])
        _LEARNT.append(True)
        if fresh:
            prefilter_memo.save(patterns)


_TRIED: list[bool] = []  # [True] once this process tried the kept state
_LEARNING = threading.RLock()  # one thread learns or restores at a time


def _restored() -> bool:
    """Whether the prefilter's state was just taken from the kept file (:mod:`.prefilter_memo`;
    tried once per process, only while the prefilter has learnt nothing)."""
    if _TRIED:
        return False
    with _LEARNING:  # another thread learning meanwhile would give sets ids the file's do not match
        if _TRIED:
            return False
        _TRIED.append(True)
        if prefilter._REGISTRY.spec_of or not prefilter_memo.restore(list(dict.fromkeys(all_patterns()))):
            return False
        _LEARNT.append(True)
        return True


def _table_at_hand() -> bool:
    """Whether learning costs no derivation: learnt already, the kept state restored
    (:mod:`.prefilter_memo`), or the shipped start-set table current (:mod:`.start_table`)."""
    return bool(_LEARNT) or _restored() or bool(start_table.shipped())


def scan_text(text: str, *, _depth: int = 0) -> list[Hit]:
    """Every registered rule's hits in ``text`` (spans in code points), sorted by start.

    Overlapping hits of the same rule are merged: the union span, the higher severity, the first
    reason. Texts over :data:`WINDOW_CHARS` are scanned window by window. Never raises for a ``str``
    (except :class:`ctxviewer.util.interrupt.Interrupted` inside a cancelled import).
    """
    if len(text) >= prefilter.MIN_CHARS or _table_at_hand():
        _learn()  # also before a short text when learning derives nothing: the prefilter then spares compiles
    if len(text) <= WINDOW_CHARS:
        return _scan(text, _depth)
    hits: list[Hit] = []
    for start in range(0, len(text), WINDOW_CHARS):
        checkpoint()
        progress("scanning for instruction-like text", start, len(text))
        part = text[start:start + WINDOW_CHARS + WINDOW_OVERLAP]
        hits.extend(Hit(h.rule, h.start + start, h.end + start, h.reason, h.severity) for h in _scan(part, _depth))
    return _merge(sorted(hits, key=lambda h: (h.start, -h.end)))


def _run(text: str, _depth: int, skip: tuple[Rule, ...] = ()) -> list[Hit]:
    hits: list[Hit] = []
    for rule in RULES.all():
        if (rule is ENCODED and _depth) or rule in skip:
            continue
        checkpoint()
        try:
            hits.extend(rule.find(text))
        except Exception as exc:  # one failing rule never breaks the scan
            RULES.note(rule.id, source_of(rule), f"failed in find: {type(exc).__name__}: {exc}")
    return hits


def _scan(text: str, _depth: int) -> list[Hit]:
    hits = _run(text, _depth)
    norm = normalise(text)
    views = [] if norm is None else [norm]
    if norm is not None and norm.breaks:  # an invisible character in place of a space, too
        spaced = normalise(text, spaced=True)
        views += [spaced] if spaced is not None else []
    for view in views:  # the text as a model reads it: hits that only its disguise hid
        for a, b in view.excerpts(WINDOW_OVERLAP):  # only around the disguises: a hit must cover one
            for h in _run(view.text[a:b], _depth, skip=(INVISIBLE,)):
                start, end, disguised = view.span(h.start + a, h.end + a)
                if disguised:  # named by the disguises inside the hit, not the whole text's
                    how = " and ".join(sorted(view.kinds_in(h.start + a, h.end + a)))
                    hits.append(Hit(h.rule, start, end, f"{h.reason} (disguised with {how})", Severity.FAILURE))
    english = [h for h in hits if h.rule == OVERRIDE.id]
    hits = [h for h in hits if h.rule != MULTILINGUAL.id or not any(_overlap(h, e) for e in english)]
    return _merge(sorted(hits, key=lambda h: (h.start, -h.end)))


@functools.lru_cache(maxsize=4096)
def scan_text_cached(text: str) -> tuple[Hit, ...]:
    """:func:`scan_text` of ``text`` as a tuple, remembered for the 4,096 texts scanned last: the
    same document, policy or history turn recurs across the traces of an import (content is
    worked on once per distinct text). Cleared when the rules change."""
    return tuple(scan_text(text))


def _overlap(a: Hit, b: Hit) -> bool:
    return a.start < b.end and b.start < a.end


def _merge(hits: list[Hit]) -> list[Hit]:
    out: list[Hit] = []
    last: dict[str, int] = {}
    for h in hits:
        i = last.get(h.rule)
        if i is not None and h.start < out[i].end:
            prev = out[i]
            sev = h.severity if h.severity.rank > prev.severity.rank else prev.severity
            out[i] = Hit(prev.rule, prev.start, max(prev.end, h.end), prev.reason, sev)
            continue
        last[h.rule] = len(out)
        out.append(h)
    return out


ENCODED.rescan = lambda decoded: scan_text(decoded, _depth=1)
