"""Every sortable order of the trace list is an index walk (schema 4, ``m012_sort_indexes``): the
first page in any order reads that many index entries instead of sorting every trace."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_gen_traces import _gen

from ctxviewer.store import SORTABLE, TraceStore
from ctxviewer.store.migrations import SORT_INDEXED
from ctxviewer.store.query import INDEXED_SORTS, keyed_sql


@pytest.fixture(scope="module")
def gen_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("sortidx") / "gen.db"
    _gen().write(db, 600, seed=4)
    return db


@pytest.mark.parametrize("order", SORTABLE)
@pytest.mark.parametrize("descending", [False, True])
def test_each_order_walks_an_index_and_matches_a_full_sort(gen_db: Path, order: str, descending: bool) -> None:
    assert order in INDEXED_SORTS
    conn = sqlite3.connect(f"file:{gen_db}?mode=ro", uri=True)
    sql = keyed_sql("", order, descending, keys_only=False) + " LIMIT 100"
    plan = " | ".join(str(r[-1]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql))
    assert "TEMP B-TREE" not in plan, plan
    assert "SCAN traces USING INDEX" in plan, plan
    rows = conn.execute(f"SELECT {order}, trace_id FROM traces").fetchall()
    # NULL first ascending (SQLite's order), ties by trace_id in the same direction
    expected = sorted(rows, key=lambda r: ((r[0] is not None), r[0] if r[0] is not None else 0, r[1]),
                      reverse=descending)
    with TraceStore.open(gen_db) as st:
        got = [(getattr(r, order), r.trace_id) for _k, r in st.first_rows(order=order, descending=descending, limit=100)]
    assert [t for _v, t in got] == [t for _v, t in expected[:100]]


def test_the_step_replaces_the_one_column_indexes(gen_db: Path) -> None:
    conn = sqlite3.connect(f"file:{gen_db}?mode=ro", uri=True)
    for col in SORT_INDEXED:
        cols = [r[2] for r in conn.execute(f"PRAGMA index_info(idx_traces_{col})")]
        assert cols == [col, "trace_id"]
    assert conn.execute("SELECT count(*) FROM sqlite_stat1 WHERE idx = 'idx_traces_omitted_count'").fetchone() == (1,)
