"""Issue 6's count: of the 47 files in ``../shared/corpus`` (FORMATS.md and PROVENANCE.md aside),
every one that is a trace export imports -- 41 files, into 65 request traces holding 206 items
when each file is imported alone, 54 distinct traces (177 items) when the whole corpus is
imported in one run -- and each file gives exactly the model, roles in order, tool definitions,
tool calls, normalised usage and status of ``tests/importers/corpus_expected.json``
(rewritten by ``python -m tests.importers.corpus_table``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corpus_table import EXPECTED, corpus_files, table

from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import TraceStore

NOT_TRACES = {  # the JSON Schemas and the markdown examples of the OTel GenAI spec
    "otel-genai/spec-schemas/examples-llm-calls.md",
    "otel-genai/spec-schemas/gen-ai-input-messages.schema.json",
    "otel-genai/spec-schemas/gen-ai-output-messages.schema.json",
    "otel-genai/spec-schemas/gen-ai-retrieval-documents.schema.json",
    "otel-genai/spec-schemas/gen-ai-system-instructions.schema.json",
    "otel-genai/spec-schemas/gen-ai-tool-definitions.schema.json",
}


@pytest.mark.slow
def test_every_trace_file_of_the_corpus_imports_with_its_values(shared: Path) -> None:
    got = table(shared / "corpus")
    assert len(got) == 47
    imported = {rel for rel, row in got.items() if row["traces"] > 0}
    assert imported == set(got) - NOT_TRACES  # 41 files: every trace export, nothing else
    assert (len(imported), sum(r["traces"] for r in got.values()), sum(r["items"] for r in got.values())) == (41, 65, 206)
    assert all(got[rel]["importer"] is None and got[rel]["warnings"] == 1 for rel in NOT_TRACES)
    assert got == json.loads(EXPECTED.read_text(encoding="utf-8"))


def test_spot_values_of_the_table_are_the_files_own(shared: Path) -> None:
    """A few rows read by hand from the files, so the table is not only what the code said."""
    want = json.loads(EXPECTED.read_text(encoding="utf-8"))
    par = want["provider-api/openai/chat-completions-parallel-tool-calls.extracted.json"]["per_trace"][0]
    # messages in request order, then the two tool definitions; usage.prompt_tokens 207 incl. 0 cached
    assert par["roles"] == ["assistant", "tool", "tool", "assistant", "user", "tool-def", "tool-def"]
    assert par["tool_calls"] == ["get_weather", "get_population"] and par["usage"] == [207, 46, 0, None, 0]
    cache = want["provider-api/anthropic/messages-cache-token-usage.vcr.yaml"]["per_trace"][0]
    assert cache["model"] == "claude-3-5-haiku-20241022"
    assert cache["usage"][:4] == [107, 21, 2, 5]  # input_tokens 100 + cache read 2 + cache creation 5
    o1 = want["langsmith/langsmith_py_wrap_openai_reasoning.post-patch.json"]["per_trace"][0]
    assert (o1["model"], o1["usage"]) == ("o1-mini", [43, 2497, 0, None, 1408])


@pytest.mark.slow
def test_the_whole_corpus_in_one_run(shared: Path, tmp_path: Path) -> None:
    db = tmp_path / "corpus.db"
    report = import_into(db, corpus_files(shared / "corpus"))
    assert (report.files, report.files_imported, report.imported) == (47, 41, 54)
    with TraceStore.open(db) as store:
        rows = store.list(limit=-1)
        assert len(rows) == report.imported == len(report.items_by_trace)
        assert sum(len(store.load(r.trace_id).items) for r in rows) == 177 == sum(report.items_by_trace.values())
