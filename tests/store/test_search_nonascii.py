"""``text ~`` and ``search`` agree on non-ASCII words (same query words, same tokenizer folding),
and a one-letter word matches only whole (newuser-s4 #5, #13)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from factories import make_trace

from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceQuery, TraceStore

TEXT = "Assistant for Nörthwind Ölçü Straße ÇAFÉ, e.g. an example shop."


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> TraceStore:
    base = make_trace()
    uni = replace(base, trace_id="ÜNI-trace",
                  items=(replace(base.items[0], content=TEXT), *base.items[1:]))
    db: Path = tmp_path_factory.mktemp("uni") / "uni.db"
    with TraceStore.create(db) as st:
        st.add(with_facts([uni]))
    s = TraceStore.open(db)
    yield s  # type: ignore[misc]
    s.close()


@pytest.mark.parametrize(("query", "found"), [
    ("ölçü", True), ("ÖLÇÜ", True), ("çafé", True), ("ÇaFé", True), ("straße", True), ("STRAß", True),
    ("nörth", True), ("café", False), ("cafe", False), ("strasse", False),
    ("e", True),  # the whole word "e" of "e.g."
    ("ex", True), ("x", False),  # "x" is one letter: not a prefix of "example"
])
def test_text_filter_and_search_agree(store: TraceStore, query: str, found: bool) -> None:
    hits = {h.trace_id for h in store.search_hits(query, limit=-1) if h.trace_id == "ÜNI-trace"}
    rows = {r.trace_id for r in store.list(TraceQuery(text=f'text ~ "{query}"'), 0, -1)} & {"ÜNI-trace"}
    assert hits == rows == ({"ÜNI-trace"} if found else set())


def test_a_one_letter_word_highlights_only_the_whole_word(store: TraceStore) -> None:
    hit = next(h for h in store.search_hits("e", limit=-1) if h.trace_id == "ÜNI-trace")
    start, length = hit.spans[0]
    assert (hit.snippet[start:start + length], len(hit.spans)) == ("e", 1)
