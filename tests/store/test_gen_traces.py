"""The realistic generator of benchmarks/gen_traces.py (issue 11): shared content stored once,
sessions whose history grows, rows the store reads back."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sqlite3
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ctxviewer.store import TraceStore

ROOT = Path(__file__).resolve().parents[2]


def _gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_traces", ROOT / "benchmarks" / "gen_traces.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_traces", mod)  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def gen_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("gen") / "gen.db"
    result = _gen().write(db, 400, seed=3)
    assert result["traces"] == 400
    return db


def test_counts_and_every_blob_stored_once_by_its_hash(gen_db: Path) -> None:
    c = sqlite3.connect(gen_db)
    assert c.execute("SELECT count(*) FROM traces").fetchone()[0] == 400
    assert c.execute("SELECT count(*) FROM details").fetchone()[0] == 400
    for h, text, size in c.execute("SELECT hash, text, bytes FROM blobs"):
        raw = text.encode("utf-8")
        assert hashlib.sha256(raw).digest() == h  # the 32-byte digest (schema 6)
        assert size == len(raw)
    # every item's content is in blobs; the retained / omitted counts agree with the items
    assert c.execute("SELECT count(*) FROM items WHERE content_hash NOT IN (SELECT hash FROM blobs)").fetchone()[0] == 0
    bad = c.execute(
        "SELECT count(*) FROM traces t WHERE retained_count != (SELECT count(*) FROM items i "
        "WHERE i.trace_id = t.trace_id AND status = 'retained') OR omitted_count != (SELECT count(*) "
        "FROM items i WHERE i.trace_id = t.trace_id AND status = 'omitted')").fetchone()[0]
    assert bad == 0


def test_policies_and_tools_are_shared(gen_db: Path) -> None:
    c = sqlite3.connect(gen_db)
    n_services = len(_gen().SERVICES)
    policies = c.execute("SELECT count(DISTINCT content_hash) FROM items WHERE kind = 'policy'").fetchone()[0]
    assert 1 <= policies <= 3 * n_services  # three versions per service at most
    tool_items = c.execute("SELECT count(*), count(DISTINCT content_hash) FROM items WHERE kind = 'tool'").fetchone()
    assert tool_items[0] >= 400 * 2 and tool_items[1] <= 4 * n_services


def test_session_history_grows_turn_by_turn(gen_db: Path) -> None:
    c = sqlite3.connect(gen_db)
    sessions: dict[str, list[tuple[str, str]]] = {}
    for tid, js in c.execute("SELECT d.trace_id, d.json FROM details d JOIN traces t USING (trace_id) ORDER BY t.created"):
        sessions.setdefault(json.loads(js)["session_id"], []).append((tid, js))
    long = next(turns for turns in sessions.values() if len(turns) >= 3)
    hist = [c.execute("SELECT count(*) FROM items WHERE trace_id = ? AND kind = 'history'", (tid,)).fetchone()[0]
            for tid, _ in long[:4]]
    assert hist[:3] == [0, 2, 4]  # the user and assistant texts of each earlier turn
    # turn 1's history starts with turn 0's user message, the very same stored text
    user0 = c.execute("SELECT content_hash FROM items WHERE trace_id = ? AND kind = 'user'", (long[0][0],)).fetchone()[0]
    first = c.execute("SELECT content_hash FROM items WHERE trace_id = ? AND kind = 'history' ORDER BY ordinal",
                      (long[1][0],)).fetchone()[0]
    assert first == user0


def test_rows_read_back_through_the_store_with_eq_3_1_facts(gen_db: Path) -> None:
    with TraceStore.open(gen_db) as st:
        rows = st.list(limit=-1)
        assert len(rows) == 400
        for r in rows:
            assert r.capacity is not None and r.input_tokens is not None and r.reserved_output_tokens is not None
            assert r.margin == r.capacity - r.input_tokens - r.reserved_output_tokens
            assert r.fits == (r.margin >= 0)
        trace = st.load(rows[7].trace_id)
        assert len(trace.items) == rows[7].retained_count + rows[7].omitted_count
        assert trace.items[0].kind.value == "policy" and trace.items[-1].kind.value == "user"
        assert trace.endpoint.model == rows[7].model
    assert {r.state for r in rows} >= {"ok", "warning"}
    assert any(r.omitted_count > 0 for r in rows)


def test_same_seed_same_database(tmp_path: Path) -> None:
    gen = _gen()
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    gen.write(a, 30, seed=5)
    gen.write(b, 30, seed=5)
    q = "SELECT trace_id, model, input_tokens FROM traces ORDER BY trace_id"
    assert sqlite3.connect(a).execute(q).fetchall() == sqlite3.connect(b).execute(q).fetchall()


def test_upgrade_of_an_older_generated_database_keeps_the_generated_facts(tmp_path: Path) -> None:
    """``gen_traces.py --upgrade``: the steps of ``ctxviewer upgrade`` on a copy, with the
    generator's facts instead of an assessment per trace; the old file is only read."""
    gen = _gen()
    old, new = tmp_path / "old.db", tmp_path / "new.db"
    gen.write(old, 120, seed=9)
    c = sqlite3.connect(old)
    worst = c.execute("SELECT trace_id, worst_rule, worst_severity, 1 FROM traces WHERE worst_rule IS NOT NULL "
                      "ORDER BY trace_id").fetchall()
    assert len(worst) >= 2
    calls = c.execute("SELECT trace_id, cost, output_tokens, duration_ms FROM traces ORDER BY trace_id").fetchall()
    assert all(cost is not None for _t, cost, _o, _d in calls)  # the generator's models all have prices
    # make it look as the generator wrote it under schema 2: no schema-3+ steps recorded, no findings table
    steps = [r[0] for r in c.execute("SELECT name FROM _sqlite_migrations ORDER BY rowid")]
    later = steps[steps.index("m008_filter_columns"):]
    c.execute(f"DELETE FROM _sqlite_migrations WHERE name IN ({','.join('?' * len(later))})", later)
    c.execute("DROP TABLE trace_findings")
    c.execute("DROP TABLE content_fts")
    for trigger in ("insert", "replace", "update_replace", "delete", "update"):  # schema 12's (m022_session_rollup)
        c.execute(f"DROP TRIGGER session_rollup_{trigger}")
    c.execute("DROP TABLE session_rollup")
    c.execute("DROP TABLE session_rollup_stale")
    c.execute("DROP INDEX idx_traces_facts_context")
    c.execute("DROP INDEX idx_traces_aggregate_session")  # schema 11's (m021_aggregate_session_index)
    c.execute("DROP INDEX idx_traces_session_id")
    c.execute("ALTER TABLE traces DROP COLUMN session_id")
    for col in ("span_status", "agent", "operation"):  # schema 5's columns (m013_span_columns)
        c.execute(f"DROP INDEX idx_traces_{col}")
    c.execute("DROP INDEX idx_traces_cost")  # schema 8's (m016_call_columns)
    c.execute("DROP INDEX idx_traces_aggregate")  # schema 10's (m020_aggregate_index)
    c.execute("DROP INDEX idx_traces_aggregate_day")
    c.execute("DROP TABLE trace_scores")
    for col in ("span_status", "status_message", "agent", "operation", "facts_context",  # schemas 5 and 7
                "cost", "output_tokens", "duration_ms", "scores"):  # and 8
        c.execute(f"ALTER TABLE traces DROP COLUMN {col}")
    c.execute("PRAGMA user_version = 2")
    c.commit()
    c.close()
    before = old.read_bytes()
    result = gen.upgrade(old, new)
    assert old.read_bytes() == before
    assert result["traces"] == 120 and result["steps"] == len(later)
    with TraceStore.open(new) as st:  # the current schema: opens read-only without asking for an upgrade
        assert st.count_where() == 120
        assert st._conn.execute("SELECT trace_id, rule, severity, count FROM trace_findings ORDER BY trace_id"
                                ).fetchall() == worst
        assert st._conn.execute("SELECT count(*) FROM traces WHERE session_id IS NULL").fetchone() == (0,)
        assert st.search_hits("the", limit=1)  # the full-text index was built
        # schema 5 back-filled from the generated attributes: every OTel row has a span status and an agent
        assert st._conn.execute("SELECT count(*) FROM traces WHERE (span_status IS NULL) != (source_format != 'otel') "
                                "OR (agent IS NULL) != (source_format != 'otel')").fetchone() == (0,)
        # schema 8 back-filled from each trace's usage and attributes: what the generator wrote
        again = st._conn.execute("SELECT trace_id, cost, output_tokens, duration_ms FROM traces ORDER BY trace_id"
                                 ).fetchall()
        assert [(t, o, d) for t, _c, o, d in again] == [(t, o, d) for t, _c, o, d in calls]
        assert [c for _t, c, _o, _d in again] == pytest.approx([c for _t, c, _o, _d in calls], rel=1e-9)
    with pytest.raises(SystemExit):
        gen.upgrade(old, new)  # never overwrites
