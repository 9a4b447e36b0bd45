"""The store interface (issue 11): TraceStore implements TraceSource; the keyed list methods
return real rows in list order, never OFFSET, with the filter as a WHERE fragment."""

from __future__ import annotations

import inspect
from array import array
from pathlib import Path

import pytest

from ctxviewer.store import TraceSource, TraceStore

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"


def test_trace_store_has_every_method_of_the_interface() -> None:
    wanted = {n for n, v in vars(TraceSource).items() if callable(v) and not n.startswith("_")}
    assert wanted == {"reader", "close", "filter_where", "first_rows", "row_keys", "key_chunks", "rows_by_key", "key_of", "count_where",
                      "estimate_count", "count", "list", "search", "search_hits", "load", "items", "blob",
                      "session_trace_ids"}  # one interface: list, filter, search and detail
    with TraceStore.open(SAMPLES) as st:
        assert isinstance(st, TraceSource)
    for name in wanted:
        ours = inspect.signature(getattr(TraceStore, name))
        theirs = inspect.signature(getattr(TraceSource, name))
        assert list(ours.parameters) == list(theirs.parameters), name


def test_keyed_listing_on_the_samples() -> None:
    with TraceStore.open(SAMPLES) as st:
        by_sql = [r[0] for r in st._conn.execute("SELECT trace_id FROM traces ORDER BY input_tokens DESC, trace_id DESC")]
        keys = st.row_keys(order="input_tokens", descending=True)
        assert isinstance(keys, array) and keys.typecode == "q" and len(keys) == len(by_sql) == 9
        assert [r.trace_id for r in st.rows_by_key(keys) if r] == by_sql
        first = st.first_rows(order="input_tokens", descending=True, limit=3)
        assert [k for k, _ in first] == list(keys[:3]) and [r.trace_id for _, r in first] == by_sql[:3]
        assert st.rows_by_key([keys[4], 10**9, keys[0]])[1] is None
        assert [r.trace_id for r in st.rows_by_key([keys[4], keys[0]]) if r] == [by_sql[4], by_sql[0]]
        assert st.key_of(by_sql[2]) == keys[2] and st.key_of("no-such") is None
        failing = st.count_where("state = ?", ["failure"])
        assert failing == len(st.row_keys("state = ?", ["failure"])) == 3
        assert st.count_where() == 9 and st.estimate_count() == 9 and st.estimate_count("x = 1") is None
        with pytest.raises(ValueError):
            st.row_keys(order="verdict; DROP TABLE traces")
        with st.reader() as other:
            assert other is not st and other.count_where() == 9


def test_items_are_built_directly_and_equal_the_codec_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Selecting a trace reads its items without the general JSON codec (issue 11: most of a
    500-item selection); the result is the same as the codec's, item for item."""
    import ctxviewer.store.loading as loading

    with TraceStore.open(SAMPLES) as st:
        ids = [r.trace_id for r in st.list(limit=-1)]
        monkeypatch.setattr(loading, "item_from_dict", None)  # the codec path would raise TypeError
        fast = {t: st.items(t) for t in ids}
        monkeypatch.undo()
        monkeypatch.setattr(loading, "_item_from_row", lambda *_row: None)  # codec only
        slow = {t: st.items(t) for t in ids}
    assert fast == slow
    assert sum(len(v) for v in fast.values()) == 238
    assert any(i.source is not None for v in fast.values() for i in v)
    assert any(i.tokens_provenance is not None for v in fast.values() for i in v)


def test_a_damaged_item_row_still_names_the_trace(tmp_path: Path) -> None:
    import shutil
    import sqlite3

    db = tmp_path / "s.db"
    shutil.copy(SAMPLES, db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE items SET kind = 'bogus' WHERE trace_id = 'budget-8k' AND ordinal = 1")
    from ctxviewer.store import StoreError

    with TraceStore.open(db) as st, pytest.raises(StoreError, match="trace 'budget-8k' is damaged"):
        st.items("budget-8k")
