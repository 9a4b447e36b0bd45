"""Schema 9 (issue 25, item 4, "compact storage"): the trace record keeps only what no column or
item holds, ``details`` and ``token_counts`` are WITHOUT ROWID tables, and ``ctxviewer upgrade``
turns a schema-8 database into one that answers list, show and search exactly as a fresh import."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlite_utils import Database, Migrations

from ctxviewer.cli import cli
from ctxviewer.model.serialize import trace_to_dict
from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import TraceStore, migrations, record, runs
from ctxviewer.store.record import USER_REQUEST_ITEM, first_ordinal, restore, slim

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "sample_traces" / "traces.jsonl"
SPANS = ROOT / "tests" / "data" / "store" / "schema-3.otlp.json"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("compact") / "fresh.db"
    report = import_into(db, [NATIVE, SPANS])
    assert report.imported == 12 and not [p for p in report.problems if p.dropped]
    return db


def whole_records(db: Path) -> list[tuple[str, str]]:
    """``(record JSON, trace_id)`` of every trace of ``db`` as the writer before schema 9 stored it:
    ``trace_to_dict`` without items, ``omissions_recorded`` always, ``request.content`` left out
    (its sha256 stays)."""
    with TraceStore.open(db) as store:
        out = []
        for tid in [r.trace_id for r in store.list(limit=-1)]:
            t = store.load(tid)
            d = trace_to_dict(replace(t, items=()))
            d.pop("items", None)
            d["omissions_recorded"] = t.omissions_recorded
            if t.request.content is not None:
                d["request"].pop("content", None)
            out.append((json.dumps(d, ensure_ascii=False, separators=(",", ":")), tid))
    return out


def whole_attributes(db: Path) -> list[tuple[str | None, str, str]]:
    """``(attributes JSON, run_id, span_id)`` of every run step of ``db`` as the writer before schema
    13 stored it: every attribute inline (``runs._row``, ``attribute_refs`` NULL)."""
    with TraceStore.open(db) as store:
        run_ids = [r[0] for r in store._conn.execute("SELECT DISTINCT run_id FROM run_spans ORDER BY run_id")]
        return [(runs._row(step.span)[11], step.span.run_id, step.span.span_id)
                for run_id in run_ids for step in store.run_steps(run_id)]


def schema8_copy(src: Path, dst: Path) -> None:
    """Write ``dst`` as schema 8 stored the traces of ``src`` (a current database): the tables of
    the steps of schemas 1-8 only (rowid tables, their primary-key indexes beside them), each trace
    record whole (``trace_to_dict`` without items, ``request.content`` replaced by its sha256:
    the schema-8 writer), every other row copied (rowids kept, so the search index still points
    at its blobs)."""
    m = Migrations(migrations.MIGRATION_SET)
    for (version, _name), fn in zip(migrations.STEPS, migrations._STEP_FNS):
        if version <= 8:
            m()(fn)
    records = whole_records(src)
    with closing(sqlite3.connect(dst)) as conn:
        m.apply(Database(conn))
        conn.execute("PRAGMA user_version = 8")
        conn.execute("ATTACH ? AS s", (str(src),))
        for table in ("traces", "blobs", "items", "details", "token_counts", "trace_findings", "trace_scores",
                      "run_spans", "content_fts"):
            cols = [r[1] for r in conn.execute(f"PRAGMA main.table_info({table})")]  # schema 8's columns
            rowid = table in ("traces", "blobs", "items", "content_fts")
            conn.execute(f"INSERT INTO main.{table} ({'rowid, ' if rowid else ''}{', '.join(cols)}) "
                         f"SELECT {'rowid, ' if rowid else ''}{', '.join(cols)} FROM s.{table}")
        conn.executemany("UPDATE details SET json = ? WHERE trace_id = ?", records)
        conn.executemany("UPDATE run_spans SET attributes = ? WHERE run_id = ? AND span_id = ?", whole_attributes(src))
        conn.execute("ANALYZE")
        conn.commit()
        conn.execute("DETACH s")


def _answers(db: Path, ids: list[str]) -> list[str]:
    def run(*args: str) -> str:
        res = CliRunner().invoke(cli, list(args))
        assert res.exit_code in (0, 1), res.output
        return res.stdout

    out = [run("list", str(db), "--all", "--jsonl"), run("list", str(db), "--all", "--filter", "cost > 0", "--jsonl")]
    out += [run("show", str(db), tid, "--json") for tid in ids]
    out += [run("search", str(db), q, "--json") for q in ("order", '"tracking page"', "boot", "writer")]
    out.append(run("list", str(db), "--filter", "conversation == \"sess-7f3c21\"", "--jsonl"))
    return out


def test_a_schema_8_database_upgrades_to_answer_as_a_fresh_import(fresh: Path, tmp_path: Path) -> None:
    old, new = tmp_path / "v8.db", tmp_path / "v9.db"
    schema8_copy(fresh, old)
    with closing(sqlite3.connect(old)) as conn:  # really the schema-8 form: whole records, rowid tables
        assert conn.execute("PRAGMA user_version").fetchone() == (8,)
        assert conn.execute("SELECT count(*) FROM details WHERE json LIKE '%\"user_request\"%'").fetchone()[0] >= 9
        assert conn.execute("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_autoindex_details_1'").fetchone()
    res = CliRunner().invoke(cli, ["upgrade", str(old), "-o", str(new)])
    assert res.exit_code == 0, res.output
    assert "schema step 1 of 7: m019_compact_storage" in res.stderr
    assert "schema step 2 of 7: m020_aggregate_index" in res.stderr
    assert "schema step 3 of 7: m021_aggregate_session_index" in res.stderr
    assert "schema step 4 of 7: m022_session_rollup" in res.stderr
    assert "schema step 5 of 7: m023_compact_attributes" in res.stderr
    assert "schema step 6 of 7: m024_window_use" in res.stderr
    assert "schema step 7 of 7: m025_joined_view_fts" in res.stderr
    with TraceStore.open(fresh) as st:
        ids = [r.trace_id for r in st.list(limit=-1)]
    assert len(ids) == 12
    assert _answers(new, ids) == _answers(fresh, ids)
    with closing(sqlite3.connect(new)) as a, closing(sqlite3.connect(fresh)) as b:
        q = "SELECT trace_id, json, request_hash FROM details ORDER BY trace_id"
        assert a.execute(q).fetchall() == b.execute(q).fetchall()  # the same slim records, byte for byte


def test_the_record_keeps_only_what_no_column_or_item_holds(fresh: Path) -> None:
    with closing(sqlite3.connect(fresh)) as conn:
        rows = conn.execute("SELECT d.trace_id, d.json FROM details d").fetchall()
    assert len(rows) == 12
    for tid, text in rows:
        d = json.loads(text)
        assert not {"trace_id", "created", "service", "source_format"} & d.keys(), (tid, sorted(d))
        assert not {"provider", "model", "capacity"} & d.get("endpoint", {}).keys()
        assert "user_request" not in d or USER_REQUEST_ITEM not in d
    native = dict(rows)["budget-8k"]
    assert json.loads(native)[USER_REQUEST_ITEM] == 24  # the user message is item 24, stored once in blobs
    with TraceStore.open(fresh) as st:
        t = st.load("budget-8k")
    assert t.user_request is not None and t.user_request.startswith("Okay, thank you. Here's what I'd like to do")
    assert t.items[24].content == t.user_request and t.items[24].kind.value == "user"
    assert (t.trace_id, t.service, t.endpoint.model, t.endpoint.capacity) == (
        "budget-8k", "support-assistant", "gpt-4o-mini-2024-07-18", 8000)


def test_details_and_token_counts_have_no_second_b_tree(fresh: Path) -> None:
    with closing(sqlite3.connect(fresh)) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema")}
        assert "sqlite_autoindex_details_1" not in names and "sqlite_autoindex_token_counts_1" not in names
        for table in ("details", "token_counts"):
            sql = conn.execute("SELECT sql FROM sqlite_schema WHERE name = ?", (table,)).fetchone()[0]
            assert sql.endswith("WITHOUT ROWID"), sql


def test_slim_leaves_out_only_equal_values_and_restore_puts_them_back() -> None:
    columns = {"trace_id": "t1", "created": "2026-11-02T09:14:05.120Z", "service": "svc", "session_id": None,
               "replay_of": None, "source_format": "otel", "reserved_output_tokens": 512,
               "provider": "openai", "model": "gpt-4o", "capacity": 128000}
    full = {"trace_id": "t1", "created": "2026-11-02T09:14:05.120123Z", "service": "svc",
            "endpoint": {"provider": "openai", "model": "gpt-4o", "capacity": 128000.0, "encoding": "o200k_base"},
            "user_request": "hi", "reserved_output_tokens": 512, "source_format": "otel"}
    contents = ["be kind", None, "hi", "hi"]
    d = slim(json.loads(json.dumps(full)), columns, first_ordinal(contents))
    assert d == {"created": "2026-11-02T09:14:05.120123Z",  # not the column's text: kept
                 "endpoint": {"capacity": 128000.0, "encoding": "o200k_base"},  # a float is not the INTEGER
                 USER_REQUEST_ITEM: 2}  # the first item with that text
    assert restore(d, columns, contents) == full
    assert restore({}, dict.fromkeys(record.COLUMNS), []) == {}  # NULL columns add nothing: not recorded
    with pytest.raises(ValueError, match="names no item with content"):
        restore({USER_REQUEST_ITEM: 1}, columns, contents)
