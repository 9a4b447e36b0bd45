"""A span whose parent is named but not in the file (issue 27 item 8.4): one warning naming the file,
the span and the missing parent id; the span and the rest still load."""

from __future__ import annotations

import json
from pathlib import Path

from otlp_factories import chat_span, otlp_request

from ctxviewer.importers import ImportProblem, detect
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

LOST = ("is not in this file; imported without it (what its ancestors record -- session, agent, system "
        "instructions -- is not known)")


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    records = list(detect(path).load(path))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def test_an_otel_span_with_a_missing_parent_is_warned_about_and_still_loads(tmp_path: Path) -> None:
    root = chat_span("00000000000000a0")
    child = chat_span("00000000000000a1")
    child["parentSpanId"] = "00000000000000a0"  # present: no warning
    orphan = chat_span("00000000000000b1")
    orphan["parentSpanId"] = "00000000000000ff"
    path = tmp_path / "spans.otlp.json"
    path.write_text(json.dumps(otlp_request(root, child, orphan)), encoding="utf-8")
    with TraceStore.create(tmp_path / "t.db") as store:
        report = import_files([path], store)
        assert report.imported == 3 and len(store.list()) == 3
    assert [(p.file, p.record, p.message) for p in report.problems] == [
        (str(path), "resourceSpans[0].scopeSpans[0].spans[2]",
         f"span 00000000000000b1 (chat m-1): parent span 00000000000000ff {LOST}")]


def test_a_parent_of_another_trace_id_is_missing_too(tmp_path: Path) -> None:
    a = chat_span("00000000000000a0", trace_id="11111111111111111111111111111111")
    b = chat_span("00000000000000a1", trace_id="22222222222222222222222222222222")
    b["parentSpanId"] = "00000000000000a0"  # that span id exists, but in another trace
    path = tmp_path / "spans.otlp.json"
    path.write_text(json.dumps(otlp_request(a, b)), encoding="utf-8")
    traces, problems = _load(path)
    assert len(traces) == 2
    assert [p.message for p in problems] == [f"span 00000000000000a1 (chat m-1): parent span 00000000000000a0 {LOST}"]


def test_a_langfuse_observation_whose_parent_was_left_out(shared: Path, tmp_path: Path) -> None:
    doc = json.loads((shared / "corpus/langfuse/openai-agents-2025-09-30.trace.json").read_text("utf-8"))
    for holder in (doc, doc["trace"]):
        holder["observations"] = [o for o in holder.get("observations", []) if o["id"] != "d950b668796240b5"]
    path = tmp_path / "cut.trace.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    traces, problems = _load(path)
    assert len(traces) == 2  # both generations still load
    tail = ("parent observation d950b668796240b5 is not in this file; imported without it (what its ancestors "
            "record -- system instructions, tool results -- is not known)")
    assert [(p.record, p.message) for p in problems] == [  # by start time
        ("observation 98870087af69bf06", f"observation 98870087af69bf06 (GENERATION response): {tail}"),
        ("observation 5b99c3e3411ed17b", f"observation 5b99c3e3411ed17b (TOOL get_weather): {tail}"),
        ("observation 90d94774e8e3724d", f"observation 90d94774e8e3724d (GENERATION response): {tail}")]


def test_corpus_spec_examples_name_their_missing_parent(shared: Path) -> None:
    """The OpenInference spec's example spans are excerpts: their parent chain span is not in the file."""
    path = shared / "corpus/openinference/spec-examples/llm-spans-md-examples.json"
    _traces, problems = _load(path)
    assert [(p.record, p.message) for p in problems if "parent span" in p.message] == [
        ("examples[1]", f"span 01fa9612-01b8-4358-85d6-e3e067305ec3 (ChatCompletion): parent span "
                        f"2fe8a793-2cf1-42d7-a1df-bd7d46e017ef {LOST}"),
        ("examples[2]", f"span f26d1f26-9671-435d-9716-14a87a3f228b (llm): parent span "
                        f"2fe8a793-2cf1-42d7-a1df-bd7d46e017ef {LOST}")]


def test_a_langsmith_run_whose_parent_was_left_out(shared: Path, tmp_path: Path) -> None:
    doc = json.loads((shared / "corpus/langsmith/langsmith_py_wrap_openai.post-patch.json").read_text("utf-8"))
    run = doc["post"][0]
    run["parent_run_id"] = "00000000-0000-0000-0000-00000000dead"
    path = tmp_path / "cut.post-patch.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    traces, problems = _load(path)
    assert len(traces) == 1
    assert [(p.record, p.message) for p in problems] == [(
        f"run {run['id']}",
        f"run {run['id']} (llm {run['name']}): parent run 00000000-0000-0000-0000-00000000dead is not in this file; "
        "imported without it (what its ancestors record -- retrieved documents, the chain's inputs -- is not known)")]
