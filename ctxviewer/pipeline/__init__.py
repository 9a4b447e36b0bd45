"""Jobs over many traces: importing files into a database, assessing over the cores, the
back-fill of stored facts after an upgrade, and the first trace's warm-up.

What lives here:

* :mod:`~ctxviewer.pipeline.importing` -- the import pipeline: importer -> repair
  (:mod:`~ctxviewer.pipeline.sanitize`) -> token counts (:mod:`~ctxviewer.pipeline.missing_counts`,
  the model's own encoding) -> assessment -> ``store.add`` with the facts, in one transaction,
  with progress and cancel; :mod:`~ctxviewer.pipeline.import_report` -- what a run did (worded the
  same by the CLI and the window); :mod:`~ctxviewer.pipeline.folders` -- the files a directory stands
  for and the entries it skips, with why; :mod:`~ctxviewer.pipeline.companion_files` -- each file's
  importer, and files of one import read together (spans and their separate logs file);
* :mod:`~ctxviewer.pipeline.assess_pool` -- assessing an import's traces over the cores;
  :mod:`~ctxviewer.pipeline.ingest_pool` -- a big OTel JSON Lines file read over the cores in
  chunks of whole traces (parsed, mapped, repaired, counted and assessed in workers, written here),
  each chunk's work in :mod:`~ctxviewer.pipeline.ingest_chunk`;
  :mod:`~ctxviewer.pipeline.stored_facts` -- the stored facts of one trace (``with_facts``,
  ``save_traces``);
* :mod:`~ctxviewer.pipeline.derived_facts` -- the facts of calls whose earlier turns were dropped
  between calls, stored as ``show`` derives them;
* :mod:`~ctxviewer.pipeline.fresh_rows` -- a stale list row's facts recomputed in the current
  context, in memory (the window's background refresh);
* :mod:`~ctxviewer.pipeline.backfill` -- re-assessing a database's traces (``upgrade``);
* :mod:`~ctxviewer.pipeline.import_claim` -- which import may remove a new database file;
* :mod:`~ctxviewer.pipeline.hints` -- the "it looks like X; import it with" hint for a trace
  file opened as a database;
* :mod:`~ctxviewer.pipeline.warm_up` -- the first trace's one-time costs, paid ahead of it;
* :mod:`~ctxviewer.pipeline.model_calls` -- which stored traces the sums count as model calls (not
  an ``execute_tool`` span imported on its own);
* :mod:`~ctxviewer.pipeline.otlp_receiver` -- the live OTLP/HTTP receiver on 127.0.0.1
  (``ctxviewer serve``, File › Listen for Traces…); :mod:`~ctxviewer.pipeline.live_writer` -- its
  writer: a bounded queue, spans regrouped by trace as they arrive, short WAL transactions;
* :mod:`~ctxviewer.pipeline.clickhouse` -- a team's ClickHouse trace store (the OpenTelemetry
  Collector exporter's ``otel_traces``) read in place behind :class:`~ctxviewer.store.TraceSource`:
  it needs the store's interface and the OTel importer's span mapping, which meet here.

May import: :mod:`ctxviewer.importers`, :mod:`ctxviewer.store`, :mod:`ctxviewer.assess` and
everything below them. This is where those three meet: the importers and the store never import
the assessment, and the store never imports the importers.

A new long job over a database goes here; its command goes into :mod:`ctxviewer.cli` and its
progress dialog into :mod:`ctxviewer.gui`.
"""
