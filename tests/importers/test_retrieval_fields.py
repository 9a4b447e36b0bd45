"""Retrieval scores and document metadata, the retriever query, user.id, invocation parameters
other than max tokens, response ids, Inspect task names and Langfuse cost and observation tree are
kept on the trace and shown in the Attributes pane (ctxviewer.present.trace_attributes).

Inputs: tests/data/retrieval/phoenix-rag.spans.json (Phoenix REST ``/v1/projects/{id}/spans``
shape: a RETRIEVER span feeding an LLM span) and otel-retrieval.otlp.json (an OTel GenAI
``retrieval`` span feeding a chat span), written from the documented formats; the corpus files
for the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.importers import detect, load_records
from ctxviewer.model.trace import RequestTrace
from ctxviewer.present.trace_attributes import attribute_rows

DATA = Path(__file__).resolve().parents[1] / "data" / "retrieval"
CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"


def _traces(path: Path) -> list[RequestTrace]:
    return [r for r in load_records(detect(path), path) if isinstance(r, RequestTrace)]


def test_openinference_retrieval_documents_query_parameters_user_and_response_id() -> None:
    [t] = _traces(DATA / "phoenix-rag.spans.json")
    assert t.attributes["ctxviewer.documents"] == (
        {"id": "kb-12", "score": 0.91, "metadata": {"source": "refunds.md", "chunk": 3},
         "query": "How long do refunds take?", "store": "retrieve", "not_sent": "its text is not in the call's input"},
        {"id": "kb-40", "score": 0.42, "query": "How long do refunds take?", "store": "retrieve", "not_sent": "its text is not in the call's input"})
    assert [i.id for i in t.items] == ["msg-0", "msg-1"]  # their texts are not in the captured input
    a = t.attributes
    assert (a["gen_ai.request.temperature"], a["gen_ai.request.top_p"], a["gen_ai.request.stop_sequences"],
            a["gen_ai.request.seed"]) == (0.2, 0.9, ("\n\n",), 7)
    assert a["llm.invocation_parameters"] == {"response_format": {"type": "json_object"}}  # only what has no OTel name
    assert t.reserved_output_tokens == 256 and t.user_id == "cust-20417" and t.session_id == "sess-9"
    assert "ctxviewer.unmapped" not in a
    rows = dict(attribute_rows(t))
    assert rows["response_id"] == "chatcmpl-Bq7refund14" and rows["user_id"] == "cust-20417"
    assert rows["gen_ai.request.temperature"] == "0.2"
    assert rows["ctxviewer.documents"].startswith('[{"id": "kb-12", "score": 0.91')


def test_otel_retrieval_span_documents_are_kept_on_the_chat_call_it_fed() -> None:
    [t] = _traces(DATA / "otel-retrieval.otlp.json")
    assert t.attributes["ctxviewer.documents"] == (
        {"id": "kb-12", "score": 0.91, "metadata": {"source": "refunds.md"}, "query": "How long do refunds take?",
         "store": "kb-prod"},
        {"id": "kb-40", "score": 0.42, "query": "How long do refunds take?", "store": "kb-prod"})
    assert t.attributes["ctxviewer.fed_by"] == ("retrieval retrieval kb (span 00000000000000a1): 2 document(s)",)
    assert [i.id for i in t.items] == ["msg-0"]  # the retrieved text is in the message already: no items twice
    assert t.response is not None and t.response.id == "chatcmpl-Bq7refund14"
    assert t.attributes["gen_ai.request.temperature"] == 0.2


@pytest.mark.skipif(not CORPUS.exists(), reason="corpus not present")
def test_response_ids_task_names_langfuse_cost_and_observation_tree_from_the_corpus() -> None:
    [raw] = _traces(CORPUS / "otel-genai" / "interlingua-raw-openai-v2.otlp.json")
    assert dict(attribute_rows(raw))["response_id"] == "chatcmpl-CD8yqQ2y3kZs1o0Wm7bT"
    inspect = _traces(CORPUS / "other" / "inspect_ai" / "inspect-log-images.json")
    assert {t.attributes["inspect.task"] for t in inspect} == {"images"}
    [lf] = _traces(CORPUS / "langfuse" / "openai-assistants-2024-05-29.seeder.json")
    assert (lf.attributes["langfuse.cost.total"], lf.attributes["langfuse.parent_observation_id"]) == (
        0.00387, "0d6c73e1-be16-436d-a905-b4108912fa93")
    [oi] = _traces(CORPUS / "openinference" / "interlingua-openinference-openai.otlp.json")
    assert "llm.invocation_parameters" not in oi.attributes.get("ctxviewer.unmapped", {})
    assert oi.reserved_output_tokens is not None
