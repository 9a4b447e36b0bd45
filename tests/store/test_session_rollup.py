"""The per-session rollup (schema 12, :mod:`ctxviewer.store.session_rollup`): ``stats --by session``
reads one stored row per session, and its figures equal the ``GROUP BY`` over ``traces`` after every
kind of write -- add, a replaced trace moving to another session, remove, a re-assessment, and
direct SQL that never refreshes (the stale sessions are then summed from ``traces``)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest
from factories import make_trace

from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore
from ctxviewer.store.aggregates import aggregate_sql
from ctxviewer.store.facts import FACT_COLUMNS
from ctxviewer.store.group_sums import group_of


def _trace(n: int, session: str | None):  # type: ignore[no-untyped-def]
    return replace(make_trace(), trace_id=f"t{n}", session_id=session)


def _grouped(path: Path) -> list[tuple[object, ...]]:
    """Every session's whole :class:`Group` (all 19 sums) by the GROUP BY over ``traces``, as tuples
    whose first six are ``(key, calls, input_tokens, ok, warning, failure)``."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        groups = [group_of(r[0], r[1:]) for r in conn.execute(aggregate_sql("session")).fetchall()]
    return [_whole(g) for g in groups]


def _whole(g):  # type: ignore[no-untyped-def]
    return (g.key, g.calls, g.input_tokens, g.ok, g.warning, g.failure, g.input_known, g.output_tokens,
            g.output_known, g.cost, g.cost_known, g.duration_mean_ms, g.duration_max_ms, g.duration_known, g.errors,
            g.window)


def _stats(path: Path) -> list[tuple[object, ...]]:
    with TraceStore.open(path) as st:
        total, groups = st.aggregate(None, "session")
    assert total.calls == sum(g.calls for g in groups)
    return [_whole(g) for g in groups]


def _table(path: Path, table: str) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute(f"SELECT * FROM {table} ORDER BY k").fetchall()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "r.db"
    with TraceStore.create(path) as st:
        st.add(with_facts([_trace(1, "s-a"), _trace(2, "s-a"), _trace(3, "s-b"), _trace(4, None), _trace(5, None)]))
    return path


def test_the_rollup_holds_each_session_after_an_import(db: Path) -> None:
    rollup = _table(db, "session_rollup")
    assert [(r[0], r[1]) for r in rollup] == [("s-a", 2), ("s-b", 1), (b"", 2)]  # X'': the calls with no session
    assert _table(db, "session_rollup_stale") == []  # refreshed before the commit
    stats = _stats(db)
    assert [(k, calls) for k, calls, *_ in stats] == [(None, 2), ("s-a", 2), ("s-b", 1)]
    assert stats == _grouped(db)


def test_a_replaced_trace_that_moves_session_leaves_both_sessions_right(db: Path) -> None:
    with TraceStore.create(db) as st:
        st.add(with_facts([_trace(2, "s-b"), _trace(6, "s-c")]))  # t2: s-a -> s-b
    assert [(k, calls) for k, calls, *_ in _stats(db)] == [(None, 2), ("s-a", 1), ("s-b", 2), ("s-c", 1)]
    assert _stats(db) == _grouped(db)
    assert _table(db, "session_rollup_stale") == []


def test_remove_and_reassessment_refresh_the_rollup(db: Path) -> None:
    with TraceStore.create(db) as st:
        assert st.remove(["t3", "t4"]) == 2
        facts = next(iter(with_facts([_trace(1, "s-a")])))[1]
        at = FACT_COLUMNS.index("state")
        was = facts.values[at]
        values = (*facts.values[:at], "failure" if was != "failure" else "ok", *facts.values[at + 1:])
        assert st.write_facts([replace(facts, values=values)]) == 1
    stats = _stats(db)
    assert [(k, calls) for k, calls, *_ in stats] == [(None, 1), ("s-a", 2)]  # s-b had only t3
    assert stats == _grouped(db)
    assert _table(db, "session_rollup_stale") == []
    assert [r[0] for r in _table(db, "session_rollup")] == ["s-a", b""]


def test_direct_sql_that_never_refreshes_is_summed_from_the_table(db: Path) -> None:
    with closing(sqlite3.connect(db)) as conn:  # a user's sqlite3, recursive triggers on: marks once either way
        conn.execute("PRAGMA recursive_triggers = ON")
        conn.execute("UPDATE traces SET input_tokens = 5000, state = 'failure' WHERE trace_id = 't3'")
        conn.execute("INSERT OR REPLACE INTO traces (trace_id, session_id, input_tokens, retained_count, "
                     "omitted_count) VALUES ('t1', 's-z', 40, 1, 0)")
        conn.execute("DELETE FROM traces WHERE trace_id = 't5'")
        conn.commit()
    assert [r[0] for r in _table(db, "session_rollup_stale")] == ["s-a", "s-b", "s-z", b""]  # text, then X''
    stats = _stats(db)
    assert [(k, calls) for k, calls, *_ in stats] == [(None, 1), ("s-a", 1), ("s-b", 1), ("s-z", 1)]
    assert [s[:6] for s in stats if s[0] in ("s-b", "s-z")] == [("s-b", 1, 5000, 0, 0, 1), ("s-z", 1, 40, 0, 0, 0)]
    assert stats == _grouped(db)
    with TraceStore.create(db) as st:  # the next write of ours re-sums and unmarks them
        st.add(with_facts([_trace(7, "s-b")]))
    assert _table(db, "session_rollup_stale") == [] and _stats(db) == _grouped(db)


def test_a_replace_conflict_on_the_rowid_or_an_updated_trace_id_marks_the_row_it_deletes(db: Path) -> None:
    """The reviewer's F1: ``traces`` is a rowid table, and with recursive triggers off SQLite fires no
    delete trigger for a row an OR REPLACE conflict removes; both ways of removing one are marked."""
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        conn.execute("UPDATE OR REPLACE traces SET trace_id = 't1' WHERE trace_id = 't3'")  # t1 (s-a) is deleted
        rowid = conn.execute("SELECT rowid FROM traces WHERE trace_id = 't2'").fetchone()[0]
        conn.execute("INSERT OR REPLACE INTO traces (rowid, trace_id, session_id, retained_count, omitted_count) "
                      "VALUES (?, 'new', 's-n', 1, 0)", (rowid,))  # t2 (s-a) is deleted by its rowid
    assert _stats(db) == _grouped(db)
    assert [(k, calls) for k, calls, *_ in _stats(db)] == [(None, 2), ("s-b", 1), ("s-n", 1)]  # s-a is gone
    with TraceStore.create(db) as st:
        st.add(with_facts([_trace(8, "s-b")]))
    assert _table(db, "session_rollup_stale") == [] and _stats(db) == _grouped(db)
    assert [r[0] for r in _table(db, "session_rollup")] == ["s-b", "s-n", b""]


def test_stats_by_session_reads_the_rollup_not_the_table(db: Path) -> None:
    seen: list[str] = []
    with TraceStore.open(db) as st:
        st._conn.set_trace_callback(seen.append)
        st.aggregate(None, "session")
    (statement,) = [s for s in seen if "session_rollup" in s]
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        plan = [str(r[-1]) for r in conn.execute("EXPLAIN QUERY PLAN " + statement)]
    assert "SCAN session_rollup" in plan  # one stored row per session
    assert not any(p.startswith("SCAN traces") for p in plan)  # traces only for marked sessions, by the index
    assert plan.count("SEARCH traces USING COVERING INDEX idx_traces_aggregate_session (session_id=?)") == 2


def test_token_sums_past_64_bits_neither_fail_the_import_nor_the_statistics(tmp_path: Path) -> None:
    from ctxviewer.model.trace import Usage

    big = 2**62  # each fits in 64 bits; three of them do not (SQLite's sum() raised "integer overflow")
    traces = [replace(make_trace(), trace_id=f"b{i}", session_id="s-big",
                      usage=Usage(input_tokens=big, output_tokens=big)) for i in range(3)]
    path = tmp_path / "big.db"
    with TraceStore.create(path) as st:
        assert st.add(with_facts(traces)) == 3  # the rollup's refresh sums them
    with TraceStore.open(path) as st:
        results = [st.aggregate(None, by) for by in (None, "model", "day", "session")]
        top_total, top, n = st.aggregate_top(None, "session", 10)
        (summary,) = st.sessions(limit=5)
    for total, _groups in results:
        assert total.calls == 3 and total.output_tokens == 3 * big and total.output_known == 3
    assert results[3][1][0].output_tokens == 3 * big == top_total.output_tokens == top[0].output_tokens
    assert n == 1 and summary.output_tokens == 3 * big
