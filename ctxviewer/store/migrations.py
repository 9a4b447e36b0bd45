"""The schema of the trace database as named migration steps, and the schema version they reach.

The schema is built by named migration steps (``sqlite_utils.Migrations``, set ``"ctxviewer"``,
built by :func:`migrations` when a database is written: reading needs only ``sqlite3``);
the applied step names are recorded in ``_sqlite_migrations`` and the schema version reached is
kept in ``PRAGMA user_version``. Each schema version is a group of steps: to change the schema,
append new steps to :data:`STEPS` under ``SCHEMA_VERSION + 1`` and bump :data:`SCHEMA_VERSION`.
Steps are never edited once released; a database at version N gets the steps of N+1.. applied
(by :func:`ctxviewer.store.migrate.migrate`, in one transaction).

The tables themselves are documented in the package docstring (:mod:`ctxviewer.store`).
No Qt here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # sqlite-utils (and the numpy it may pull in) only when a database is written
    from sqlite_utils import Database, Migrations

SCHEMA_VERSION = 15
"""Highest schema version this ctxviewer reads and writes (``PRAGMA user_version``)."""

TABLES = ("traces", "blobs", "items", "details", "token_counts")
"""The tables every ctxviewer database (schema >= 1) holds."""


MIGRATION_SET = "ctxviewer"
"""Name of ctxviewer's migration set in ``_sqlite_migrations``."""
MIGRATIONS_TABLE = "_sqlite_migrations"
"""sqlite-utils' table of applied steps (``Migrations.migrations_table``)."""

STEPS: list[tuple[int, str]] = []
"""``(schema version, step name)`` for every step, in application order."""

_STEP_FNS: list[Callable[[Database], None]] = []
_MIGRATIONS: list[Migrations] = []


def migrations() -> Migrations:
    """The named schema steps as one ``sqlite_utils.Migrations`` set, applied in order by
    :func:`~ctxviewer.store.migrate.migrate` (built on first use, so opening a database read-only never imports sqlite-utils)."""
    if not _MIGRATIONS:
        from ctxviewer.util.held_absent import sqlite_utils_module

        m = sqlite_utils_module().Migrations(MIGRATION_SET)
        for fn in _STEP_FNS:
            m()(fn)
        _MIGRATIONS.append(m)
    return _MIGRATIONS[0]


def _step(version: int) -> Callable[[Callable[[Database], None]], Callable[[Database], None]]:
    def deco(fn: Callable[[Database], None]) -> Callable[[Database], None]:
        STEPS.append((version, fn.__name__))
        _STEP_FNS.append(fn)
        return fn

    return deco


# ------------------------------------------------------------------ schema version 1


@_step(1)
def m001_create_traces(db: Database) -> None:
    """The narrow trace table the list view pages through, with its listing indexes."""
    t = db.table("traces")
    t.create(
        {
            "trace_id": str,
            "created": str,
            "service": str,
            "provider": str,
            "model": str,
            "capacity": int,
            "input_tokens": int,
            "reserved_output_tokens": int,
            "retained_count": int,
            "omitted_count": int,
            "replay_of": str,
            "source_format": str,
        },
        pk="trace_id",
        not_null=["retained_count", "omitted_count"],
    )
    for col in ("created", "model", "input_tokens"):
        t.create_index([col, "trace_id"], index_name=f"idx_traces_{col}")
    t.create_index(["replay_of"], index_name="idx_traces_replay_of")


@_step(1)
def m002_create_blobs(db: Database) -> None:
    """Content-addressed text: every item text and serialized request is stored once."""
    db.table("blobs").create({"hash": str, "text": str, "bytes": int}, pk="hash", not_null=["text"])


@_step(1)
def m003_create_items(db: Database) -> None:
    """One row per context item, in final order, referencing its content in ``blobs``."""
    db.table("items").create(
        {
            "trace_id": str,
            "ordinal": int,
            "item_id": str,
            "kind": str,
            "status": str,
            "position": int,
            "priority": float,
            "trust": str,
            "tokens": int,
            "omission_reason": str,
            "role": str,
            "source": str,
            "content_hash": str,
        },
        pk=("trace_id", "ordinal"),
        not_null=["item_id", "kind", "status", "trust"],
    )
    db.table("items").create_index(["content_hash"], index_name="idx_items_content_hash")


@_step(1)
def m004_create_details(db: Database) -> None:
    """The rest of each trace as JSON, read only when that trace is selected."""
    db.table("details").create({"trace_id": str, "json": str, "request_hash": str}, pk="trace_id", not_null=["json"])


@_step(1)
def m005_create_token_counts(db: Database) -> None:
    """Cache of token counts per (content hash, encoding)."""
    db.table("token_counts").create(
        {"content_hash": str, "encoding": str, "tokens": int},
        pk=("content_hash", "encoding"),
        not_null=["tokens"],
    )


# ------------------------------------------------------------------ schema version 2


@_step(2)
def m006_items_token_provenance(db: Database) -> None:
    """Where each item's token count came from: ``tokens_source`` (``recorded``, ``reported`` or
    ``counted``) and ``tokens_encoding`` (the tiktoken encoding of the count). Rows of schema 1
    keep NULL (provenance not recorded)."""
    items = db.table("items")
    items.add_column("tokens_source", str)
    items.add_column("tokens_encoding", str)


@_step(2)
def m007_traces_facts(db: Database) -> None:
    """Facts known at import on each trace row (:mod:`ctxviewer.store.facts`): whether omissions
    are recorded, the eq. 3.1 margin and fit, the state, the worst finding's rule and severity and
    the verdict in words. The step only adds the columns (NULL: "not recorded"); ``upgrade`` then
    back-fills them by assessing every trace (:mod:`ctxviewer.pipeline.backfill`), so this step's
    result never depends on today's checks."""
    traces = db.table("traces")
    for col, kind in (("omissions_recorded", int), ("margin", int), ("fits", int), ("state", str),
                      ("worst_rule", str), ("worst_severity", str), ("verdict", str)):
        traces.add_column(col, kind)
    traces.create_index(["state", "trace_id"], index_name="idx_traces_state")


# ------------------------------------------------------------------ schema version 3


FILTER_INDEXED: tuple[str, ...] = ("capacity", "omitted_count", "provider", "service", "session_id", "worst_rule")
"""``traces`` columns given a one-column index (entries: value and rowid) by ``m008_filter_columns``."""

TRACE_FINDINGS_SQL = (
    "CREATE TABLE IF NOT EXISTS trace_findings (trace_id TEXT NOT NULL, rule TEXT NOT NULL, "
    "severity TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (trace_id, rule)) WITHOUT ROWID"
)
"""DDL of ``trace_findings`` (schema 3)."""


@_step(3)
def m008_filter_columns(db: Database) -> None:
    """What display filters (:mod:`ctxviewer.store.filters`) read: ``traces.session_id`` (the
    conversation, back-filled from ``details``) and a narrow one-column index per filtered
    column (:data:`FILTER_INDEXED`), then ``ANALYZE`` so the planner knows which index narrows a filter most."""
    traces = db.table("traces")
    traces.add_column("session_id", str)
    db.execute("UPDATE traces SET session_id = (SELECT json_extract(d.json, '$.session_id') FROM details d "
               "WHERE d.trace_id = traces.trace_id)")
    for col in FILTER_INDEXED:
        traces.create_index([col], index_name=f"idx_traces_{col}", if_not_exists=True)
    db.execute("ANALYZE")


@_step(3)
def m009_trace_findings(db: Database) -> None:
    """``trace_findings``: each finding rule of each trace (the ``finding`` filter field), with an
    index by rule; filled by ``upgrade``'s back-fill (:mod:`ctxviewer.pipeline.backfill`)."""
    db.execute(TRACE_FINDINGS_SQL)
    db.execute("CREATE INDEX IF NOT EXISTS idx_trace_findings_rule ON trace_findings (rule, trace_id)")


@_step(3)
def m010_content_fts(db: Database) -> None:
    """The full-text index of item content (:mod:`ctxviewer.store.fts`), built from the stored
    item texts: schema 3's one-column index (:data:`~ctxviewer.store.fts.CREATE_SQL_V3`, replaced
    by the schema-15 step)."""
    from ctxviewer.store import fts

    db.execute(fts.CREATE_SQL_V3)
    db.execute(fts.FILL_SQL_V3)


# ------------------------------------------------------------------ schema version 4


@_step(4)
def m012_sort_indexes(db: Database) -> None:
    """An index on ``(column, trace_id)`` for each sortable ``traces`` column that had none
    (:data:`SORT_INDEXED`), named ``idx_traces_<column>`` (replacing schema 3's one-column index of
    that name, whose entries the new one holds too): the trace list's first page in any order is an
    index walk, not a sort of every row; then ``ANALYZE traces`` for the planner."""
    for col in SORT_INDEXED:
        db.execute(f"DROP INDEX IF EXISTS idx_traces_{col}")
        db.execute(f"CREATE INDEX idx_traces_{col} ON traces ({col}, trace_id)")
    db.execute("ANALYZE traces")


SORT_INDEXED: tuple[str, ...] = (
    "provider", "service", "capacity", "reserved_output_tokens", "retained_count", "omitted_count",
)
"""``traces`` columns given an index on ``(column, trace_id)`` by ``m012_sort_indexes`` (the
list's sort order is the column, then ``trace_id``)."""


# ------------------------------------------------------------------ schema version 5


@_step(5)
def m013_span_columns(db: Database) -> None:
    """The span's own facts on each ``traces`` row (:mod:`ctxviewer.model.span_facts`): ``span_status``
    (``ok`` / ``error`` / ``unset`` / ``unfinished``), ``status_message``, ``agent``
    (``gen_ai.agent.name``) and ``operation`` (``gen_ai.operation.name``), the trace list's Span
    status and Agent / operation columns and the ``status``, ``agent`` and ``operation`` display
    filters; back-filled from the ``attributes`` of each trace's ``details`` JSON, then a narrow
    one-column index on each filtered column (:data:`SPAN_INDEXED`), analysed."""
    import json

    from ctxviewer.model.span_facts import SPAN_COLUMNS, row_values

    traces = db.table("traces")
    for col in SPAN_COLUMNS:
        traces.add_column(col, str)
    sql = f"UPDATE traces SET {', '.join(f'{c} = ?' for c in SPAN_COLUMNS)} WHERE trace_id = ?"
    cur = db.execute("SELECT trace_id, json_extract(json, '$.attributes') FROM details "  # CASE: in this order
                     "WHERE CASE WHEN json_valid(json) THEN json_type(json, '$.attributes') END = 'object'")
    while True:
        chunk = cur.fetchmany(5000)
        if not chunk:
            break
        rows = []
        for trace_id, attrs in chunk:
            values = row_values(json.loads(attrs))
            if any(v is not None for v in values):
                rows.append((*values, trace_id))
        db.conn.executemany(sql, rows)
    for col in SPAN_INDEXED:
        traces.create_index([col], index_name=f"idx_traces_{col}", if_not_exists=True)
        db.execute(f"ANALYZE idx_traces_{col}")


SPAN_INDEXED: tuple[str, ...] = ("span_status", "agent", "operation")
"""``traces`` columns given a one-column index by ``m013_span_columns`` (schema 5)."""


# ------------------------------------------------------------------ schema version 6


HASH_COLUMNS: dict[str, tuple[str, ...]] = {
    "blobs": ("hash",),
    "items": ("content_hash",),
    "details": ("request_hash",),
    "token_counts": ("content_hash",),
}
"""The content-address columns, per table: since schema 6 each holds a 32-byte sha256 digest
(BLOB), not its 64-character hex (``m014_compact_hashes``)."""

UNHEX = "ctxviewer_unhex"
"""Name under which ``m014_compact_hashes`` registers :func:`unhex` (SQLite 3.40 has no ``unhex()``)."""


def unhex(value: str | bytes | None) -> str | bytes | None:
    """The 32 bytes a 64-character hex sha256 stands for; any other value unchanged (NULL, a
    digest already, or text that is not a sha256 and so addresses nothing). The SQL function
    :data:`UNHEX` of ``m014_compact_hashes``."""
    if isinstance(value, str) and len(value) == 64:
        try:
            return bytes.fromhex(value)
        except ValueError:
            return value
    return value


@_step(6)
def m014_compact_hashes(db: Database) -> None:
    """Content addresses stored as the 32-byte sha256 digest instead of 64 hex characters, in every
    :data:`HASH_COLUMNS` column (on 1M generated traces, 11.8M ``items`` rows and their index: about
    0.75 GB). A database with rows is converted in place, SQL only (no re-assessment): each hex
    value becomes its digest (:func:`unhex`; the declared type stays TEXT, whose affinity keeps a
    BLOB value unchanged), so every rowid stays -- ``content_fts`` is keyed by ``blobs.rowid`` --
    and ``idx_items_content_hash`` is dropped before and rebuilt after (then analysed). A new,
    empty database gets its tables rebuilt with BLOB declared types instead."""
    conn = db.conn
    if not any(conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() for table in HASH_COLUMNS):
        for table, cols in HASH_COLUMNS.items():
            db.table(table).transform(types=dict.fromkeys(cols, bytes))
        return
    conn.create_function(UNHEX, 1, unhex, deterministic=True)
    conn.execute("DROP INDEX IF EXISTS idx_items_content_hash")
    for table, cols in HASH_COLUMNS.items():
        for col in cols:
            conn.execute(f"UPDATE {table} SET {col} = {UNHEX}({col}) WHERE typeof({col}) = 'text'")
    conn.execute("CREATE INDEX idx_items_content_hash ON items (content_hash)")
    conn.execute("ANALYZE idx_items_content_hash")


# ------------------------------------------------------------------ schema version 7


@_step(7)
def m015_facts_context(db: Database) -> None:
    """``traces.facts_context``: the fingerprint of the context the row's facts were computed in
    (:attr:`ctxviewer.assess.context.AssessContext.fingerprint`: the rule set and the settings of
    ``ctxviewer.toml`` and the marks), so a row computed with other settings or by an older
    ctxviewer is known to be stale. NULL for rows written before (unknown: stale); ``upgrade``
    re-assesses them."""
    db.table("traces").add_column("facts_context", str)


# ------------------------------------------------------------------ schema version 8


@_step(8)
def m016_call_columns(db: Database) -> None:
    """What a model call cost and took, on each ``traces`` row (:mod:`ctxviewer.store.call_columns`):
    ``cost`` (US dollars from the recorded usage, priced by genai-prices: :mod:`ctxviewer.tokens.cost`;
    NULL = not known), ``output_tokens`` (reported output tokens) and ``duration_ms`` (the span's
    duration, ``ctxviewer.duration_ms``), the trace list's Cost column, the ``cost`` filter and
    ``ctxviewer stats``; back-filled from each trace's ``details`` JSON (the index on
    ``(cost, trace_id)``, the sort, is made by ``m018_run_spans``)."""
    from ctxviewer.store.call_columns import backfill

    traces = db.table("traces")
    traces.add_column("cost", float)
    traces.add_column("output_tokens", int)
    traces.add_column("duration_ms", float)
    backfill(db.conn)


@_step(8)
def m017_trace_scores(db: Database) -> None:
    """The scores recorded with each call (:mod:`ctxviewer.store.score_rows`, from the trace
    attribute ``ctxviewer.scores``): ``trace_scores`` (one row per score, with its value as a
    number where one is meant) indexed by ``(name, number)``, the display filter's ``score`` and
    ``score.NAME``; and ``traces.scores``, the one-line summary the trace list shows; back-filled
    from each trace's ``details`` JSON."""
    from ctxviewer.store.score_rows import TRACE_SCORES_SQL, backfill

    db.execute(TRACE_SCORES_SQL)
    db.execute("CREATE INDEX IF NOT EXISTS idx_trace_scores_name ON trace_scores (name, number)")
    db.table("traces").add_column("scores", str)
    backfill(db.conn)


RUN_SPANS_SQL = (
    "CREATE TABLE IF NOT EXISTS run_spans (run_id TEXT NOT NULL, span_id TEXT NOT NULL, parent_id TEXT, "
    "kind TEXT NOT NULL, name TEXT, start TEXT, end TEXT, duration_ms REAL, status TEXT, status_message TEXT, "
    "trace_id TEXT, attributes TEXT, PRIMARY KEY (run_id, span_id)) WITHOUT ROWID"
)
"""DDL of ``run_spans`` (schema 8, :mod:`ctxviewer.store.runs`): times as ISO-8601 UTC text with microseconds, ``duration_ms`` end minus start, ``attributes`` a JSON object."""


@_step(8)
def m018_run_spans(db: Database) -> None:
    """``run_spans``: every step of every imported run (:mod:`ctxviewer.store.runs`; agents, model
    calls, tools, retrievers, an Inspect sample's solvers and scorers) with its parent, kind, name,
    times, status and attributes, written at import beside the traces, so the run tree opens
    lazily: an index on ``(run_id, parent_id)`` gives one step's children, one on ``trace_id``
    the run of a model call; and the index on ``traces (cost, trace_id)`` (the Cost sort). Older databases hold no runs (their files were read without them:
    import them again to see the tree)."""
    db.execute("CREATE INDEX IF NOT EXISTS idx_traces_cost ON traces (cost, trace_id)")  # m016's column, sorted
    db.execute("ANALYZE idx_traces_cost")
    db.execute(RUN_SPANS_SQL)
    db.execute("CREATE INDEX IF NOT EXISTS idx_run_spans_parent ON run_spans (run_id, parent_id, start)")
    db.execute("CREATE INDEX IF NOT EXISTS idx_run_spans_trace ON run_spans (trace_id)")


# ------------------------------------------------------------------ schema version 9


@_step(9)
def m019_compact_storage(db: Database) -> None:
    """Compact storage (:mod:`ctxviewer.store.compact`, which says what is kept and why): slim trace
    records, ``details`` and ``token_counts`` WITHOUT ROWID; then both analysed."""
    from ctxviewer.store.compact import compact

    compact(db.conn)
    db.execute("ANALYZE details")
    db.execute("ANALYZE token_counts")


# ------------------------------------------------------------------ schema version 10


AGGREGATE_COLUMNS = "input_tokens, output_tokens, cost, duration_ms, state, span_status, capacity"
"""Every column :mod:`ctxviewer.store.aggregates` sums, in the two covering indexes below."""
AGGREGATE_INDEX = f"CREATE INDEX IF NOT EXISTS idx_traces_aggregate ON traces (model, {AGGREGATE_COLUMNS})"
"""DDL of ``idx_traces_aggregate`` (schema 10): the aggregated columns led by the model -- the total
and the sums by model read this narrow index instead of the table, by model in its order (no sort)."""
AGGREGATE_DAY_INDEX = ("CREATE INDEX IF NOT EXISTS idx_traces_aggregate_day ON traces "
                       f"(substr(created, 1, 10), {AGGREGATE_COLUMNS}, created)")
"""DDL of ``idx_traces_aggregate_day`` (schema 10): the same columns led by the UTC day (``created``
last, so SQLite reads the index alone): the sums by day in its order."""


@_step(10)
def m020_aggregate_index(db: Database) -> None:
    """The covering indexes of the aggregated columns (:data:`AGGREGATE_INDEX`,
    :data:`AGGREGATE_DAY_INDEX`), so ``ctxviewer stats`` over 1M traces -- the total, by model, by
    day -- stays within the list's filter budget; then analysed."""
    db.execute(AGGREGATE_INDEX)
    db.execute(AGGREGATE_DAY_INDEX)
    db.execute("ANALYZE idx_traces_aggregate")
    db.execute("ANALYZE idx_traces_aggregate_day")


# ------------------------------------------------------------------ schema version 11


AGGREGATE_SESSION_INDEX = ("CREATE INDEX IF NOT EXISTS idx_traces_aggregate_session ON traces "
                           f"(session_id, {AGGREGATE_COLUMNS}, created, model)")
"""DDL of ``idx_traces_aggregate_session`` (schema 11): the aggregated columns led by the session id,
with ``created`` and ``model`` (what the sessions list sums, :mod:`ctxviewer.store.sessions`): the
sums by session and each session's summary read this index in its order, not the table and a sort."""


@_step(11)
def m021_aggregate_session_index(db: Database) -> None:
    """The covering index of the sums by session (:data:`AGGREGATE_SESSION_INDEX`), so
    ``ctxviewer stats --by session`` and the sessions list over 1M traces stay within the list's
    filter budget; then analysed."""
    db.execute(AGGREGATE_SESSION_INDEX)
    db.execute("ANALYZE idx_traces_aggregate_session")


# ------------------------------------------------------------------ schema version 12


AGGREGATE_INDEX_V12 = f"CREATE INDEX idx_traces_aggregate ON traces (model, {AGGREGATE_COLUMNS}, created)"
"""DDL of ``idx_traces_aggregate`` since schema 12: schema 10's with ``created`` last, so a time filter
(``created >= "2026-11-01"``) summed by model reads the index alone (1M traces: 2.9 s -> 0.2 s)."""
AGGREGATE_DAY_INDEX_V12 = ("CREATE INDEX idx_traces_aggregate_day ON traces "
                           f"(substr(created, 1, 10), {AGGREGATE_COLUMNS}, created, model)")
"""DDL of ``idx_traces_aggregate_day`` since schema 12: schema 10's with ``model`` last, so a model
filter (``model ~ "gpt-4o"``) summed by day reads the index alone (1M traces: 0.9 s -> 0.24 s)."""


FACTS_CONTEXT_INDEX = "CREATE INDEX IF NOT EXISTS idx_traces_facts_context ON traces (facts_context)"
"""DDL of ``idx_traces_facts_context`` (schema 12): the calls whose stored facts were computed in
another context are counted by index ranges (:meth:`~ctxviewer.store.aggregates.TraceAggregates.stale_count`:
``stats`` and ``sessions`` say their states are stale), not a scan of the table."""


@_step(12)
def m022_session_rollup(db: Database) -> None:
    """The per-session rollup (:mod:`ctxviewer.store.session_rollup`): ``session_rollup`` (filled
    from ``traces`` by the schema-14 step, whose columns its sums read), ``session_rollup_stale`` and the triggers that mark a written session, so
    ``ctxviewer stats --by session`` over 1M traces reads one row per session; and the two aggregate
    indexes widened (:data:`AGGREGATE_INDEX_V12`, :data:`AGGREGATE_DAY_INDEX_V12`) so the sums of a
    time or model filter are covered too; :data:`FACTS_CONTEXT_INDEX`; then analysed."""
    from ctxviewer.store import session_rollup

    for name, ddl in (("idx_traces_aggregate", AGGREGATE_INDEX_V12), ("idx_traces_aggregate_day", AGGREGATE_DAY_INDEX_V12)):
        db.execute(f"DROP INDEX IF EXISTS {name}")
        db.execute(ddl)
        db.execute(f"ANALYZE {name}")
    db.execute(FACTS_CONTEXT_INDEX)
    db.execute("ANALYZE idx_traces_facts_context")
    session_rollup.create(db.conn)


# ------------------------------------------------------------------ schema version 13


RUN_SPANS_TRACE_INDEX = "CREATE INDEX idx_run_spans_trace ON run_spans (trace_id) WHERE trace_id IS NOT NULL"
"""DDL of ``idx_run_spans_trace`` since schema 13: only the model calls' steps (the others have no
trace, and no query looks a step up by a NULL trace: ``run_of`` and ``step_path`` ask ``trace_id = ?``,
which implies the index's condition)."""


@_step(13)
def m023_compact_attributes(db: Database) -> None:
    """Compact storage of the runs (:mod:`ctxviewer.store.span_values`): ``run_spans.attribute_refs``
    added and every step's long attribute values moved to the new table ``span_values`` (stored
    once however many steps repeat them), the rest of its attributes written as compact JSON; ``idx_run_spans_trace`` rebuilt
    over the model calls' steps only (:data:`RUN_SPANS_TRACE_INDEX`), then analysed; and each trace
    record's attributes without the span facts its ``traces`` row holds
    (:func:`ctxviewer.store.compact.slim_record_attributes`)."""
    from ctxviewer.store.compact import slim_record_attributes
    from ctxviewer.store.span_values import SPAN_VALUES_SQL, compact_runs

    db.execute(SPAN_VALUES_SQL)
    if "attribute_refs" not in db.table("run_spans").columns_dict:  # a copy rebuilt by hand may have it
        db.execute("ALTER TABLE run_spans ADD COLUMN attribute_refs BLOB")
    compact_runs(db.conn)
    db.execute("DROP INDEX IF EXISTS idx_run_spans_trace")
    db.execute(RUN_SPANS_TRACE_INDEX)
    db.execute("ANALYZE run_spans")
    slim_record_attributes(db.conn)


# ------------------------------------------------------------------ schema version 14


WINDOW_COLUMNS = "window_used, window_capacity"
"""The input and the C eq. 3.1 was decided by (schema 14, :data:`ctxviewer.store.facts.FACT_COLUMNS`),
which ``stats`` bands: appended to the aggregated columns of the covering indexes below."""
AGGREGATE_INDEX_V14 = f"CREATE INDEX idx_traces_aggregate ON traces (model, {AGGREGATE_COLUMNS}, {WINDOW_COLUMNS}, created)"
"""DDL of ``idx_traces_aggregate`` since schema 14: schema 12's with :data:`WINDOW_COLUMNS`."""
AGGREGATE_DAY_INDEX_V14 = ("CREATE INDEX idx_traces_aggregate_day ON traces "
                           f"(substr(created, 1, 10), {AGGREGATE_COLUMNS}, {WINDOW_COLUMNS}, created, model)")
"""DDL of ``idx_traces_aggregate_day`` since schema 14: schema 12's with :data:`WINDOW_COLUMNS`."""
AGGREGATE_SESSION_INDEX_V14 = ("CREATE INDEX idx_traces_aggregate_session ON traces "
                               f"(session_id, {AGGREGATE_COLUMNS}, {WINDOW_COLUMNS}, created, model)")
"""DDL of ``idx_traces_aggregate_session`` since schema 14: schema 11's with :data:`WINDOW_COLUMNS`."""


@_step(14)
def m024_window_use(db: Database) -> None:
    """The columns ``window_used`` and ``window_capacity`` added to ``traces`` (NULL: the row's
    facts are computed again by ``upgrade``'s back-fill, as for any row assessed by an earlier rule
    set), the three covering aggregate indexes rebuilt with them (:data:`AGGREGATE_INDEX_V14`,
    :data:`AGGREGATE_DAY_INDEX_V14`, :data:`AGGREGATE_SESSION_INDEX_V14`), the rollup's update
    trigger re-made to mark a session whose window columns change, and the rollup summed again
    (:func:`ctxviewer.store.session_rollup.rebuild`); then analysed."""
    from ctxviewer.store import session_rollup

    columns = db.table("traces").columns_dict
    for name in ("window_used", "window_capacity"):
        if name not in columns:  # a copy rebuilt by hand may have them
            db.execute(f"ALTER TABLE traces ADD COLUMN {name} INTEGER")
    for name, ddl in (("idx_traces_aggregate", AGGREGATE_INDEX_V14), ("idx_traces_aggregate_day", AGGREGATE_DAY_INDEX_V14),
                      ("idx_traces_aggregate_session", AGGREGATE_SESSION_INDEX_V14)):
        db.execute(f"DROP INDEX IF EXISTS {name}")
        db.execute(ddl)
        db.execute(f"ANALYZE {name}")
    session_rollup.remake_update_trigger(db.conn)
    session_rollup.rebuild(db.conn)


# ------------------------------------------------------------------ schema version 15


@_step(15)
def m025_joined_view_fts(db: Database) -> None:
    """The full-text index re-made with the joined view of each text (:data:`ctxviewer.store.fts.CREATE_SQL`:
    the stored text and the text with its invisible format characters taken out, so a phrase
    split by zero-width characters is found) and filled again from the stored item texts
    (:func:`ctxviewer.store.fts.rebuild`); the stored texts are not touched."""
    from ctxviewer.store import fts

    db.execute("DROP TABLE IF EXISTS content_fts")
    db.execute(fts.CREATE_SQL)
    fts.rebuild(db.conn)
