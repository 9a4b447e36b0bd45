"""The trace database: round trip, content addressing, listing, read-only open, bad files, migration."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from contextlib import closing
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest
from factories import EVIDENCE, make_rich_trace, make_trace

from ctxviewer.assess.context import EMPTY
from ctxviewer.model.trace import Status
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import (
    SCHEMA_VERSION,
    SORTABLE,
    StoreError,
    TraceQuery,
    TraceRow,
    TraceStore,
    content_digest,
    content_hash,
)
from ctxviewer.store.migrations import STEPS

SAMPLE_DB = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "traces.db"
    with TraceStore.create(path) as store:
        store.add(with_facts([make_trace(), make_rich_trace()]))
    return path


def _rows(path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_rich_trace_round_trips_exactly(db: Path) -> None:
    rich = make_rich_trace()
    assert rich.request.sha256 == hashlib.sha256(rich.request.content.encode()).hexdigest()
    with TraceStore.open(db) as store:
        loaded = store.load("trace-rich")
        assert store.load("trace-4471-delivery") == make_trace()
    assert loaded == rich
    # spot-check the parts most likely to go wrong
    assert loaded.tool_calls[0].checks[1].rule == "refunds.require_supervisor"
    assert loaded.tool_calls[0].checks[2].passed is None
    assert [i.omission_reason for i in loaded.omitted] == ["rank", "duplicate", "budget"]
    assert loaded.items[3].source.turn == 3
    assert loaded.attributes == {"temperature": 0.2, "tags": ("support", "delivery"), "nested": {"a": 1}}
    assert hash(loaded)  # frozen all the way down (issue 5)


def test_request_content_goes_to_blobs_and_sha256_is_set(tmp_path: Path) -> None:
    body = '{"messages": []}'
    trace = make_trace(request=replace(make_trace().request, content=body, exact_replay=True))
    with TraceStore.create(tmp_path / "t.db") as store:
        store.add(with_facts([trace]))
        loaded = store.load(trace.trace_id)
        assert loaded.request.content == body
        assert loaded.request.sha256 == hashlib.sha256(body.encode()).hexdigest()
        assert store.blob(loaded.request.sha256) == body  # hex at the edge
        assert store.blob(loaded.request.sha256.upper()) == body
        assert store.blob("not hex") is None and store.blob("00" * 32) is None
    assert loaded == replace(trace, request=replace(trace.request, sha256=content_hash(body)))
    details = _rows(tmp_path / "t.db", "SELECT json, request_hash FROM details")
    assert body not in details[0][0]
    assert json.loads(details[0][0])["request"]["sha256"] == content_hash(body)  # users see hex
    assert details[0][1] == content_digest(body) == hashlib.sha256(body.encode()).digest()  # 32 bytes inside


def test_identical_content_is_stored_once(tmp_path: Path) -> None:
    a = make_trace(trace_id="a")
    b = make_trace(trace_id="b")
    path = tmp_path / "t.db"
    with TraceStore.create(path) as store:
        store.add(with_facts([a, b]))
    shared_text = EVIDENCE[0][2]
    h = hashlib.sha256(shared_text.encode()).hexdigest()
    assert _rows(path, f"SELECT count(*) FROM blobs WHERE hash = x'{h}'") == [(1,)]
    assert _rows(path, f"SELECT count(*) FROM items WHERE content_hash = x'{h}'") == [(2,)]
    # 7 distinct item texts, shared by both traces
    assert _rows(path, "SELECT count(*) FROM blobs") == [(7,)]
    assert _rows(path, "SELECT count(*) FROM items") == [(14,)]


def test_add_replaces_a_trace_with_the_same_id(tmp_path: Path) -> None:
    with TraceStore.create(tmp_path / "t.db") as store:
        store.add(with_facts([make_trace()]))
        smaller = make_trace(items=make_trace().items[:2], service="other")
        assert store.add(with_facts([smaller])) == 1
        assert store.count() == 1
        assert store.load(smaller.trace_id) == smaller
        assert store.list()[0].retained_count == 2


def test_list_row_values(db: Path) -> None:
    with TraceStore.open(db) as store:
        rows = store.list()
    assert [r.trace_id for r in rows] == ["trace-4471-delivery", "trace-rich"]
    row = rows[0]
    assert row == TraceRow(
        trace_id="trace-4471-delivery",
        created=datetime(2026, 11, 2, 9, 14, 5, 120000, tzinfo=timezone.utc),
        service="northwind-support",
        provider="openai",
        model="gpt-4o-mini",
        capacity=8000,
        input_tokens=sum(i.tokens for i in make_trace().retained),
        reserved_output_tokens=1200,
        retained_count=6,
        omitted_count=1,
        replay_of=None,
        source_format="native",
        omissions_recorded=True,
        margin=8000 - 1200 - sum(i.tokens for i in make_trace().retained),
        fits=True,
        state="ok",
        worst_rule=None,
        worst_severity=None,
        verdict="fits, 6,601 tokens margin",
        facts_context=EMPTY.fingerprint,  # assessed with no ctxviewer.toml and no marks
        window_used=199 + 1200,  # input + B_out set against C by eq. 3.1 (the count decided: no reported input over C)
        window_capacity=8000,
        session_id="sess-2f9c",
    )
    assert sum(i.tokens for i in make_trace().retained) == 199
    assert rows[1].input_tokens == make_rich_trace().input_tokens
    assert (rows[1].retained_count, rows[1].omitted_count, rows[1].replay_of) == (6, 3, "trace-4471-delivery")


def _many(store: TraceStore) -> None:
    base = datetime(2026, 1, 1, tzinfo=timezone.utc)
    models = ["gpt-4o", "claude-sonnet", "GPT-4o-mini", None]
    store.add(with_facts(
        make_trace(
            trace_id=f"t{n:02d}",
            created=base.replace(day=1 + (n * 7) % 28),
            endpoint=replace(make_trace().endpoint, model=models[n % 4]),
            input_tokens=1000 + 10 * n,
        )
        for n in range(12)
    ))


def test_filter_sort_and_paging(tmp_path: Path) -> None:
    with TraceStore.create(tmp_path / "t.db") as store:
        _many(store)
        assert store.count() == 12
        assert store.count(TraceQuery(text="gpt-4O")) == 6  # case-insensitive, matches -mini too
        assert [r.trace_id for r in store.list(TraceQuery(text="claude"))] == ["t01", "t05", "t09"]
        assert [r.trace_id for r in store.list(TraceQuery(text="T1"))] == ["t10", "t11"]
        assert store.count(TraceQuery(text="northwind mini")) == 3  # terms AND-ed across columns
        assert store.count(TraceQuery(text="100%")) == 0  # LIKE wildcards are escaped
        by_tokens = store.list(TraceQuery(sort="input_tokens", descending=True), limit=3)
        assert [r.input_tokens for r in by_tokens] == [1110, 1100, 1090]
        by_time = store.list(TraceQuery(sort="created"))
        times = [r.created for r in by_time]
        assert times == sorted(times)
        assert [r.trace_id for r in by_time[:3]] == ["t00", "t04", "t08"]  # all on Jan 1 -> id order
        by_model = [r.model for r in store.list(TraceQuery(sort="model"))]
        assert by_model[:3] == [None, None, None] and by_model[3:6] == ["GPT-4o-mini"] * 3
        page1 = store.list(TraceQuery(sort="model"), offset=0, limit=5)
        page2 = store.list(TraceQuery(sort="model"), offset=5, limit=5)
        assert {r.trace_id for r in page1}.isdisjoint(r.trace_id for r in page2)


def test_query_rejects_unknown_sort() -> None:
    assert "created" in SORTABLE and "model" in SORTABLE and "trace_id" in SORTABLE
    with pytest.raises(ValueError, match="cannot sort by 'payload'"):
        TraceQuery(sort="payload")


def test_list_never_reads_payload_tables(db: Path) -> None:
    conn = sqlite3.connect(db)
    seen: list[str] = []
    conn.set_authorizer(lambda action, arg1, *rest: seen.append(arg1 or "") or sqlite3.SQLITE_OK)
    store = TraceStore(conn, db, readonly=True)
    store.list(TraceQuery(text="north", sort="model"))
    store.count(TraceQuery(text="north"))
    store.close()
    assert {"items", "blobs", "details"}.isdisjoint(seen)
    assert "traces" in seen


def test_readonly_open_never_modifies_the_file(db: Path) -> None:
    before = db.read_bytes()
    os.utime(db, (1_700_000_000, 1_700_000_000))
    mtime = db.stat().st_mtime_ns
    with TraceStore.open(db) as store:
        assert store.readonly
        store.list()
        store.count(TraceQuery(text="rich"))
        store.load("trace-rich")
        assert store.token_count("a brand new text", "cl100k_base") == 4
        with pytest.raises(StoreError, match="read-only") as err:
            store.add(with_facts([make_trace(trace_id="new")]))
        assert str(db) in str(err.value)
    assert db.read_bytes() == before
    assert db.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in db.parent.iterdir()) == ["traces.db"]


def test_load_unknown_trace_raises_keyerror(db: Path) -> None:
    with TraceStore.open(db) as store, pytest.raises(KeyError):
        store.load("nope")


def test_token_count_is_cached_per_encoding(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    text = "Refunds above $50 require supervisor approval."
    with TraceStore.create(path) as store:
        assert store.token_count(text, "cl100k_base") == 9
    assert _rows(path, "SELECT content_hash, encoding, tokens FROM token_counts") == [
        (content_digest(text), "cl100k_base", 9)
    ]
    conn = sqlite3.connect(path)
    conn.execute("UPDATE token_counts SET tokens = 99")  # prove the cache is read, not recounted
    conn.commit()
    conn.close()
    with TraceStore.open(path) as store:
        assert store.token_count(text, "cl100k_base") == 99


# ---------------------------------------------------------------- bad files


def _expect_error(path: Path, match: str, *, writable: bool = False) -> None:
    for opener in (TraceStore.open, TraceStore.create) if writable else (TraceStore.open,):
        with pytest.raises(StoreError, match=match) as err:
            opener(path)
        assert str(path) in str(err.value)


def test_missing_file(tmp_path: Path) -> None:
    _expect_error(tmp_path / "absent.db", "no such file")
    assert not (tmp_path / "absent.db").exists()


def test_not_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("just some notes, not a database\n" * 10)
    _expect_error(path, "not an SQLite database", writable=True)
    assert path.read_text().startswith("just some notes")


def test_truncated_sqlite(db: Path) -> None:
    data = db.read_bytes()
    assert len(data) > 4096
    db.write_bytes(data[: len(data) // 2])
    _expect_error(db, "corrupt", writable=True)


def test_corrupt_schema_page(db: Path) -> None:
    data = bytearray(db.read_bytes())
    data[100:4000] = b"\xa5" * 3900  # garbage over the schema table, header intact
    db.write_bytes(bytes(data))
    _expect_error(db, "corrupt", writable=True)


def test_newer_schema(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    _expect_error(
        db,
        rf"was written by a newer ctxviewer \(schema {SCHEMA_VERSION + 1}; this version reads up to {SCHEMA_VERSION}\)",
        writable=True,
    )


def test_other_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    _expect_error(path, "not a ctxviewer trace database", writable=True)
    assert _rows(path, "SELECT name FROM sqlite_master WHERE type='table'") == [("recipes",)]


def test_foreign_database_with_a_user_version_is_not_called_newer(tmp_path: Path) -> None:
    path = tmp_path / "foreign.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE traces (x)")
        conn.execute("PRAGMA user_version = 3")
        conn.commit()
    for opener in (TraceStore.open, TraceStore.create):
        with pytest.raises(StoreError) as err:
            opener(path)
        assert str(err.value) == (
            f"{path}: is not a ctxviewer trace database (missing tables: blobs, items, details, token_counts)"
        )
    assert _rows(path, "SELECT name FROM sqlite_master WHERE type='table'") == [("traces",)]


def test_newer_ctxviewer_with_reshaped_tables_is_still_newer(db: Path) -> None:
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("ALTER TABLE details RENAME TO trace_details")  # what a future schema might do
        conn.execute("PRAGMA user_version = 99")
        conn.commit()
    with pytest.raises(StoreError) as err:
        TraceStore.create(db)
    assert str(err.value) == (
        f"{db}: was written by a newer ctxviewer (schema 99; this version reads up to {SCHEMA_VERSION}); "
        "upgrade ctxviewer to open it"
    )


def test_a_negative_schema_version_is_a_damaged_header_not_an_older_schema(db: Path, tmp_path: Path) -> None:
    """New user (wt-nu): bytes 60-63 of the header overwritten read as schema -1, and every command
    said the file "uses an older schema (-1; current N)" and offered `ctxviewer upgrade`."""
    data = bytearray(db.read_bytes())
    data[60:64] = b"\xff\xff\xff\xff"
    db.write_bytes(bytes(data))
    expected = (f"{db}: is corrupt: its schema version (PRAGMA user_version, bytes 60-63 of the header) reads -1, "
                "which no ctxviewer writes")
    for opening in (lambda: TraceStore.open(db), lambda: TraceStore.create(db)):
        with pytest.raises(StoreError) as err:
            opening()
        assert str(err.value) == expected
    from ctxviewer.store import upgrade_copy

    with pytest.raises(StoreError) as err:
        upgrade_copy(db, tmp_path / "up.db")
    assert str(err.value) == expected
    assert not (tmp_path / "up.db").exists()


def test_missing_tables(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE details")
    conn.commit()
    conn.close()
    _expect_error(db, r"missing tables: details", writable=True)


# ---------------------------------------------------------------- schema and migration


def test_migrates_an_empty_database(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    conn = sqlite3.connect(path)
    conn.execute("VACUUM")  # writes a valid empty database (header, no tables)
    conn.close()
    assert path.read_bytes().startswith(b"SQLite format 3\x00")
    with pytest.raises(StoreError, match="empty SQLite database"):
        TraceStore.open(path)
    with TraceStore.create(path) as store:
        store.add(with_facts([make_trace()]))
    assert _rows(path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    applied = [r[0] for r in _rows(path, "SELECT name FROM _sqlite_migrations ORDER BY id")]
    assert applied == [name for _, name in STEPS]
    with TraceStore.create(path) as store:  # re-opening applies nothing and keeps the data
        assert store.count() == 1
    assert len(_rows(path, "SELECT name FROM _sqlite_migrations")) == len(STEPS)


def test_schema_indexes_for_listing(db: Path) -> None:
    indexes = {r[0] for r in _rows(db, "SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='traces'")}
    assert {"idx_traces_created", "idx_traces_model", "idx_traces_input_tokens"} <= indexes
    plan = " ".join(str(r) for r in _rows(db, "EXPLAIN QUERY PLAN SELECT trace_id FROM traces ORDER BY created, trace_id LIMIT 200"))
    assert "idx_traces_created" in plan and "TEMP B-TREE" not in plan


def test_add_is_all_or_nothing(tmp_path: Path) -> None:
    def traces():
        yield make_trace(trace_id="first")
        yield make_trace(trace_id="second")
        raise RuntimeError("disk on fire")

    with TraceStore.create(tmp_path / "t.db") as store:
        store.add(with_facts([make_trace(trace_id="kept")]))
        with pytest.raises(RuntimeError, match="disk on fire"):
            store.add(with_facts(traces()))
        assert [r.trace_id for r in store.list()] == ["kept"]
        assert _rows(tmp_path / "t.db", "SELECT count(*) FROM items") == [(7,)]


def test_omitted_items_keep_status_and_no_position(db: Path) -> None:
    with TraceStore.open(db) as store:
        items = store.items("trace-4471-delivery")
    assert [i.position for i in items] == [1, 2, 3, 4, None, 5, 6]
    assert items[4].status is Status.OMITTED and items[4].omission_reason == "budget"


def test_unfinished_write_is_explained_and_recovered_by_create(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with TraceStore.create(path) as store:
        store.add(with_facts([make_trace()]))
    crashed = tmp_path / "crashed.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA cache_size = 1")  # force pages out so the journal is written mid-transaction
    conn.execute("BEGIN")
    conn.execute("INSERT INTO blobs VALUES ('x', ?, 1)", ("y" * 100_000,))
    crashed.write_bytes(path.read_bytes())
    Path(f"{crashed}-journal").write_bytes(Path(f"{path}-journal").read_bytes())
    conn.rollback()
    conn.close()
    with pytest.raises(StoreError, match="unfinished write") as err:
        TraceStore.open(crashed)
    assert str(crashed) in str(err.value)
    TraceStore.create(crashed).close()  # a writable open rolls the journal back
    with TraceStore.open(crashed) as store:
        assert [r.trace_id for r in store.list()] == [make_trace().trace_id]


DATA = Path(__file__).resolve().parents[1] / "data" / "store"


@pytest.mark.parametrize("version", [1, 2])
def test_database_of_each_released_schema_still_opens(tmp_path: Path, version: int) -> None:
    """One kept database per schema version: an upgraded copy must read to the traces it was
    written from (the JSONL file written alongside it), with the facts of the current schema
    back-filled by assessing each stored trace; the old file is only read."""
    from ctxviewer.assess.assessment import assess
    from ctxviewer.importers.formats.native import IMPORTER
    from ctxviewer.pipeline.backfill import upgrade_with_facts as upgrade_copy  # the copy and its back-fill of facts
    from ctxviewer.store import OldSchemaError

    expected = list(IMPORTER.load(DATA / f"schema-{version}.jsonl"))
    old = tmp_path / "old.db"
    old.write_bytes((DATA / f"schema-{version}.db").read_bytes())
    before = old.read_bytes()
    if version < SCHEMA_VERSION:
        with pytest.raises(OldSchemaError) as err:
            TraceStore.open(old)  # read-only: never upgraded in place
        assert str(err.value) == (
            f"{old}: uses an older schema ({version}; current {SCHEMA_VERSION}) and is opened read-only, "
            f"so it is not upgraded in place; write an upgraded copy with `ctxviewer upgrade {old} -o NEW.db` "
            "and open that")
    new = tmp_path / "new.db"
    result = upgrade_copy(old, new)
    assert (result.from_version, result.to_version, result.traces) == (version, SCHEMA_VERSION, len(expected))
    assert old.read_bytes() == before
    if version < 2:  # rows written before schema 2 did not store token provenance: it stays unknown
        expected = [replace(t, items=tuple(replace(i, tokens_provenance=None) for i in t.items)) for t in expected]
    with TraceStore.open(new) as store:
        assert store.count() == len(expected)
        assert [store.load(t.trace_id) for t in expected] == expected
        rows = {r.trace_id: r for r in store.list()}
    for t in expected:
        a, row = assess(t), rows[t.trace_id]
        assert (row.state, row.verdict, row.fits, row.margin, row.omissions_recorded) == (
            a.state.value, a.verdict, a.fits, a.capacity.margin, a.omissions_recorded)
    assert (rows["trace-4471-delivery"].state, rows["trace-4471-delivery"].margin) == ("ok", 6601)
    assert rows["trace-rich"].verdict.startswith(
        "input fits, 6,580 tokens to spare; output reserve fits (1,200 of 1,200); validation cited_ids failed")
    assert rows["trace-rich"].state == "failure"
    # schema 3: the conversation column, the findings table and the full-text index are back-filled
    assert {r.session_id for r in rows.values()} == {"sess-2f9c"}
    with TraceStore.open(new) as store:
        assert [r.trace_id for r in store.list(TraceQuery(text='conversation == "sess-2f9c" and finding == validation'))] == [
            "trace-rich"]
        assert [(h.trace_id, h.item_id) for h in store.search_hits("rural postc")] == [
            ("trace-4471-delivery", "ev-shipping-delays"), ("trace-rich", "ev-shipping-delays")]


def test_upgrade_copy_refuses_an_existing_target_and_a_non_database(tmp_path: Path, db: Path) -> None:
    from ctxviewer.store import upgrade_copy

    target = tmp_path / "exists.db"
    target.write_bytes(b"keep me")
    with pytest.raises(StoreError, match="already exists; choose a new file"):
        upgrade_copy(DATA / "schema-1.db", target)
    assert target.read_bytes() == b"keep me"
    other = tmp_path / "other.db"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE notes (x)")
    with pytest.raises(StoreError, match="not a ctxviewer trace database"):
        upgrade_copy(other, tmp_path / "never.db")
    assert not (tmp_path / "never.db").exists()


def test_a_database_missing_a_step_of_its_version_is_offered_an_upgrade(db: Path) -> None:
    """A pre-release database at the current version without the facts step opens as old."""
    from ctxviewer.store import OldSchemaError

    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm007_traces_facts'")
    with pytest.raises(OldSchemaError, match=r"lacks schema steps of this ctxviewer \(m007_traces_facts\)"):
        TraceStore.open(db)


def test_add_stores_the_assessment_facts(tmp_path: Path) -> None:
    from ctxviewer.model.trace import Policy

    path = tmp_path / "facts.db"
    with TraceStore.create(path) as store:
        store.add(with_facts([make_trace(trace_id="pm", policy=Policy(id="p", version="v7", available=False))]))
    with TraceStore.open(path) as store:
        (row,) = store.list()
    assert (row.fits, row.state, row.worst_rule, row.worst_severity) == (True, "failure", "policy.unavailable", "failure")
    assert row.verdict == "fits, 6,601 tokens margin; required policy version v7 unavailable: the request should be rejected"


# ---------------------------------------------------------------- read-only files


def test_create_refuses_a_file_the_user_cannot_write(db: Path, monkeypatch) -> None:
    # Tests run as root, where file modes are not enforced: pretend the mode says read-only.
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: not (Path(p) == db and mode & os.W_OK) and real_access(p, mode, **kw))
    before = db.read_bytes()
    with pytest.raises(StoreError) as err:
        TraceStore.create(db)
    assert str(err.value) == f"{db}: the file is read-only; cannot import into it"
    assert db.read_bytes() == before


def _readonly_conn(path: Path) -> sqlite3.Connection:
    """A connection SQLite itself refuses to write (as a 0444 file is for a normal user)."""
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)


def test_sqlite_readonly_refusal_on_migrate_is_reported_as_read_only(db: Path) -> None:
    from sqlite_utils import Database

    from ctxviewer.store.migrate import migrate

    with closing(sqlite3.connect(db)) as conn:  # an older version, so migrate has to write
        conn.execute("PRAGMA user_version = 1")
    with closing(_readonly_conn(db)) as conn, pytest.raises(StoreError) as err:
        migrate(Database(conn), db)
    assert str(err.value) == f"{db}: the file is read-only; cannot import into it"


def test_migrate_writes_nothing_to_an_up_to_date_database(db: Path) -> None:
    """Issue 12: a second import used to fail with "cannot upgrade the schema: database is locked"
    while the first wrote, though nothing needed upgrading; a read-only connection now shows no write."""
    from sqlite_utils import Database

    from ctxviewer.store.migrate import migrate

    with closing(_readonly_conn(db)) as conn:
        assert migrate(Database(conn), db) == 0


def test_sqlite_readonly_refusal_on_add_is_reported_as_read_only(db: Path) -> None:
    store = TraceStore(_readonly_conn(db), db, readonly=False)
    with store, pytest.raises(StoreError) as err:
        store.add(with_facts([make_trace(trace_id="new")]))
    assert str(err.value) == f"{db}: the file is read-only; cannot import into it"


def test_a_database_under_a_file_names_the_file_not_a_missing_folder(tmp_path: Path) -> None:
    """New user (wt-nu): `serve -o afile/x.db` said "folder afile does not exist" of an existing file."""
    from ctxviewer.store import upgrade_copy

    (tmp_path / "afile").write_text("x\n")
    for make in (lambda p: TraceStore.create(p), lambda p: upgrade_copy(SAMPLE_DB, p)):
        with pytest.raises(StoreError) as err:
            make(tmp_path / "afile" / "x.db")
        assert str(err.value) == f"{tmp_path / 'afile' / 'x.db'}: cannot create: {tmp_path / 'afile'} is not a folder"
        with pytest.raises(StoreError) as err:
            make(tmp_path / "nodir" / "x.db")
        assert str(err.value) == f"{tmp_path / 'nodir' / 'x.db'}: cannot create: folder {tmp_path / 'nodir'} does not exist"
