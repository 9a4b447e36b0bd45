"""Phoenix's export: the REST ``/v1/projects/{id}/spans/otlpv1`` spans (OTLP in protobuf field
names, ``string_value``, unset fields as null) read through the OpenInference mapping, and the
``/v1/projects/{id}/span_annotations`` annotations given in the same import stored as the scores
of their spans' traces; an annotation whose span is no LLM span of the import (here the
retriever's) is named in a warning. Inputs: tests/data/phoenix/ (written from the Phoenix server's
response models, Arize-ai/phoenix routers/v1/spans.py and annotations.py)."""

from __future__ import annotations

import json
from pathlib import Path

from ctxviewer.assess.checks.spans import CHECK as CHECKS
from ctxviewer.importers import REGISTRY, ImportProblem
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.companion_files import plan
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

DATA = Path(__file__).resolve().parents[1] / "data" / "phoenix"
SPANS, NOTES = DATA / "rag.otlpv1.json", DATA / "rag.span_annotations.json"
TRACE = "7f3c2b1a9d8e4f60a1b2c3d4e5f60718:1a2b3c4d5e6f7a82"


def test_otlpv1_spans_import_through_the_openinference_mapping() -> None:
    assert REGISTRY.detect(SPANS).name == "openinference"
    [t] = [r for r in REGISTRY.load(REGISTRY.detect(SPANS), SPANS) if isinstance(r, RequestTrace)]
    assert t.trace_id == TRACE and t.endpoint.model == "gpt-4o-mini" and t.user_id == "cust-20417"
    assert [i.id for i in t.items] == ["msg-0", "msg-1"]  # documents not in the input
    assert t.usage.input_tokens == 58 and t.response is not None and t.response.text == "Within 14 days."
    assert t.attributes["gen_ai.request.temperature"] == 0.2
    assert "ctxviewer.unmapped" not in t.attributes


def test_annotations_in_the_same_import_are_the_traces_scores() -> None:
    planned, companions = plan([NOTES, SPANS], None, REGISTRY)
    assert [p.importer.name for p in planned if p.importer] == ["openinference", "phoenix-annotations"]
    records = [r for p in planned for r in REGISTRY.load(p.importer, p.path, None, companions)]  # type: ignore[arg-type]
    [t] = [r for r in records if isinstance(r, RequestTrace)]
    assert t.attributes["ctxviewer.scores"] == (
        {"name": "correctness", "value": 1.0, "source": "phoenix LLM", "comment": "The answer matches kb-12 (14 days)."},
        {"name": "helpfulness", "value": "thumbs-up", "source": "phoenix HUMAN", "comment": None})
    assert t.attributes["phoenix.annotations"][1] == {
        "name": "helpfulness", "label": "thumbs-up", "identifier": "review-1", "source": "APP", "user_id": "VXNlcjox",
        "created_at": "2025-06-02T11:00:00+00:00", "updated_at": "2025-06-02T11:00:00+00:00"}
    problems = [(p.message, p.dropped, p.info) for p in records if isinstance(p, ImportProblem)]
    assert problems == [  # the join only says what was done: a note (info), not a warning
        (f"2 annotation(s) joined their spans in {SPANS}: kept as the scores of those calls", 0, True),
        ("1 annotation(s) of span(s) no LLM span of this import is (1a2b3c4d5e6f7a81): not imported; "
         "import them with the Phoenix spans file (GET /v1/projects/{id}/spans)", 1, False)]


def test_stored_scores_and_annotations_alone(tmp_path: Path) -> None:
    with TraceStore.create(tmp_path / "t.db") as store:
        import_files([SPANS, NOTES], store)
        t = store.load(TRACE)
    assert [s["name"] for s in t.attributes["ctxviewer.scores"]] == ["correctness", "helpfulness"]
    alone = [r for r in REGISTRY.load(REGISTRY.get("phoenix-annotations"), NOTES)]
    assert [(p.message.split(":")[0], p.dropped) for p in alone if isinstance(p, ImportProblem)] == [
        ("3 annotation(s) of span(s) no LLM span of this import is (1a2b3c4d5e6f7a81, 1a2b3c4d5e6f7a82)", 3)]


def test_a_rest_v1_spans_page_keeps_the_error_status(tmp_path: Path) -> None:
    # new user: GET /v1/projects/{id}/spans {"data": [...], "next_cursor"} with status_code "ERROR"
    # read "status not recorded" / ok, while the same span in a bare list was a span.error failure
    page = DATA / "rest-v1-error.spans.json"
    bare = tmp_path / "list.json"
    bare.write_text(json.dumps(json.loads(page.read_text(encoding="utf-8"))["data"]), encoding="utf-8")
    for path in (page, bare):
        [t] = [r for r in REGISTRY.load(REGISTRY.detect(path), path) if isinstance(r, RequestTrace)]
        assert (t.attributes["otel.status_code"], t.attributes["otel.status_message"]) == (
            "error", "openai.BadRequestError: context_length_exceeded")
        [f] = list(CHECKS.run(t))
        assert (f.severity.value, f.message) == (
            "failure", "the span ended in error: openai.BadRequestError: context_length_exceeded")
