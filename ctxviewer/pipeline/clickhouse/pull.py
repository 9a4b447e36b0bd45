"""A ClickHouse store's time window pulled into a local trace database, for offline work:
``ctxviewer import clickhouse://...?since=2h -o local.db``.

The chat spans of the window are walked by keyset pages (:meth:`ClickHouseSource.stream
<ctxviewer.pipeline.clickhouse.source.ClickHouseSource.stream>`), each made a trace by the same
mapping ``show`` reads it with (:meth:`~ctxviewer.pipeline.clickhouse.source.ClickHouseSource.load_with_problems`)
and written as a file import writes its traces: assessed in the database's context
(:func:`ctxviewer.pipeline.assess_pool.assessed`), in one transaction, conversations' dropped turns
derived afterwards (:func:`ctxviewer.pipeline.derived_facts.refresh_derived`); a database this run
created is removed again when nothing was written (:class:`~ctxviewer.pipeline.import_claim.NewFileClaim`).
So ``list`` and ``show`` of the local database say what they say of the URL. No Qt here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

from ctxviewer.assess.context import context_for_db
from ctxviewer.diff.conversation import conversation_key
from ctxviewer.importers import ImportProblem
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.assess_pool import assessed
from ctxviewer.pipeline.clickhouse.source import ClickHouseSource
from ctxviewer.pipeline.derived_facts import refresh_derived
from ctxviewer.pipeline.hints import create_store
from ctxviewer.pipeline.import_claim import NewFileClaim
from ctxviewer.pipeline.importing import ImportReport, remove_database


def pull_window(source: ClickHouseSource, db_path: str | Path, read: Callable[[int], None] | None = None,
                workers: int | None = 1) -> ImportReport:
    """Write every chat span of ``source``'s window into the database ``db_path`` (created, or
    added to) and return the report (``files`` 1: the URL; ``problems`` the mapping's warnings,
    named ``URL: span ID: message``, and one ``not imported`` problem per listed span that did not
    become a trace). ``read(n)`` after each trace read. Raises
    :class:`~ctxviewer.store.StoreError` when the source or the database cannot be read or written
    (a database this call created is removed first)."""
    report = ImportReport(imported=0, files=1)
    url = source.target.url
    in_conversations: dict[str, None] = {}

    def traces() -> Iterator[RequestTrace]:
        for n, (_ns, row) in enumerate(source.stream(None, -1), 1):
            trace, problems = source.mapped(row.trace_id)
            report.problems.extend(ImportProblem(url, f"span {row.trace_id}", p) for p in problems)
            if trace is None:  # never silently: the span is named, with why
                report.problems.append(ImportProblem(url, f"span {row.trace_id}", "not imported: " + (
                    "the mapping could not make it a trace (above)" if problems else "no longer in the window")))
                continue
            report.items_by_trace[trace.trace_id] = len(trace.items)
            if not trace.omissions_recorded and conversation_key(trace) is not None:
                in_conversations[trace.trace_id] = None
            if read:
                read(n)
            yield trace

    with NewFileClaim(db_path) as claim:
        try:
            with create_store(db_path) as store:
                context = context_for_db(store.path)
                store.add(assessed(traces(), workers, context=context))
                report.imported = len(report.items_by_trace)
                report.files_imported = 1 if report.imported else 0
                if in_conversations:
                    refresh_derived(store, in_conversations, context)
        except BaseException:
            if claim.may_remove():
                remove_database(db_path)
            raise
        report.database = str(db_path)
        if report.imported == 0 and claim.may_remove():
            remove_database(db_path)
            report.removed_database = True
    return report
