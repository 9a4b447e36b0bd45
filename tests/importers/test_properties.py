"""Property tests (hypothesis) for the parts every importer leans on: sniffing a cut-off head,
the chat-message normaliser, and the native format's round trip."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import ijson
from factories import make_trace
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxviewer.importers import REGISTRY, peek_json
from ctxviewer.importers.common import messages
from ctxviewer.importers.common.peek import MAX_DEPTH
from ctxviewer.importers.formats.native import IMPORTER as NATIVE
from ctxviewer.importers.formats.native import trace_line

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


DOCUMENTS = st.lists(JSON, max_size=4) | st.dictionaries(st.text(max_size=8), JSON, max_size=4)
"""Top-level containers: what trace files are (a cut-off top-level number could read as a shorter one)."""


@settings(max_examples=100, deadline=None)
@given(DOCUMENTS, st.data())
def test_a_cut_head_sees_a_prefix_of_the_whole_documents_events(doc: Any, data: st.DataObject) -> None:
    raw = json.dumps(doc, ensure_ascii=False).encode("utf-8")
    whole = peek_json(raw)
    assert whole.complete and whole.kind in ("object", "array")
    cut = data.draw(st.integers(0, len(raw)))
    part = peek_json(raw[:cut])
    assert part.events == whole.events[: len(part.events)]
    assert part.complete == (cut == len(raw))


@settings(max_examples=100, deadline=None)
@given(DOCUMENTS)
def test_peek_events_are_ijsons_own_parse_events(doc: Any) -> None:
    raw = json.dumps(doc, ensure_ascii=False).encode("utf-8")
    assert peek_json(raw).events == tuple(ijson.parse(io.BytesIO(raw)))


def test_peeking_stops_at_max_depth_so_deep_nesting_stays_cheap() -> None:
    peek = peek_json(b"[" * 100_000 + b"]" * 100_000)
    assert (peek.too_deep, peek.complete, len(peek.events)) == (True, False, MAX_DEPTH)
    assert peek.events[-1] == (".".join(["item"] * (MAX_DEPTH - 1)), "start_array", None)
    assert not peek_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH).too_deep


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_no_builtin_sniffer_raises_or_leaves_0_to_1(head: bytes) -> None:
    for imp in REGISTRY.importers():
        score = float(imp.sniff(Path("x.json"), head))
        assert 0.0 <= score <= 1.0, imp.name


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_the_message_normaliser_accepts_any_json(value: Any) -> None:
    msgs = messages.parse_messages(value)
    if value is None:
        assert msgs is None
        return
    assert msgs is not None
    for m in msgs:
        assert set(m) >= {"role", "parts"} and isinstance(m["parts"], list)
        assert isinstance(messages.message_text(m), str)


@settings(max_examples=50, deadline=None)
@given(st.text(), st.text(min_size=1))
def test_native_lines_round_trip_any_text(tmp_path_factory: Any, user: str, content: str) -> None:
    trace = make_trace(user_request=user, items=(replace(make_trace().items[0], content=content),))
    path = tmp_path_factory.mktemp("rt") / "t.jsonl"
    path.write_text(trace_line(trace) + "\n", encoding="utf-8")
    assert list(NATIVE.load(path)) == [trace]
