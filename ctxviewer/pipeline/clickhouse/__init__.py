"""A team's ClickHouse trace store read in place: the OpenTelemetry Collector ClickHouse exporter's
``otel_traces`` table (and Langfuse's tables) behind :class:`~ctxviewer.store.TraceSource`, read-only.

What lives here:

* :mod:`~ctxviewer.pipeline.clickhouse.schemes` -- whether an argument is a store's URL (its
  schemes), without the client or the store;
* :mod:`~ctxviewer.pipeline.clickhouse.target` -- the ``clickhouse://user@host:port/db?table=...``
  (and in-process ``chdb://``) address, the password from an environment variable, the client;
* :mod:`~ctxviewer.pipeline.clickhouse.schema` -- what the table holds, read from
  ``system.columns`` and ``version()`` on open (``Map`` or ``JSON`` attribute flavour), and the
  SQL chosen from it: every query bounded by the time window, lists keyed on
  ``(Timestamp, SpanId)``, never ``OFFSET``;
* :mod:`~ctxviewer.pipeline.clickhouse.filters` -- display filters on the span's own columns,
  compiled to ClickHouse with bound parameters;
* :mod:`~ctxviewer.pipeline.clickhouse.spans` -- a table row as a span, and one chat span made one
  trace by the OTel importer's own mapping
  (:func:`ctxviewer.importers.formats.otel.load_spans`: one code path for a span from a
  file or a table), its token counts filled as an import fills them;
* :mod:`~ctxviewer.pipeline.clickhouse.source` -- :class:`~ctxviewer.pipeline.clickhouse.source.ClickHouseSource`, the backend.
* :mod:`~ctxviewer.pipeline.clickhouse.search` -- full-text search read in place: the SQLite
  store's query language and hits, spans narrowed on the server a time slice at a time.
* :mod:`~ctxviewer.pipeline.clickhouse.runs` -- the run tree: a chat span's whole OTel trace as
  the steps of its run, made by the OTel importer's own path and read back as a database stores them;
* :mod:`~ctxviewer.pipeline.clickhouse.pull` -- the window pulled into a local trace database
  (``ctxviewer import URL -o local.db``).
* :mod:`~ctxviewer.pipeline.clickhouse.assessed` -- assessment on demand: the rows a surface shows
  assessed as an import assesses them and kept in a local SQLite sidecar keyed by span id and
  rule-set fingerprint; a filter on the assessment served from it, saying it covers the assessed
  rows only;
* :mod:`~ctxviewer.pipeline.clickhouse.langfuse_schema` -- the second table kind: Langfuse's
  v3 ``observations`` / ``traces`` / ``scores`` and v4 ``events_full`` tables read on open, and
  their SQL (de-duplicated with ``FINAL`` or the latest version by ``LIMIT 1 BY``, deleted rows
  dropped, every query bounded by ``project_id`` and the window);
* :mod:`~ctxviewer.pipeline.clickhouse.langfuse_source` -- :class:`~ctxviewer.pipeline.clickhouse.langfuse_source.LangfuseSource`,
  that kind's backend (``?kind=langfuse&project_id=P``), mapped by the ``langfuse-blob``
  importer's own path.

May import: :mod:`ctxviewer.store`, :mod:`ctxviewer.importers` (the OTel format's mapping),
:mod:`ctxviewer.assess`, :mod:`ctxviewer.diff` and below, and ``clickhouse_connect`` (an optional
dependency, imported only when a store is opened). A new table kind goes here as a schema module and a
source module, named in :data:`ctxviewer.pipeline.clickhouse.source.TABLE_KINDS`.

It sits on the pipeline floor because it needs both the store's interface and the importers'
mapping (the store never imports the importers). Nothing is imported here, so ``ctxviewer list
DB`` on a file loads none of it. No Qt here.
"""
