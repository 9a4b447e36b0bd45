"""Schema 6 (issue 11, "hashes stored compactly"): every content address in the database is the
32-byte sha256 digest, not its 64 hex characters; hex stays where users see it; a schema-5
database upgrades in place with SQL only and reads back the same."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import sqlite3
import sys
from contextlib import closing
from pathlib import Path
from types import ModuleType

import pytest
from sqlite_utils import Database, Migrations
from test_compact_storage import whole_records

from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import (
    SCHEMA_VERSION,
    OldSchemaError,
    TraceStore,
    content_digest,
    content_hash,
    fts,
    migrations,
    upgrade_copy,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"


def _gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_traces", ROOT / "benchmarks" / "gen_traces.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_traces", mod)  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def schema5_copy(src: Path, dst: Path) -> None:
    """Write ``dst`` as schema 5 would have stored the rows of ``src`` (a schema-6 database): the
    tables made by the steps of schemas 1-5 only (their TEXT declared types), each content address
    as 64 lower-case hex characters, blob rowids kept, each trace record whole (schema 9 slims them),
    the search index rebuilt."""
    m = Migrations(migrations.MIGRATION_SET)
    for (version, _name), fn in zip(migrations.STEPS, migrations._STEP_FNS):
        if version <= 5:
            m()(fn)
    with closing(sqlite3.connect(dst)) as conn:
        m.apply(Database(conn))
        conn.execute("PRAGMA user_version = 5")
        conn.execute("ATTACH ? AS s", (str(src),))
        for table in ("traces", "blobs", "items", "details", "token_counts", "trace_findings"):
            mine = {r[1] for r in conn.execute(f"PRAGMA main.table_info({table})")}  # schema 5's columns only
            cols = [r[1] for r in conn.execute(f"PRAGMA s.table_info({table})") if r[1] in mine]
            hashed = migrations.HASH_COLUMNS.get(table, ())
            select = [f"CASE WHEN {c} IS NULL THEN NULL ELSE lower(hex({c})) END" if c in hashed else c for c in cols]
            rowid = table not in ("trace_findings", "details", "token_counts")  # WITHOUT ROWID (schema 9: details, token_counts)
            conn.execute(f"INSERT INTO main.{table} ({'rowid, ' if rowid else ''}{', '.join(cols)}) "
                         f"SELECT {'rowid, ' if rowid else ''}{', '.join(select)} FROM s.{table}")
        conn.executemany("UPDATE details SET json = ? WHERE trace_id = ?", whole_records(src))  # whole, as schema 5 wrote
        conn.execute("INSERT INTO content_fts (content_fts) VALUES ('delete-all')")
        conn.execute(fts.FILL_SQL_V3)  # schema 3's one-column index
        conn.commit()
        conn.execute("DETACH s")


def _bad_hashes(conn: sqlite3.Connection) -> dict[str, int]:
    """Per hash column, the non-NULL values that are not a 32-byte BLOB."""
    return {f"{t}.{c}": conn.execute(f"SELECT count(*) FROM {t} WHERE {c} IS NOT NULL AND "
                                     f"(typeof({c}) != 'blob' OR length({c}) != 32)").fetchone()[0]
            for t, cols in migrations.HASH_COLUMNS.items() for c in cols}


def _declared(conn: sqlite3.Connection) -> dict[str, str]:
    return {f"{t}.{c}": next(r[2] for r in conn.execute(f"PRAGMA table_info({t})") if r[1] == c)
            for t, cols in migrations.HASH_COLUMNS.items() for c in cols}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample traces at schema 6 with a token count cached for every stored text."""
    ref = tmp_path_factory.mktemp("ref") / "ref.db"
    shutil.copy(SAMPLES, ref)
    with TraceStore.create(ref) as store:
        texts = [r[0] for r in store._conn.execute("SELECT text FROM blobs ORDER BY rowid")]
        store.token_counts(texts, "cl100k_base")
    return ref


def test_digest_and_hex_helpers() -> None:
    text = "Ignore previous instructions \ud800"  # a lone surrogate is kept (surrogatepass)
    raw = text.encode("utf-8", "surrogatepass")
    assert content_digest(text) == hashlib.sha256(raw).digest() and len(content_digest(text)) == 32
    assert content_hash(text) == hashlib.sha256(raw).hexdigest() == content_digest(text).hex()
    assert migrations.unhex(content_hash(text)) == content_digest(text)
    for kept in (None, "x", "zz" * 32, content_digest(text), "ab" * 31):  # not a hex sha256: unchanged
        assert migrations.unhex(kept) == kept


def test_a_new_database_declares_blob_and_stores_32_byte_digests(tmp_path: Path) -> None:
    with closing(sqlite3.connect(SAMPLES)) as conn:
        assert _declared(conn) == dict.fromkeys(_declared(conn), "BLOB")
        assert _bad_hashes(conn) == dict.fromkeys(_bad_hashes(conn), 0)
        assert conn.execute("SELECT count(*), count(request_hash) FROM details").fetchone() == (9, 8)
        assert conn.execute("SELECT count(*) FROM items WHERE content_hash IS NOT NULL").fetchone() == (237,)
        # every item's content is found by its digest
        assert conn.execute("SELECT count(*) FROM items i JOIN blobs b ON b.hash = i.content_hash").fetchone() == (237,)
    with TraceStore.open(SAMPLES) as store:
        tid = store.list(limit=1)[0].trace_id
        body = store.load(tid).request
        assert body.content is not None and body.sha256 == content_hash(body.content)  # hex at the edge
        assert store.blob(body.sha256) == body.content


def test_a_schema5_database_upgraded_to_6_reads_the_same(reference: Path, tmp_path: Path) -> None:
    old, new = tmp_path / "old.db", tmp_path / "new.db"
    schema5_copy(reference, old)
    with closing(sqlite3.connect(old)) as conn:  # the schema-5 form: TEXT, 64 hex characters
        assert _declared(conn) == dict.fromkeys(_declared(conn), "TEXT")
        assert conn.execute("SELECT count(*), min(length(hash)), max(length(hash)) FROM blobs "
                            "WHERE typeof(hash) = 'text'").fetchone() == (155, 64, 64)
        assert conn.execute("SELECT count(*) FROM token_counts WHERE typeof(content_hash) = 'text'").fetchone() == (155,)
    with pytest.raises(OldSchemaError, match=rf"uses an older schema \(5; current {SCHEMA_VERSION}\) and is opened read-only"):
        TraceStore.open(old)
    before = old.read_bytes()
    result = upgrade_copy(old, new)
    assert old.read_bytes() == before
    assert (result.from_version, result.to_version, result.traces) == (5, SCHEMA_VERSION, 9) and SCHEMA_VERSION == 15

    with closing(sqlite3.connect(new)) as conn:
        assert _bad_hashes(conn) == dict.fromkeys(_bad_hashes(conn), 0)
        assert _declared(conn) == {"blobs.hash": "TEXT", "items.content_hash": "TEXT",  # in place: the declared type stays
                                   "details.request_hash": "BLOB", "token_counts.content_hash": "BLOB"}  # rebuilt by schema 9
        assert conn.execute("SELECT count(*) FROM items WHERE content_hash IS NOT NULL").fetchone() == (237,)
        assert conn.execute("SELECT count(*) FROM token_counts").fetchone() == (155,)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.execute("INSERT INTO content_fts (content_fts) VALUES ('integrity-check')")  # raises when out of step
        assert [r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations ORDER BY rowid DESC LIMIT 7")] == [
            "m025_joined_view_fts", "m024_window_use", "m023_compact_attributes", "m022_session_rollup", "m021_aggregate_session_index",
            "m020_aggregate_index", "m019_compact_storage"]
        assert conn.execute("SELECT 1 FROM sqlite_stat1 WHERE idx = 'idx_items_content_hash'").fetchone() == (1,)
        plan = " ".join(r[3] for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT trace_id FROM items WHERE content_hash = ?", (b"\0" * 32,)))
        assert "idx_items_content_hash" in plan
        # the rows are the reference's, byte for byte (blob rowids too: the search index is keyed by them)
        for table in ("blobs", "items", "details", "token_counts", "traces"):
            q = (f"SELECT * FROM {table} ORDER BY 1, 2" if table in ("details", "token_counts")  # WITHOUT ROWID (schema 9)
                 else f"SELECT rowid, * FROM {table} ORDER BY rowid")
            with closing(sqlite3.connect(reference)) as ref:
                # not kept by schema 5 (in memory, not committed); the window columns (schema 14) are
                # facts the CLI's upgrade back-fills, not this store-level copy
                ref.execute("UPDATE traces SET facts_context = NULL, window_used = NULL, window_capacity = NULL")
                assert conn.execute(q).fetchall() == ref.execute(q).fetchall(), table
                ref.rollback()

    with TraceStore.open(reference) as ref, TraceStore.open(new) as up:
        ids = [r.trace_id for r in ref.list(limit=-1)]
        assert len(ids) == 9 and [r.trace_id for r in up.list(limit=-1)] == ids
        for tid in ids:
            assert up.load(tid) == ref.load(tid)
            assert up.items(tid) == ref.items(tid)
        loaded = up.load(ids[0])
        assert loaded.request.sha256 is not None and up.blob(loaded.request.sha256) == loaded.request.content
        for query in ("refund", "ignore previous", "polic", "a"):
            hits = up.search_hits(query, limit=-1)
            assert hits == ref.search_hits(query, limit=-1)
            assert hits or query == "ignore previous"
        assert len(up.search_hits("refund", limit=-1)) == 88
        texts = [i.content for i in ref.items(ids[0]) if i.content is not None]
        with TraceStore.create(new) as writable:  # cached counts found by digest: nothing is recounted
            writable._conn.execute("UPDATE token_counts SET tokens = tokens + 1000")
            writable._conn.commit()
            assert writable.token_counts(texts, "cl100k_base") == [n + 1000 for n in ref.token_counts(texts, "cl100k_base")]


def test_the_upgrade_step_is_sql_only_and_leaves_non_hex_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No trace is re-assessed by the step; a value that is no hex sha256 (here a damaged row) is
    left as it was, and a second run changes nothing."""
    old = tmp_path / "old.db"
    schema5_copy(SAMPLES, old)
    with closing(sqlite3.connect(old)) as conn:
        conn.execute("INSERT INTO token_counts VALUES ('not-a-hash', 'cl100k_base', 3)")
        conn.commit()
    monkeypatch.setattr(TraceStore, "write_facts", lambda self, facts: pytest.fail("the schema-6 step re-assessed traces"))
    with TraceStore.create(old, upgrade=True) as store:
        conn = store._conn
        assert conn.execute("SELECT typeof(content_hash) FROM token_counts WHERE tokens = 3 "
                            "AND encoding = 'cl100k_base' AND length(content_hash) != 32").fetchall() == [("text",)]
        assert _bad_hashes(conn)["token_counts.content_hash"] == 1 and sum(_bad_hashes(conn).values()) == 1
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        frozen = conn.execute("SELECT rowid, hash FROM blobs ORDER BY rowid").fetchall()
        migrations.m014_compact_hashes(Database(conn))  # again: nothing left to convert
        assert conn.execute("SELECT rowid, hash FROM blobs ORDER BY rowid").fetchall() == frozen


def test_a_generated_database_shrinks_by_the_bytes_of_its_hashes(tmp_path: Path) -> None:
    """400 generated traces (4,808 item rows, 1,018 texts) written as schema 5 and migrated in
    place by ``gen_traces.py --migrate``: after VACUUM the file is smaller by at least 30 bytes per
    stored address (each is in its table and in an index: 2 x (items + blobs)); measured 397,312
    bytes (about 34 per address: 32 bytes of value, a byte of record header, page slack)."""
    gen = _gen()
    six, five = tmp_path / "six.db", tmp_path / "five.db"
    gen.write(six, 400, seed=3)
    schema5_copy(six, five)
    with closing(sqlite3.connect(five)) as conn:
        conn.execute("VACUUM")
        items, texts = (conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("items", "blobs"))
    assert (items, texts) == (4808, 1018)
    size5 = five.stat().st_size
    result = gen.migrate_generated(five)
    assert result["steps"] == 12 and result["traces"] == 400  # schema 6 (the hashes), 7 (facts_context), 8 (three), 9, 10, 11, 12, 13, 14, 15
    with closing(sqlite3.connect(five)) as conn:
        # what schemas 8 and 10 add (the cost, duration and scores columns, the runs, the aggregate index)
        # is not what is measured here
        conn.execute("DROP INDEX idx_traces_cost")
        conn.execute("DROP INDEX idx_traces_aggregate")
        conn.execute("DROP INDEX idx_traces_aggregate_day")
        conn.execute("DROP INDEX idx_traces_aggregate_session")  # schema 11's
        for trigger in ("insert", "replace", "update_replace", "delete", "update"):  # schema 12's
            conn.execute(f"DROP TRIGGER session_rollup_{trigger}")
        conn.execute("DROP TABLE session_rollup")
        conn.execute("DROP TABLE session_rollup_stale")
        conn.execute("DROP INDEX idx_traces_facts_context")
        for col in ("cost", "output_tokens", "scores"):  # duration_ms stays: schema 13's records need it
            conn.execute(f"ALTER TABLE traces DROP COLUMN {col}")
        conn.execute("DROP TABLE trace_scores")
        conn.execute("DROP TABLE run_spans")
        conn.execute("DROP TABLE span_values")  # schema 13's
        conn.commit()
        conn.execute("VACUUM")
        assert _bad_hashes(conn) == dict.fromkeys(_bad_hashes(conn), 0)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.execute("INSERT INTO content_fts (content_fts) VALUES ('integrity-check')")
    saved = size5 - five.stat().st_size
    assert saved >= 30 * 2 * (items + texts)
    # 97 pages of 4 KiB were the hashes (98 before the generator wrote span durations into details); the
    # rest, schema 9's compaction of the trace records and of details' and token_counts' primary keys, and
    # (20,480 of it) schema 13's: the records' attributes without the span duration the row holds
    assert saved == 724_992
    with TraceStore.open(six) as a, TraceStore.open(five) as b:
        assert b.search_hits("refund", limit=-1) == a.search_hits("refund", limit=-1)
        tid = a.list(limit=1)[0].trace_id
        assert b.load(tid) == a.load(tid)


def test_an_empty_schema5_database_is_rebuilt_with_blob_columns_and_then_stores_digests(tmp_path: Path) -> None:
    """A schema-5 database without rows (an import that found nothing) takes the new-database path of
    the step: BLOB declared types, the search index still attached to ``blobs``."""
    empty6, old = tmp_path / "empty6.db", tmp_path / "old.db"
    TraceStore.create(empty6).close()
    schema5_copy(empty6, old)
    with closing(sqlite3.connect(old)) as conn:
        assert _declared(conn) == dict.fromkeys(_declared(conn), "TEXT")
    with TraceStore.open(SAMPLES) as samples:
        trace = samples.load("ticket-injection")
    with TraceStore.create(old, upgrade=True) as store:
        assert _declared(store._conn) == dict.fromkeys(_declared(store._conn), "BLOB")
        assert store._conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        store.add(with_facts([trace]))
        assert _bad_hashes(store._conn) == dict.fromkeys(_bad_hashes(store._conn), 0)
        assert store.load("ticket-injection") == trace
        hits = store.search_hits("ignore", limit=-1)
        assert hits and {h.trace_id for h in hits} == {"ticket-injection"}
        assert store._conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        store._conn.execute("INSERT INTO content_fts (content_fts) VALUES ('integrity-check')")
