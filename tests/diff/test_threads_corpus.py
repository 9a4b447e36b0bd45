"""Threads on the real corpus (``../shared/corpus``, every file but the spec schemas): the agent
loops are found as threads -- Inspect's browser agent (one span, five calls), LangGraph and Koog
via Langfuse (every step under its own node span; each next step carries the previous reply) --
every other call starts a thread, and no call gets a derived omitted item, a derived
``required.trimmed`` or a ``tool_result.orphan`` (none of them drops anything)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.assess.checks import run_checks
from ctxviewer.diff.conversation import derive_for_display, thread_predecessor
from ctxviewer.model.trace import Status
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceQuery, TraceStore

BROWSER = "ZB2vu5GNujYaBdPSReCeop/1/1/"
THREADS = {
    **{f"{BROWSER}{n}": f"{BROWSER}{n - 1}" for n in range(1, 5)},  # other/inspect_ai browser agent
    "5ba09605e0929d78": "4f6535aaebcda355",  # langfuse/langgraph-python: agent node, step 3 after step 1
    "e44e72cf2d221781": "042f9350c3729147",  # langfuse/koog: nodeSendToolResult after nodeCallLLM
}
"""Each call that continues a thread -> the call it continues; every other corpus call has none."""


@pytest.mark.slow
def test_the_corpus_threads_and_no_derived_omission_or_false_failure(shared: Path, tmp_path: Path) -> None:
    files = sorted(p for p in (shared / "corpus").rglob("*")
                   if p.is_file() and "spec-schemas" not in p.parts and p.suffix != ".md")
    db = tmp_path / "corpus.db"
    with TraceStore.create(db) as store:
        assert import_files(files, store).imported == 54
    found = {}
    with TraceStore.open(db) as store:
        for rule in ("tool_result.orphan", "required.trimmed"):  # the facts stored at import
            assert [r.trace_id for r in store.list(TraceQuery(text=f"finding == {rule}"), 0, -1)] == []
        for row in store.list(TraceQuery(), 0, -1):
            stored = store.load(row.trace_id)
            prev = thread_predecessor(store, stored)
            if prev is not None:
                found[row.trace_id] = prev.trace_id
            trace = derive_for_display(store, stored)  # as show and the window show it
            derived = [i.id for i in trace.items if i.status is Status.OMITTED]
            rules = {f.rule for f in run_checks(trace)} & {"tool_result.orphan", "required.trimmed"}
            assert (row.trace_id, derived, rules) == (row.trace_id, [], set())
    assert found == THREADS
