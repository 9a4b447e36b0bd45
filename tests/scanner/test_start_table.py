"""The shipped start-set table (ctxviewer/resources/scanner_start_sets.json) is current and used."""

from __future__ import annotations

import json

import pytest

from ctxviewer.assess.scanner import start_sets, start_table
from ctxviewer.assess.scanner.registry import all_patterns
from ctxviewer.util import assets

OTHER_PYTHON = pytest.mark.skipif(
    not start_table.built_for_this_python(),
    reason="the shipped start-set table was built by another Python minor version: sets are derived at run time")


@OTHER_PYTHON
def test_the_shipped_table_is_current_for_every_rule_pattern() -> None:
    """Regenerate with `python -m ctxviewer.assess.scanner.start_table_build` when this fails."""
    shipped = json.loads(assets.read_text(start_table.RESOURCE))
    fresh = start_table.build(dict.fromkeys(all_patterns()))
    stale = "the shipped start-set table is not current: run `python -m ctxviewer.assess.scanner.start_table_build` and commit it"
    assert shipped["fingerprint"] == start_table.fingerprint(), stale
    assert shipped == fresh, stale
    # 96 + intent.INTENT[4] (replaces the user's task, issue 26) + 12 of multilingual_intent (send, pay)
    # + invisible.BOM, .ESCAPE, ._SGR (a byte-order mark inside the text, terminal escapes)
    assert len(shipped["patterns"]) == 112


@OTHER_PYTHON
def test_lookup_gives_what_derivation_gives_without_deriving(monkeypatch) -> None:
    start_table.shipped.cache_clear()
    patterns = list(dict.fromkeys(all_patterns()))
    derived = {start_table.key(p): start_table.derive(p) for p in patterns}

    def refuse(_pattern: object) -> None:
        raise AssertionError("derived although the shipped table holds it")

    monkeypatch.setattr(start_sets, "start_literals", refuse)
    monkeypatch.setattr(start_sets, "line_start_guard", refuse)
    for p in patterns:
        assert start_table.lookup(p) == derived[start_table.key(p)]
    with_sets = [k for k, (starts, _g) in derived.items() if starts is not None]
    assert len(with_sets) >= 60


def test_a_stale_table_is_ignored_and_sets_are_derived(monkeypatch) -> None:
    start_table.shipped.cache_clear()
    monkeypatch.setattr(start_table, "fingerprint", lambda: "python 0.0; prefilter sha256 0")
    try:
        assert start_table.shipped() == {}
        pattern = next(iter(all_patterns()))
        assert start_table.lookup(pattern) == start_table.derive(pattern)
    finally:
        start_table.shipped.cache_clear()


def test_an_unknown_pattern_is_derived() -> None:
    import re

    pattern = re.compile(r"\bsecret\s+handshake\b", re.I)
    assert start_table.key(pattern) not in start_table.shipped()
    starts, guard = start_table.lookup(pattern)
    assert starts == start_sets.start_literals(pattern)
    # cut at 12 characters; a longer white-space run is two white spaces
    assert starts == frozenset({("secret\nhands", 0), ("secret hands", 0)} | {("secret" + a + b, 0) for a in " \n" for b in " \n"})
    assert guard is None


def test_the_table_of_another_python_is_not_used(monkeypatch) -> None:
    start_table.shipped.cache_clear()
    monkeypatch.setattr(start_table, "fingerprint", lambda: "python 2.7; prefilter sha256 0")
    try:
        assert start_table.built_for_this_python() is False
        assert start_table.shipped() == {}
    finally:
        monkeypatch.undo()
        start_table.shipped.cache_clear()
    assert start_table.built_for_this_python() is (start_table.shipped() != {})
