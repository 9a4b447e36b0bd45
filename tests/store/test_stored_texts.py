"""An add() stores each distinct item text once and remembers it for the rest of its transaction
(issue 11: texts recur across the traces of an import); after a rollback nothing is remembered,
so the next add stores and indexes the texts again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest
from factories import make_trace

from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore


def _copies(n: int) -> list[RequestTrace]:
    t = make_trace()
    return [replace(t, trace_id=f"{t.trace_id}-{k}") for k in range(n)]


def test_a_text_met_again_in_the_same_add_is_not_inserted_again(tmp_path: Path) -> None:
    traces = _copies(5)
    texts = {i.content for i in traces[0].items if i.content is not None}
    inserts: list[str] = []
    with TraceStore.create(tmp_path / "t.db") as store:
        store._conn.set_trace_callback(lambda sql: inserts.append(sql) if "INTO blobs" in sql else None)
        assert store.add(with_facts(traces)) == 5
        store._conn.set_trace_callback(None)
        assert len(inserts) == len(texts)  # once per distinct text, not once per item (5x)
        assert store._stored_texts == {}  # forgotten after the commit
        rows = store._conn.execute("SELECT count(*), count(DISTINCT content_hash) FROM items").fetchone()
        assert rows == (5 * len(traces[0].items), len(texts))
        assert store.load(traces[4].trace_id) == traces[4]
        word = "refund" if any("refund" in t.lower() for t in texts) else sorted(texts)[0].split()[0]
        assert {h.trace_id for h in store.search(word, limit=-1).hits} == {t.trace_id for t in traces}


def test_after_a_rollback_the_next_add_stores_and_indexes_the_texts_again(tmp_path: Path) -> None:
    traces = _copies(3)

    def failing() -> Iterator[RequestTrace]:
        yield traces[0]
        raise RuntimeError("the importer broke")

    with TraceStore.create(tmp_path / "t.db") as store:
        with pytest.raises(RuntimeError):
            store.add(with_facts(failing()))
        assert store._stored_texts == {}
        assert store._conn.execute("SELECT count(*) FROM blobs").fetchone() == (0,)
        assert store.add(with_facts(traces)) == 3
        n_texts = len({i.content for i in traces[0].items if i.content is not None})
        assert store._conn.execute("SELECT count(*) FROM blobs").fetchone() == (n_texts,)
        for t in traces:
            assert store.load(t.trace_id) == t
        store._conn.execute("INSERT INTO content_fts(content_fts) VALUES('integrity-check')")


def test_an_add_journals_in_memory_and_sets_temp_store_back_after_a_commit_or_a_rollback(tmp_path: Path) -> None:
    """While add() writes, ``PRAGMA temp_store`` is MEMORY (2: statement journals never go to a
    temporary file); afterwards it is the connection's own setting again (FILE, 1, here), after a
    commit and after an add that failed part-way."""
    seen: list[int] = []
    with TraceStore.create(tmp_path / "t.db") as store:
        store._conn.execute("PRAGMA temp_store = FILE")

        def watched(traces: list[RequestTrace]) -> Iterator[object]:
            for pair in with_facts(traces):
                seen.append(store._conn.execute("PRAGMA temp_store").fetchone()[0])
                yield pair

        assert store.add(watched(_copies(2))) == 2  # type: ignore[arg-type]
        assert store._conn.execute("PRAGMA temp_store").fetchone()[0] == 1
        with pytest.raises(TypeError):
            store.add(iter([object()]))  # type: ignore[list-item]
        assert store._conn.execute("PRAGMA temp_store").fetchone()[0] == 1
    assert seen == [2, 2]
