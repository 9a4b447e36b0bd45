"""One store interface (issue 11): the window reads traces only through
:class:`~ctxviewer.store.TraceSource`. An in-memory implementation -- the smallest example of a
second backend -- drives the trace list, the selected trace's panes and the search dock; the fake
has no other attribute, so any method outside the interface would fail here."""

from __future__ import annotations

import inspect
from array import array
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pytest

from ctxviewer.model.trace import ContextItem, RequestTrace
from ctxviewer.store import SORTABLE, TraceQuery, TraceRow, TraceSource, TraceStore
from ctxviewer.store.fts import SearchHit, SearchPage

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
INTERFACE = {n for n, v in vars(TraceSource).items() if callable(v) and not n.startswith("_")}


class MemorySource:
    """Traces held in memory. Filters compile to ``("model~", [text])`` (a model substring) --
    this backend's own form, opaque to the window. Records every method called."""

    def __init__(self, traces: list[RequestTrace], rows: list[TraceRow]) -> None:
        self.path = Path("memory://samples")
        self.calls: list[str] = []
        self._traces = {t.trace_id: t for t in traces}
        self._rows = rows  # key = index + 1

    def _log(self, name: str) -> None:
        self.calls.append(name)

    def reader(self) -> MemorySource:
        self._log("reader")
        return self

    def close(self) -> None:
        self._log("close")

    def filter_where(self, query: TraceQuery | None) -> tuple[str, list[Any]]:
        self._log("filter_where")
        return ("model~", [query.text]) if query is not None and query.text else ("", [])

    def _keys(self, where: str, params: Sequence[Any], order: str, descending: bool) -> list[int]:
        if order not in SORTABLE:
            raise ValueError(order)
        keys = [k for k, r in enumerate(self._rows, 1) if not where or params[0] in (r.model or "")]
        keys.sort(key=lambda k: (str(getattr(self._rows[k - 1], order) or ""), self._rows[k - 1].trace_id),
                  reverse=descending)
        return keys

    def first_rows(self, where: str = "", params: Sequence[Any] = (), order: str = "created",
                   descending: bool = False, limit: int = 100) -> list[tuple[int, TraceRow]]:
        self._log("first_rows")
        return [(k, self._rows[k - 1]) for k in self._keys(where, params, order, descending)[:limit]]

    def row_keys(self, where: str = "", params: Sequence[Any] = (), order: str = "created",
                 descending: bool = False, cancelled: Callable[[], bool] | None = None) -> array[int]:
        self._log("row_keys")
        return array("q", self._keys(where, params, order, descending))

    def key_chunks(self, where: str = "", params: Sequence[Any] = (), order: str = "created",
                   descending: bool = False) -> Iterator[array[int]]:
        self._log("key_chunks")
        keys = self._keys(where, params, order, descending)
        for start in range(0, len(keys), 4):  # small chunks: the model fills its array chunk by chunk
            yield array("q", keys[start:start + 4])

    def rows_by_key(self, keys: Sequence[int]) -> list[TraceRow | None]:
        self._log("rows_by_key")
        return [self._rows[k - 1] if 0 < k <= len(self._rows) else None for k in keys]

    def key_of(self, trace_id: str) -> int | None:
        self._log("key_of")
        return next((k for k, r in enumerate(self._rows, 1) if r.trace_id == trace_id), None)

    def count_where(self, where: str = "", params: Sequence[Any] = ()) -> int:
        self._log("count_where")
        return len(self._keys(where, params, "created", False))

    def estimate_count(self, where: str = "") -> int | None:
        self._log("estimate_count")
        return None if where else len(self._rows)

    def count(self, query: TraceQuery | None = None) -> int:
        self._log("count")
        return self.count_where(*self.filter_where(query))

    def list(self, query: TraceQuery | None = None, offset: int = 0, limit: int = 200) -> list[TraceRow]:
        self._log("list")
        rows = self.rows_by_key(self._keys(*self.filter_where(query), "created", False))
        return [r for r in rows if r is not None][offset:None if limit < 0 else offset + limit]

    def search(self, query: str, *, after: tuple[int, int, int] | None = None, limit: int = 50,
               cancelled: Callable[[], bool] | None = None) -> SearchPage:
        self._log("search")
        return SearchPage(self.search_hits(query, limit), None)

    def search_hits(self, query: str, limit: int = 50) -> list[SearchHit]:
        self._log("search_hits")
        hits = []
        for k, row in enumerate(self._rows, 1):
            for ordinal, item in enumerate(self._traces[row.trace_id].items):
                at = (item.content or "").lower().find(query.lower())
                if at >= 0:
                    hits.append(SearchHit(row.trace_id, item.id, ordinal, item.content[at:at + 40],
                                          ((0, len(query)),), (k, ordinal, 0)))
        return hits[:limit] if limit >= 0 else hits

    def load(self, trace_id: str) -> RequestTrace:
        self._log("load")
        return self._traces[trace_id]

    def items(self, trace_id: str) -> tuple[ContextItem, ...]:
        self._log("items")
        t = self._traces.get(trace_id)
        return () if t is None else t.items

    def blob(self, sha256: str) -> str | None:
        self._log("blob")
        return None

    def session_trace_ids(self, session_id: str) -> list[str]:
        self._log("session_trace_ids")
        return [r.trace_id for r in self._rows if r.session_id == session_id]


@pytest.fixture(scope="module")
def samples() -> tuple[list[RequestTrace], list[TraceRow]]:
    with TraceStore.open(SAMPLES) as st:
        rows = [r for r in st.rows_by_key(st.row_keys()) if r is not None]
        return [st.load(r.trace_id) for r in rows], rows


def test_the_fake_has_exactly_the_interface(samples) -> None:
    fake = MemorySource(*samples)
    assert isinstance(fake, TraceSource)
    mine = {n for n, v in vars(MemorySource).items() if callable(v) and not n.startswith("_")}
    assert mine == INTERFACE
    for name in INTERFACE:  # same parameters as the Protocol
        assert list(inspect.signature(getattr(MemorySource, name)).parameters) == \
            list(inspect.signature(getattr(TraceSource, name)).parameters), name


def test_window_lists_selects_filters_and_searches_through_the_interface(qtbot, windows, samples) -> None:
    fake = MemorySource(*samples)
    w = windows.new()
    w.set_source(fake, "samples (in memory)")
    qtbot.waitUntil(lambda: w.trace_model.counted, timeout=10_000)
    # the list: every sample in send order, the first one selected and shown with its assessment
    ids = [w.trace_model.trace_id(r) for r in range(w.trace_model.rowCount())]
    assert ids == [r.trace_id for r in sorted(samples[1], key=lambda r: (str(r.created), r.trace_id))]
    assert windows.shown(w).trace_id == ids[0]
    assert w.windowTitle() == "ctxviewer — samples (in memory)"
    assert w.panel.item_model.rowCount() == len(samples[0][0].items if samples[0][0].trace_id == ids[0]
                                                 else fake.load(ids[0]).items)
    # selecting another row loads that trace through the interface
    assert windows.select_row(w, ids.index("ticket-injection")).trace_id == "ticket-injection"
    assert w.chart.state() == "\u26a0 WARNING"
    # a filter goes through the source's own compiled form
    w.trace_model.set_where(*fake.filter_where(TraceQuery(text="gpt-4o-mini")))
    qtbot.waitUntil(lambda: w.trace_model.counted, timeout=10_000)
    want = [r.trace_id for r in samples[1] if "gpt-4o-mini" in (r.model or "")]
    assert sorted(w.trace_model.trace_id(r) for r in range(w.trace_model.rowCount())) == sorted(want)
    # the search dock reads pages from the interface too, and a hit opens its trace
    w.search.open_search()
    w.search.panel.entry.setText("ignore previous")
    w.search.panel.search()
    qtbot.waitUntil(lambda: w.search.panel.model.task is None, timeout=10_000)
    hits = [w.search.panel.model.hit(r) for r in range(w.search.panel.model.rowCount())]
    assert [(h.trace_id, h.item_id) for h in hits if h] == [("ticket-injection", "TCK-58213")]
    w.trace_model.set_where("", [])
    qtbot.waitUntil(lambda: w.trace_model.counted, timeout=10_000)
    windows.select_row(w, 0)
    with qtbot.waitSignal(w.sig_trace_shown, timeout=30_000) as shown:
        w.search.open_hit(hits[0], "ignore previous")
    assert shown.args == ["ticket-injection"] and w.trace.trace_id == "ticket-injection"
    assert w.panel.items.current_item().id == "TCK-58213"
    assert set(fake.calls) <= INTERFACE
    assert {"first_rows", "key_of", "load", "search"} <= set(fake.calls)


def test_list_counts_then_reads_keys_and_plans_filters_through_the_interface(monkeypatch, qtbot, samples) -> None:
    """Pages of 3 rows: the list's worker asks the source for the count, then the keys in
    chunks; a display filter is planned by the source's own filter_where (opaque to the model)."""
    import time

    from PySide6.QtWidgets import QApplication

    from ctxviewer.gui import trace_list_model as tlm
    from ctxviewer.gui import trace_list_pages, trace_list_queries

    for module in (tlm, trace_list_pages, trace_list_queries):  # the model and its parts read it
        monkeypatch.setattr(module, "PAGE_ROWS", 3)
    fake = MemorySource(*samples)
    model = tlm.TraceListModel(fake)
    events: list[str] = []
    model.sig_counted.connect(lambda n: events.append(f"count {n}"))
    model.sig_keys_ready.connect(lambda: events.append("keys"))

    def wait() -> None:
        deadline = time.monotonic() + 30
        while not model.keys_ready and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.005)
        assert model.keys_ready

    wait()
    ordered = [r.trace_id for r in sorted(samples[1], key=lambda r: (str(r.created), r.trace_id))]
    assert events == ["count 9", "keys"]
    assert [model.trace_id(r) for r in range(model.rowCount())] == ordered
    assert fake.calls.index("count_where") < fake.calls.index("key_chunks")
    fake.calls.clear()
    model.set_filter("gpt-4o-mini")
    wait()
    want = [t for t in ordered if "gpt-4o-mini" in (fake.rows_by_key([fake.key_of(t) or 0])[0].model or "")]  # type: ignore[union-attr]
    assert len(want) > 3 and [model.trace_id(r) for r in range(model.rowCount())] == want
    assert fake.calls[:3] == ["reader", "filter_where", "first_rows"]
    assert set(fake.calls) <= INTERFACE
