"""Re-assessing the traces a database already holds, and writing the facts into their rows: the
assessment job that ``upgrade`` runs after the schema steps.

The schema steps only change tables (a released step gives the same result whatever today's checks
say); the facts stored on each row (:mod:`ctxviewer.store.facts`) are a snapshot of the checks, so
an upgrade from before schema 3 -- whose rows hold no facts or no ``trace_findings`` --, from
before schema 14 -- whose rows hold no window use (:data:`WINDOW_USE_SINCE`) -- and an
upgrade of a current database (asked for to refresh them) re-assess every trace with today's
checks: :func:`upgrade_with_facts`. The traces are assessed over the cores
(:func:`ctxviewer.pipeline.assess_pool.assessed`), like an import. No Qt here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from ctxviewer.assess.context import AssessContext, context_for_db
from ctxviewer.importers import REGISTRY
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.assess_pool import assessed
from ctxviewer.store import SCHEMA_VERSION, StoreError, TraceStore, UpgradeResult, upgrade_copy

FACTS_CONTEXT_SINCE = 7
"""The first schema whose rows hold the facts, ``trace_findings`` and the context the facts were
computed in (schema 2 added the facts, 3 the findings table, 7 the context): an upgrade from an
older schema re-assesses every trace."""


def reassess(store: TraceStore, context: AssessContext | None = None) -> int:
    """Re-assess every trace of ``store`` (writable) in ``context`` (default: the store's own,
    :func:`ctxviewer.assess.context.context_for_db`) and rewrite its row's facts, in one
    transaction. A trace that cannot be loaded keeps its facts (NULL after an upgrade: shown as
    "not recorded"). A row that never stored whether its omissions were recorded (written before
    schema 2) takes its importer's ``records_omissions``. Returns the rows rewritten. Raises :class:`~ctxviewer.store.StoreError`."""

    def loaded() -> Iterator[RequestTrace]:
        for row in store.list(None, 0, -1):
            try:
                trace = store.load(row.trace_id)
            except (KeyError, StoreError):
                continue
            if row.omissions_recorded is None and not REGISTRY.records_omissions(trace.source_format):
                trace = replace(trace, omissions_recorded=False)  # never stored (before schema 2): the format decides
            yield trace

    ctx = context if context is not None else context_for_db(store.path)
    return store.write_facts(facts for _trace, facts in assessed(loaded(), context=ctx))


WINDOW_USE_SINCE = 14
"""The first schema whose rows hold ``window_used`` / ``window_capacity`` (what ``stats`` bands):
an upgrade from an older one re-assesses every trace, or the copy's bands would be empty."""


def needs_reassessing(from_version: int) -> bool:
    """Whether an upgrade from schema ``from_version`` re-assesses (see the module docstring)."""
    return from_version < max(FACTS_CONTEXT_SINCE, WINDOW_USE_SINCE) or from_version == SCHEMA_VERSION


def upgrade_with_facts(source: str | Path, target: str | Path,
                       progress: Callable[[str], None] | None = None) -> UpgradeResult:
    """:func:`ctxviewer.store.upgrade_copy`, then the back-fill of facts in the copy before it is
    renamed to ``target`` (so an interrupted back-fill leaves no target either). ``progress`` gets
    ``"re-assessing every trace"`` before the back-fill, which assesses in the new file's context
    (:func:`ctxviewer.assess.context.context_for_db` of ``target``). Raises what ``upgrade_copy``
    raises, and ``ValueError`` naming a broken ``ctxviewer.toml`` or marks file beside ``target``."""
    say = progress or (lambda _line: None)

    context = context_for_db(target)  # ctxviewer.toml and the marks beside the new file, as it will be read

    def after(store: TraceStore, from_version: int) -> None:
        if needs_reassessing(from_version):
            say("re-assessing every trace")
            reassess(store, context)

    return upgrade_copy(source, target, progress, after=after)
