"""``ctxviewer stats`` on a million traces within the list's filter budget (issue 22 item 5): the
statistics read the covering indexes ``idx_traces_aggregate`` / ``idx_traces_aggregate_day``
(schema 10) / ``idx_traces_aggregate_session`` (schema 11, a filter by session; unfiltered, the rollup:
test_session_rollup.py) -- no table row, and by model or day in index order with no sort -- and a grouped query
makes one pass (the total is the sum of
the groups), with every figure equal to a direct count of the rows."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from test_gen_traces import _gen

from ctxviewer.store import TraceQuery, TraceStore
from ctxviewer.store.group_sums import WINDOW_BANDS


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("aggplans") / "gen.db"
    _gen().write(path, 500, seed=7)
    return path


def _run(db: Path, query: TraceQuery | None, by: str | None) -> tuple[list[str], list[list[str]]]:
    seen: list[str] = []
    with TraceStore.open(db) as st:
        st._conn.set_trace_callback(seen.append)
        st.aggregate(query, by)
    statements = [s for s in seen if s.lstrip().upper().startswith("SELECT") and "count(*)" in s]
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return statements, [[str(r[-1]) for r in conn.execute("EXPLAIN QUERY PLAN " + s)] for s in statements]


@pytest.mark.parametrize(("by", "index"), [(None, "idx_traces_aggregate"), ("model", "idx_traces_aggregate"),
                                           ("day", "idx_traces_aggregate_day")])  # the total: either (both cover it)
def test_total_by_model_and_day_read_a_covering_index_in_one_pass(db: Path, by: str | None, index: str) -> None:
    statements, plans = _run(db, None, by)
    assert len(statements) == 1  # grouped: no second pass for the total
    assert len(plans) == 1 and len(plans[0]) == 1  # no table row, no sort
    assert plans[0][0] == f"SCAN traces USING COVERING INDEX {index}" or (
        by is None and plans[0][0].startswith("SCAN traces USING COVERING INDEX idx_traces_aggregate"))


def test_the_sessions_list_reads_the_session_index_alone(db: Path) -> None:
    seen: list[str] = []
    with TraceStore.open(db) as st:
        st._conn.set_trace_callback(seen.append)
        first = st.sessions(limit=3)
    statement = next(s for s in seen if "GROUP BY session_id" in s)
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        plan = [str(r[-1]) for r in conn.execute("EXPLAIN QUERY PLAN " + statement)]
    # in the index's order (no sort of the groups); only each session's distinct models are counted aside
    assert plan == ["SEARCH traces USING COVERING INDEX idx_traces_aggregate_session (session_id>?)",
                    "USE TEMP B-TREE FOR count(DISTINCT)"]
    assert [s.session_id for s in first] == sorted(s.session_id for s in first) and len(first) == 3


def _direct(conn: sqlite3.Connection, where: str = "1") -> dict[str, object]:
    rows = conn.execute(f"SELECT input_tokens, output_tokens, cost, duration_ms, state, span_status, capacity "
                        f"FROM traces WHERE {where}").fetchall()
    durations = [r[3] for r in rows if r[3] is not None]
    window = [0] * len(WINDOW_BANDS)
    for r in rows:
        if r[0] is not None and r[6]:
            share = r[0] / r[6]
            window[next(i for i, (_n, lo, hi) in enumerate(WINDOW_BANDS) if lo <= share < hi)] += 1
    return {"calls": len(rows), "input_tokens": sum(r[0] or 0 for r in rows),
            "input_known": sum(r[0] is not None for r in rows), "output_tokens": sum(r[1] or 0 for r in rows),
            "cost_known": sum(r[2] is not None for r in rows), "duration_known": len(durations),
            "duration_max_ms": max(durations) if durations else None,
            "ok": sum(r[4] == "ok" for r in rows), "warning": sum(r[4] == "warning" for r in rows),
            "failure": sum(r[4] == "failure" for r in rows), "errors": sum(r[5] == "error" for r in rows),
            "window": tuple(window), "cost": sum(r[2] or 0.0 for r in rows),
            "duration_mean_ms": sum(durations) / len(durations) if durations else None}


def _same(group, want: dict[str, object]) -> None:  # type: ignore[no-untyped-def]
    got = {k: getattr(group, k) for k in want}
    for k in ("cost", "duration_mean_ms"):  # float sums: equal up to the order of summation
        assert got.pop(k) == pytest.approx(want[k], rel=1e-12)
    assert got == {k: v for k, v in want.items() if k not in ("cost", "duration_mean_ms")}


@pytest.mark.parametrize("by", [None, "model", "day", "session"])
def test_every_figure_equals_a_direct_count_of_the_rows(db: Path, by: str | None) -> None:
    with TraceStore.open(db) as st:
        total, groups = st.aggregate(None, by)
        filtered, _ = st.aggregate(TraceQuery(text="omitted > 2"), by)
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        want = _direct(conn)
        want_filtered = _direct(conn, "omitted_count > 2")
        if by == "model":
            first = groups[0]
            want_first = _direct(conn, "model IS NULL" if first.key is None else f"model = '{first.key}'")
            _same(first, want_first)
    assert total.calls == 500 and sum(total.window) > 0 and total.failure + total.warning > 0
    _same(total, want)
    _same(filtered, want_filtered)
    if by is not None:
        assert sum(g.calls for g in groups) == 500 and len(groups) > 1


@pytest.mark.parametrize(("text", "by"), [('created >= "2026-11-01"', "model"), ('model ~ "gpt-4o"', "day")])
def test_a_time_or_model_filter_never_scans_the_table(db: Path, text: str, by: str) -> None:
    statements, plans = _run(db, TraceQuery(text=text), by)
    (sums,) = [p for s, p in zip(statements, plans) if "GROUP BY k" in s]
    # a covering index (1M traces: 0.18 s), or the matching rows by rowid; never every row of the table
    assert not [line for line in sums if line.startswith("SCAN traces") and "COVERING" not in line], sums


def test_the_aggregate_indexes_cover_time_and_model_filters_and_the_window_columns(db: Path) -> None:
    """Schema 12 widened them to time and model filters; schema 14 added the input and C eq. 3.1
    decided by, which the bands read."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        cols = {name: [r[2] for r in conn.execute(f"PRAGMA index_info({name})")]
                for name in ("idx_traces_aggregate", "idx_traces_aggregate_day", "idx_traces_aggregate_session")}
    summed = ["input_tokens", "output_tokens", "cost", "duration_ms", "state", "span_status", "capacity",
              "window_used", "window_capacity"]
    assert cols == {"idx_traces_aggregate": ["model", *summed, "created"],
                    "idx_traces_aggregate_day": [None, *summed, "created", "model"],  # None: substr(created, 1, 10)
                    "idx_traces_aggregate_session": ["session_id", *summed, "created", "model"]}
