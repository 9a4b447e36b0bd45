"""OpenInference RERANKER spans (new user nu3 #1) and Haystack's PromptBuilder spans (nu3 #2).

A reranker records ``reranker.input_documents`` (its candidates) and ``reranker.output_documents``
(what it kept): only the output reaches the model. The documents it dropped were shown as sent
evidence and the kept ones twice (once per span naming them); now each document is one item,
the dropped ones omitted with the reranker's reason. Haystack's OpenInference instrumentor gives
``PromptBuilder`` span kind LLM (a template, no model, no messages, no usage): it was a phantom
model call holding the retrieved documents; now it is a template step of the run tree.

Inputs: tests/data/reranker/llamaindex-rerank.spans.json (Phoenix span JSON built by hand from
the OpenInference LlamaIndex shape: CHAIN -> RETRIEVER n1, n2, n3 -> RERANKER top_k 2 keeping n3,
n1 -> LLM; trace ``li-nocap`` without input messages, ``li-cap`` with the kept texts in the user
message) and tests/data/reranker/haystack-promptbuilder.spans.json (Pipeline.run -> BM25
retriever d1, d2 -> ranker top_k 1 keeping d1 -> PromptBuilder.run -> OpenAIGenerator.run)."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.importers import ImportProblem, detect
from ctxviewer.importers.common.retrieved import Document, Feed, resolve
from ctxviewer.model.run import RunSpan
from ctxviewer.model.trace import RequestTrace

DATA = Path(__file__).resolve().parents[1] / "data" / "reranker"
LI = DATA / "llamaindex-rerank.spans.json"
HS = DATA / "haystack-promptbuilder.spans.json"
N1 = "Refunds are accepted within 30 days of purchase."
N3 = "Electronics need the original box for a refund."
CUT = "rank: dropped by reranker SentenceTransformerRerank.postprocess_nodes (top_k 2)"
NOTE = ("reranker SentenceTransformerRerank.postprocess_nodes (top_k 2) kept 2 of 3 document(s) (n3, n1); "
        "dropped: n2 (omitted items: only its output reached the model)")


def _records(path: Path) -> list:
    return list(detect(path).load(path))


def _traces(path: Path) -> dict[str, RequestTrace]:
    return {r.trace_id: r for r in _records(path) if isinstance(r, RequestTrace)}


def test_uncaptured_input_has_the_kept_documents_once_and_the_dropped_one_omitted() -> None:
    t = _traces(LI)["li-nocap:li-nocap-4"]
    assert [(i.id, i.position, i.status.value, i.source.document_id, i.omission_reason) for i in t.items] == [
        ("doc-0", 1, "retained", "n3", None), ("doc-1", 2, "retained", "n1", None), ("doc-2", None, "omitted", "n2", CUT)]
    assert [i.source.store for i in t.items] == ["VectorIndexRetriever.retrieve"] * 3  # the span that found it first
    assert t.attributes["ctxviewer.documents_note"] == NOTE


def test_captured_input_keeps_the_dropped_document_as_an_omitted_item() -> None:
    t = _traces(LI)["li-cap:li-cap-4"]
    assert [(i.id, i.kind.value, i.position, i.status.value) for i in t.items] == [
        ("msg-0", "policy", 1, "retained"), ("doc-0", "evidence", None, "omitted"), ("msg-1", "user", 2, "retained")]
    user = t.items[2].content
    assert [(r["id"], r.get("sent_in"), r.get("at"), r.get("item"), r.get("omitted")) for r in t.attributes["ctxviewer.documents"]] == [
        ("n3", "msg-1", (user.index(N3), user.index(N3) + len(N3)), None, None),
        ("n1", "msg-1", (user.index(N1), user.index(N1) + len(N1)), None, None),
        ("n2", None, None, "doc-0", CUT)]
    assert t.attributes["ctxviewer.documents_note"] == (
        NOTE + "; 2 retrieved document(s) were sent inside msg-1 (their text is there); "
        "not added again as separate evidence items")


def test_a_document_named_by_id_in_one_span_and_by_text_in_another_is_one() -> None:
    a, b = Document("a", "alpha text", store="r"), Document("b", "beta text", store="r")
    docs, note = resolve([Feed("r", [a, b]), Feed("rr", [Document(None, "beta text")],
                                                   [Document(None, "alpha text"), Document(None, "beta text")], 1)])
    assert [(d.id, d.store, d.omission_reason) for d in docs] == [
        ("b", "r", None), ("a", "r", "rank: dropped by reranker rr (top_k 1)")]
    assert note == ("reranker rr (top_k 1) kept 1 of 2 document(s) (b); dropped: a "
                    "(omitted items: only its output reached the model)")


def test_retrievals_without_a_reranker_are_unchanged() -> None:
    a, b = Document("a", "alpha"), Document("b", "beta")
    assert resolve([Feed("r", [a, b])]) == ([a, b], None)


def test_haystack_prompt_builder_is_no_model_call() -> None:
    records = _records(HS)
    [t] = [r for r in records if isinstance(r, RequestTrace)]
    assert t.trace_id == "hs:hs-5"
    assert t.attributes["otel.span.name"] == "OpenAIGenerator.run"
    assert [(i.id, i.kind.value, i.position, i.omission_reason) for i in t.items] == [
        ("doc-0", "evidence", None, "rank: dropped by reranker TransformersSimilarityRanker.run (top_k 1)"),
        ("msg-0", "user", 1, None)]
    assert [r["id"] for r in t.attributes["ctxviewer.documents"]] == ["d1", "d2"]
    assert t.attributes["ctxviewer.documents"][0]["sent_in"] == "msg-0"
    [note] = [p for p in records if isinstance(p, ImportProblem)]
    assert (note.info, note.message) == (True, (
        "span PromptBuilder.run (hs-4) is of kind LLM but renders a prompt template and records no model, "
        "messages or usage: a template step on the run tree, not a model call"))


def test_haystack_prompt_builder_is_a_template_step_of_the_run() -> None:
    steps = [r for r in detect(HS).load_runs(HS) if isinstance(r, RunSpan)]
    assert [(s.kind, s.name, s.trace_id) for s in steps] == [
        ("chain", "Pipeline.run", None), ("retriever", "InMemoryBM25Retriever.run", None),
        ("reranker", "TransformersSimilarityRanker.run", None), ("template", "PromptBuilder.run", None),
        ("llm", "OpenAIGenerator.run", "hs:hs-5")]


def test_show_says_how_many_omissions_the_trace_itself_records() -> None:
    from ctxviewer.importers import REGISTRY
    from ctxviewer.report.trace_report import format_trace_text

    [t] = [r for r in REGISTRY.load(detect(LI), LI) if isinstance(r, RequestTrace) and r.trace_id == "li-nocap:li-nocap-4"]
    assert t.omissions_recorded is False
    text = format_trace_text(t)
    assert ("omitted items: 1 recorded by the trace (listed above); any others not recorded "
            "(openinference traces only record what was sent)") in text.splitlines()


def test_the_list_says_the_omissions_the_trace_records_as_at_least() -> None:
    """A screenshot of the reranked trace: the list said "2 / not recorded" while the Items tab
    listed 3 omitted documents; an OTel trace records no omissions in general, but these it does."""
    from types import SimpleNamespace

    from ctxviewer.present.columns import retained_omitted

    def row(omitted: int) -> SimpleNamespace:
        return SimpleNamespace(retained_count=2, omitted_count=omitted, omissions_recorded=False)

    assert retained_omitted(row(3)) == "2 / ≥3"
    assert retained_omitted(row(0)) == "2 / not recorded"
