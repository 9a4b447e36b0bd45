"""The ctxviewer trace database: SQLite, built with sqlite-utils, sized for a million traces.

Open a database read-only with ``TraceStore.open(path)`` (the viewer: never modifies the file; an
older schema raises :class:`OldSchemaError` and is never upgraded in place) or writable with
``TraceStore.create(path)`` (import: creates or migrates it). ``upgrade_copy(old, new)`` writes
an upgraded copy of an older database. List with a
:class:`TraceQuery` (its text is a display filter, :mod:`ctxviewer.store.filters`), or by row key
(``first_rows``, ``row_keys``, ``rows_by_key``); search item content with ``store.search(query)``;
load one full trace with ``store.load(trace_id)``. These read methods form :class:`TraceSource`
(:mod:`ctxviewer.store.source`), the one interface the window reads through and another backend
implements (``docs/store-interface.md``).

What lives where
----------------
* :mod:`~ctxviewer.store.trace_store` -- :class:`TraceStore`: opening (``open``, ``create``),
  ``reader``, ``close``, ``damage``; its other methods are its parts, one module each, over
  :mod:`~ctxviewer.store.connection` (the SQLite connection and state they share):
  :mod:`~ctxviewer.store.listing` (``filter_where``, ``count``, ``list``, ``stream``: rows after
  a keyset cursor of :mod:`~ctxviewer.store.cursor`, read as taken),
  :mod:`~ctxviewer.store.aggregates` (``aggregate``: sums and counts by model, session or day;
  one group's sums in :mod:`~ctxviewer.store.group_sums`, each session's kept in
  :mod:`~ctxviewer.store.session_rollup`),
  :mod:`~ctxviewer.store.runs` (``run_of``, ``children``, ``run_steps``, ``write_runs``: the run tree),
  :mod:`~ctxviewer.store.sessions` (``sessions``, ``session_count``, ``session_calls``,
  ``call_orders``, ``otel_trace_calls``: conversations),
  :mod:`~ctxviewer.store.keyed_listing` (``first_rows``, ``row_keys``, ``key_chunks``,
  ``rows_by_key``, ``key_of``, ``count_where``, ``estimate_count``: the window's list),
  :mod:`~ctxviewer.store.loading` (``load``, ``items``, ``blob``, ``session_trace_ids``),
  :mod:`~ctxviewer.store.search` (``search``, ``search_hits``), :mod:`~ctxviewer.store.writes`
  (``add``, ``write_facts``, ``rebuild_search``, content stored once in ``blobs``) and
  :mod:`~ctxviewer.store.token_cache` (``token_count``, ``token_counts``);
* :mod:`~ctxviewer.store.source` -- :class:`TraceSource`, the read interface;
  :mod:`~ctxviewer.store.query` -- :class:`TraceQuery`, :class:`TraceRow` and the list SQL;
  :mod:`~ctxviewer.store.filters` -- the display-filter language (a package: its grammar, field
  table and SQL compiler); :mod:`~ctxviewer.store.fts` -- the full-text index and its query
  language; :mod:`~ctxviewer.store.rows` -- content addresses and
  the ``items`` row; :mod:`~ctxviewer.store.facts` -- the shape of the stored assessment facts;
  :mod:`~ctxviewer.store.call_columns` -- a call's cost, output tokens and duration on its row;
  :mod:`~ctxviewer.store.trace_row` -- a trace's ``traces`` row laid out (the one place: ``add`` and
  sources without rows of their own);
  :mod:`~ctxviewer.store.score_rows` -- a call's recorded scores (``trace_scores``, ``traces.scores``);
  :mod:`~ctxviewer.store.record` -- the trace record (``details.json``) without what a column or
  item holds (schema 9); :mod:`~ctxviewer.store.span_values` -- a run step's long attribute values
  stored once (schema 13);
* the schema: :mod:`~ctxviewer.store.migrations` (:data:`SCHEMA_VERSION` and the named steps; a
  schema change is new steps there), :mod:`~ctxviewer.store.migrate` (the runner, one
  transaction), :mod:`~ctxviewer.store.compact` (schema 9's compaction of an existing database),
  :mod:`~ctxviewer.store.upgrade` (``upgrade_copy``: an older database reaches the
  current schema only as a copy);
* before a file is trusted: :mod:`~ctxviewer.store.file_check` (header, page size, truncation),
  :mod:`~ctxviewer.store.schema_check` (a ctxviewer database of this schema?),
  :mod:`~ctxviewer.store.damage` (broken pages, a missing content blob);
* :mod:`~ctxviewer.store.errors` -- :class:`StoreError`, :class:`NotADatabaseError`,
  :class:`OldSchemaError`, :class:`WrongDatabaseError`; :data:`BAD_TARGETS`, those of them a database to be
  written into can be (bad input, left untouched).

May import: :mod:`ctxviewer.model`, :mod:`ctxviewer.tokens`, :mod:`ctxviewer.util` only. Never the
importers or the assessment (import-linter contracts in ``pyproject.toml``): a stored trace is
data, and the facts stored with it are computed above, in :mod:`ctxviewer.pipeline`, and handed to
``add``, so a released schema step never changes with today's checks.

A new storage backend (another database, a server) is a new implementation of the
:class:`TraceSource` interface (:mod:`ctxviewer.store.source`, ``docs/store-interface.md``), in a
module of its own here, not a change to :class:`TraceStore`; a new table or column of the SQLite
database is a new step in :mod:`~ctxviewer.store.migrations`, documented below.

Layout and invariants
---------------------
The list view reads only the narrow ``traces`` table; payloads live elsewhere and are read only
for the selected trace. Text content is stored once, addressed by the sha256 of its UTF-8
bytes (the 32-byte digest inside the database since schema 6; its 64-character hex wherever a user
sees it: ``request.sha256``, :meth:`TraceStore.blob`, :func:`content_hash`), so two traces (or a request and its replay) sharing an item text share one ``blobs`` row,
and a trace references an unchanged stored copy. The schema version is ``PRAGMA user_version``
(:data:`SCHEMA_VERSION`); ``_sqlite_migrations`` (sqlite-utils) lists the named steps applied.
Every "not recorded" value is ``NULL``.

Tables and columns
------------------
``traces`` -- one narrow row per trace; what the trace list shows (:class:`TraceRow`).
    ``trace_id`` TEXT PK -- stable trace id.
    ``created`` TEXT -- send time, ISO-8601 UTC with milliseconds and ``Z``
    (``2026-11-02T09:14:05.120Z``), so text order is time order.
    ``service`` TEXT -- application / service name.
    ``provider`` TEXT -- endpoint provider (``openai``, ...).
    ``model`` TEXT -- requested model.
    ``capacity`` INTEGER -- context capacity C, tokens.
    ``input_tokens`` INTEGER -- counted input tokens, ``budget.check_capacity(trace).input_tokens``
    at add time (the recorded count, else the sum of retained item tokens).
    ``reserved_output_tokens`` INTEGER -- B_out, tokens.
    ``retained_count`` INTEGER NOT NULL -- items sent.
    ``omitted_count`` INTEGER NOT NULL -- items left out.
    ``replay_of`` TEXT -- trace_id this trace replays.
    ``source_format`` TEXT -- importer that produced it (``native``, ``otel``, ...).
    Facts of the trace's assessment, stored at add time (schema 2, :mod:`ctxviewer.store.facts`;
    back-filled when an older database is upgraded):
    ``omissions_recorded`` INTEGER -- 1, or 0 when the format cannot record omitted items.
    ``margin`` INTEGER -- eq. 3.1 margin, tokens. ``fits`` INTEGER -- 1 / 0, NULL if undecided.
    ``state`` TEXT -- ``ok``, ``warning`` or ``failure``.
    ``worst_rule`` TEXT, ``worst_severity`` TEXT -- the worst finding (NULL when none).
    ``verdict`` TEXT -- the verdict in words.
    ``facts_context`` TEXT -- the fingerprint of the context the facts were computed in
    (:attr:`ctxviewer.assess.context.AssessContext.fingerprint`); NULL before schema 7 (stale).
    ``session_id`` TEXT -- conversation id (``gen_ai.conversation.id``), schema 3 (back-filled
    from ``details``); the display filter's ``conversation``.
    Schema 5 (:mod:`ctxviewer.model.span_facts`; back-filled from the ``attributes`` in ``details``):
    ``span_status`` TEXT -- ``ok``, ``error``, ``unset`` or ``unfinished`` (never ended); NULL when
    not recorded. ``status_message`` TEXT -- the span's status message (at most 500 code points).
    ``agent`` TEXT -- ``gen_ai.agent.name`` (or inherited from an ancestor span).
    ``operation`` TEXT -- ``gen_ai.operation.name``. The display filter's ``status``, ``agent``,
    ``operation``.
    Indexes: ``idx_traces_created`` (created, trace_id), ``idx_traces_model`` (model, trace_id),
    ``idx_traces_input_tokens`` (input_tokens, trace_id), ``idx_traces_replay_of`` (replay_of),
    ``idx_traces_state`` (state, trace_id); schema 3, for display filters
    (:data:`~ctxviewer.store.migrations.FILTER_INDEXED`): ``idx_traces_capacity``,
    ``idx_traces_omitted_count``, ``idx_traces_provider``, ``idx_traces_service``,
    ``idx_traces_session_id``, ``idx_traces_worst_rule`` (one column each, plus the rowid);
    schema 4 (:data:`~ctxviewer.store.migrations.SORT_INDEXED`) makes ``idx_traces_<column>`` on
    ``(column, trace_id)`` for provider, service, capacity, reserved_output_tokens,
    retained_count and omitted_count, so every sortable order is an index walk.
    schema 5: ``idx_traces_span_status``, ``idx_traces_agent``, ``idx_traces_operation``.
    Schema 8 (:mod:`~ctxviewer.store.call_columns`; back-filled from ``details``): ``cost`` REAL --
    US dollars from the recorded usage priced by genai-prices (NULL = not known, never 0);
    ``output_tokens`` INTEGER -- reported output tokens; ``duration_ms`` REAL -- the span's
    duration, ms (NULL when not recorded or negative). Index ``idx_traces_cost`` (cost, trace_id).
    Schema 10: ``idx_traces_aggregate`` (model, input_tokens, output_tokens, cost, duration_ms, state,
    span_status, capacity) and ``idx_traces_aggregate_day`` (substr(created, 1, 10), the same seven,
    created) -- covering :mod:`~ctxviewer.store.aggregates`' sums (54 and 71 MB per 1M traces).
    Schema 14: ``window_used`` INTEGER and ``window_capacity`` INTEGER -- the tokens eq. 3.1 set
    against C (input + B_out, as the header decided: C - margin) and that C (recorded or assumed),
    tokens (:func:`ctxviewer.pipeline.stored_facts.window_use`; NULL when it was not decided), which
    the ``stats`` bands read; the three aggregate indexes carry them.

``blobs`` -- content-addressed text (item contents, serialized requests).
    ``hash`` BLOB PK -- sha256 digest of the UTF-8 text, 32 bytes (:func:`content_digest`; hex
    TEXT before schema 6: a database upgraded from one keeps the declared type TEXT, holding
    BLOB values -- ``migrations.HASH_COLUMNS``).
    ``text`` TEXT NOT NULL -- the content, unchanged.
    ``bytes`` INTEGER -- UTF-8 length of ``text`` in bytes.
    Rows are never rewritten; a replaced trace's unreferenced blobs stay (they are an
    unchanged copy someone may reference by hash).

``items`` -- every context item of every trace, in final order (retained and omitted).
    ``trace_id`` TEXT, ``ordinal`` INTEGER -- PK: the trace and the 0-based index in final order.
    ``item_id`` TEXT NOT NULL -- the item's stable id (``ContextItem.id``).
    ``kind`` TEXT NOT NULL -- ``policy``, ``user``, ``history``, ``summary``, ``memory``,
    ``evidence`` or ``tool``.
    ``status`` TEXT NOT NULL -- ``retained`` or ``omitted``.
    ``position`` INTEGER -- 1-based position among retained items; NULL when omitted.
    ``priority`` REAL -- trimming priority, higher is kept longer.
    ``trust`` TEXT NOT NULL -- ``trusted`` or ``untrusted``.
    ``tokens`` INTEGER -- token count of the content under the trace's encoding.
    ``omission_reason`` TEXT -- ``budget``, ``rank``, ``permission``, ``duplicate``, ...
    ``role`` TEXT -- chat role it was sent under.
    ``source`` TEXT -- JSON object ``{"store", "document_id", "url", "turn"}`` (keys present
    only when recorded), or NULL.
    ``tokens_source`` TEXT -- where ``tokens`` came from: ``recorded`` (by the application),
    ``reported`` (by the provider) or ``counted`` (by ctxviewer at import); NULL if not said
    (schema >= 2).
    ``tokens_encoding`` TEXT -- tiktoken encoding of ``tokens`` (``cl100k_base``); NULL if not
    recorded (schema >= 2).
    ``content_hash`` BLOB -- ``blobs.hash`` of the content (32 bytes); NULL when the content was
    not kept.
    Index: ``idx_items_content_hash`` (content_hash).

``details`` -- the rest of each trace, read only when that trace is selected; WITHOUT ROWID
    since schema 9.
    ``trace_id`` TEXT PK.
    ``json`` TEXT NOT NULL -- ``serialize.trace_to_dict(trace)`` without ``items`` and without
    ``request.content`` (endpoint, policy, user request, budget, usage, response, tool calls
    with checks, validations, attributes, ...); since schema 9 without what the ``traces`` row or
    an item holds (:mod:`~ctxviewer.store.record`: trace id, time, service, session, format,
    B_out, endpoint provider / model / capacity; ``user_request`` as ``user_request_item``, the
    ordinal of the item with that text); since schema 13 its ``attributes`` without the operation,
    agent and duration the row holds (``attributes_in_row``: their places among the attributes).
    ``request_hash`` BLOB -- ``blobs.hash`` of the serialized request (32 bytes) when its content
    was stored (its hex is ``request.sha256`` in ``json``); NULL when only a reference was kept.

``trace_findings`` -- each finding rule of each trace (schema 3; the display filter's ``finding``),
    WITHOUT ROWID.
    ``trace_id`` TEXT, ``rule`` TEXT -- PK: the trace and a rule id (``injection.hidden``).
    ``severity`` TEXT -- the worst severity among its findings of that rule (``warning``).
    ``count`` INTEGER -- how many findings of that rule the trace has.
    Index: ``idx_trace_findings_rule`` (rule, trace_id). Written with the trace (add, write_facts).

``trace_scores`` -- each recorded score of each trace (schema 8, :mod:`~ctxviewer.store.score_rows`;
    the display filter's ``score``), WITHOUT ROWID.
    ``trace_id`` TEXT, ``ordinal`` INTEGER -- PK: the trace and the score's place in ``ctxviewer.scores``.
    ``name`` TEXT NOT NULL -- the score's name (``match``). ``value`` (no declared type) -- as recorded:
    text or a number (a list or dict as JSON). ``number`` REAL -- its numeric meaning (Inspect's
    ``C`` 1, ``I`` 0; NULL when none). ``source`` TEXT -- who scored (``inspect_ai scorer``).
    Index: ``idx_trace_scores_name`` (name, number). ``traces.scores`` TEXT holds the one-line summary.

``run_spans`` -- every step of every imported run (schema 8, :mod:`~ctxviewer.store.runs`), WITHOUT ROWID.
    ``run_id`` TEXT, ``span_id`` TEXT -- PK: the run (OTel / Langfuse trace id, an Inspect sample) and the step.
    ``parent_id`` TEXT -- the enclosing step (NULL: a root). ``kind`` TEXT NOT NULL -- ``agent``, ``llm``,
    ``tool``, ``retriever``, ``solver``, ... ``name`` TEXT. ``start``, ``end`` TEXT -- ISO-8601 UTC with
    microseconds. ``duration_ms`` REAL -- end minus start. ``status``, ``status_message`` TEXT.
    ``trace_id`` TEXT -- the model call's trace (``traces.trace_id``), NULL for other steps.
    ``attributes`` TEXT -- the step's other recorded values, a JSON object; since schema 13 without
    the long ones (:mod:`~ctxviewer.store.span_values`).
    ``attribute_refs`` BLOB -- schema 13: per attribute moved to ``span_values``, its 0-based place
    among the step's attributes (1 byte) and the ``span_values.hash`` of its ``[key, value]`` JSON
    (32 bytes); NULL when none was moved.
    Indexes: ``idx_run_spans_parent`` (run_id, parent_id, start), ``idx_run_spans_trace`` (trace_id;
    since schema 13 only the steps with a trace: ``WHERE trace_id IS NOT NULL``).

``span_values`` -- a run step's long attribute values, each stored once (schema 13,
    :mod:`~ctxviewer.store.span_values`), WITHOUT ROWID.
    ``hash`` BLOB PK -- sha256 digest of ``text`` (32 bytes). ``text`` TEXT NOT NULL -- one
    attribute as the JSON array ``[key, value]`` (at least 100 characters). Rows are never rewritten.

``content_fts`` -- FTS5 full-text index of item content (schema 3; contentless, two columns since
    schema 15, :mod:`ctxviewer.store.fts`): rowid = ``blobs.rowid``, one row per distinct item
    text, added when the text is first stored; ``text`` -- the stored text, ``joined`` -- the text
    with its invisible format characters taken out (NULL when it has none); tokenizer
    ``unicode61 remove_diacritics 0``, prefixes 2 and 3.

``session_rollup`` -- each session's sums (schema 12, :mod:`~ctxviewer.store.session_rollup`), WITHOUT ROWID.
    ``k`` PK -- the session id (TEXT), or ``X''`` for the calls that recorded none.
    ``calls`` ... ``window_known`` -- the 19 sums of :data:`~ctxviewer.store.group_sums.SUMS_SQL`
    (counts of calls, tokens, US dollars, ms).
``session_rollup_stale`` -- ``k`` PK: the sessions a write changed since their sums were stored;
    marked by triggers on ``traces`` (``session_rollup_insert``, ``_replace``, ``_delete``,
    ``_update``), re-summed by the writer before it commits; a reader sums them from ``traces``.

``token_counts`` -- cache of token counts (WITHOUT ROWID since schema 9).
    ``content_hash`` BLOB, ``encoding`` TEXT -- PK: sha256 digest of the text (32 bytes) and
    tiktoken encoding.
    ``tokens`` INTEGER NOT NULL -- the count, tokens.

``_sqlite_migrations`` -- sqlite-utils' record of applied schema steps
    (``id``, ``migration_set`` = ``"ctxviewer"``, ``name``, ``applied_at``).

No Qt here.
"""

from typing import TYPE_CHECKING

from ctxviewer.store.errors import BAD_TARGETS, NotADatabaseError, OldSchemaError, StoreError, WrongDatabaseError
from ctxviewer.store.migrations import SCHEMA_VERSION
from ctxviewer.store.query import SORTABLE, TraceQuery, TraceRow
from ctxviewer.store.source import TraceSource
from ctxviewer.store.trace_store import TraceStore

if TYPE_CHECKING:
    from ctxviewer.store.rows import content_digest, content_hash
    from ctxviewer.store.upgrade import UpgradeResult, upgrade_copy

_LAZY = {"UpgradeResult": "ctxviewer.store.upgrade", "upgrade_copy": "ctxviewer.store.upgrade",
         "content_digest": "ctxviewer.store.rows", "content_hash": "ctxviewer.store.rows"}
"""Names imported on first use (``list``, ``show`` and ``search`` never upgrade a database; ``list``
never hashes content, and :mod:`~ctxviewer.store.rows` brings the trace model)."""


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value

__all__ = [
    "BAD_TARGETS",
    "SCHEMA_VERSION",
    "SORTABLE",
    "NotADatabaseError",
    "OldSchemaError",
    "StoreError",
    "TraceQuery",
    "TraceRow",
    "TraceSource",
    "TraceStore",
    "UpgradeResult",
    "WrongDatabaseError",
    "content_digest",
    "content_hash",
    "upgrade_copy",
]
