"""A rule pattern is compiled only where its start set says it may match, and short texts take
the prefilter too (issue 11: a cold ``ctxviewer show`` spent most of its time compiling ~90
patterns over short texts that could not match them, then the engine tried each at every
position). The matches stay exactly the engine's: every rule pattern, compiled or not, over every
third short labelled text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ctxviewer.assess.scanner import prefilter, start_table
from ctxviewer.assess.scanner.patterns import LazyPattern
from ctxviewer.assess.scanner.prefilter import finditer
from ctxviewer.assess.scanner.registry import _learn, all_patterns

pytestmark = pytest.mark.skipif(
    not start_table.built_for_this_python(),
    reason="the shipped start-set table was built by another Python minor version: short texts use plain finditer")


def _fresh_copies() -> list[LazyPattern]:
    """Uncompiled copies of every rule pattern (same text and flags, so the shipped table knows them)."""
    _learn()
    return [LazyPattern(p.pattern, p.flags) for p in dict.fromkeys(all_patterns())]


def test_a_short_benign_text_compiles_only_the_patterns_that_may_start_in_it() -> None:
    copies = _fresh_copies()
    # 96 + intent.INTENT[4] (replaces the user's task, issue 26) + 12 of multilingual_intent (send, pay)
    # + invisible.BOM, .ESCAPE, ._SGR (a byte-order mark inside the text, terminal escapes)
    assert len(copies) == 112
    assert all(start_table.key(p) in start_table.shipped() for p in copies)
    text = "The parcel left the warehouse on Monday; tracking number 1Z999AA10123456784."
    assert len(text) < prefilter.MIN_CHARS
    found = {p.pattern: [m.span() for m in finditer(p, text)] for p in copies}
    assert found == {p.pattern: [m.span() for m in re.compile(p.pattern, p.flags).finditer(text)] for p in copies}
    assert found["[A-Za-z]{2,}"][:2] == [(0, 3), (4, 10)]  # words: the one hit-bearing pattern here
    assert sum(map(len, found.values())) == 10
    compiled = [p for p in copies if prefilter.is_compiled(p)]
    no_set = {p.pattern for p in copies if start_table.shipped()[start_table.key(p)][0] is None}
    # the five without a start set (they may start at any letter or digit: see test_prefilter) and
    # two whose start literal occurs here: the role-marker header pattern (the text starts at a
    # line) and "use" in "warehouse" (tool-call verbs); not the other role-marker line pattern,
    # whose guard says "The" starts no role name, nor the negation rule, whose optional "the"
    # starts a literal only with the person after it ("the user", not every "the "), nor the binary
    # run, whose literals are six binary digits and what follows them (the tracking number has none)
    assert len(no_set) == 5 and no_set <= {p.pattern for p in compiled}
    assert len(compiled) == 7, [p.pattern[:50] for p in compiled]
    assert not any(p.pattern.startswith("(?m)^[ \\t]*(?:#{1,4}") for p in compiled)
    assert "(?:\\b(?:hypothetically" in "".join(p.pattern for p in copies if not prefilter.is_compiled(p))


@pytest.mark.slow
def test_every_rule_pattern_finds_the_engines_matches_in_every_labelled_text(shared: Path) -> None:
    rows = [json.loads(line) for line in (shared / "injection" / "labelled.jsonl").read_text("utf-8").splitlines()
            if line.strip()]
    texts = [r["text"] for r in rows if len(r["text"]) < prefilter.MIN_CHARS][::3]
    assert len(texts) > 1300
    reference = {p: p.compiled() for p in _fresh_copies()}  # compiled copies: short texts take the prefilter too
    skipped = 0
    for text in texts:
        for p, engine in reference.items():
            lazy = LazyPattern(p.pattern, p.flags)
            want = [m.span() for m in engine.finditer(text)]
            assert [m.span() for m in finditer(lazy, text)] == want, (p.pattern[:60], text[:80])
            assert [m.span() for m in finditer(p, text)] == want, (p.pattern[:60], text[:80])
            skipped += not prefilter.is_compiled(lazy)
    assert skipped > len(texts) * len(reference) // 2  # most pattern/text pairs need no compile at all


def test_a_long_text_compiles_a_pattern_at_its_first_viable_candidate_only() -> None:
    copies = _fresh_copies()
    text = ("The quarterly report covers revenue, costs and staffing in the northern region; "
            "figures are in thousands of euros.\n") * 20
    assert len(text) >= prefilter.MIN_CHARS
    found = {p.pattern: [m.span() for m in finditer(p, text)] for p in copies}
    compiled = sum(prefilter.is_compiled(p) for p in copies)
    assert found == {p.pattern: [m.span() for m in re.compile(p.pattern, p.flags).finditer(text)] for p in copies}
    assert compiled == 8  # of 97: the five without a start set and three whose start literal occurs here
    # (the send-verb and rot13-word rules and the role-marker header at the text's start; not the
    # role-marker line pattern nor those with sentence-start alternatives: no line or sentence
    # starts with what they look for; nor the reply-verb and negation rules, whose optional "and" /
    # "the" start a literal only with what must follow them)
