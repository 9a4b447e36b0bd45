"""The account of every field (common.field_account) and the LangSmith rules it holds: patches
merged by every key the SDKs use, feedback as scores, unmapped keys named per record."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ctxviewer.importers import ImportProblem, detect, load_records
from ctxviewer.importers.common.field_account import describe_unmapped, mapped, tally, unmapped_keys
from ctxviewer.importers.formats.langsmith import merge_runs
from ctxviewer.model.trace import RequestTrace


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    records = list(load_records(detect(path), path))
    return [r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)]


def test_unmapped_keys_name_the_outermost_key_not_covered_and_skip_empty_values() -> None:
    tree = mapped("inputs.messages", "extra.metadata", "extra.metadata.x", "id")
    record = {"id": 1, "inputs": {"messages": [], "temperature": 0.2, "extra_body": None},
              "extra": {"metadata": {"a": 1}, "runtime": {"sdk": "js"}}, "serialized": {}, "events": [{"n": 1}]}
    assert unmapped_keys(record, tree) == ["inputs.temperature", "extra.runtime", "events"]
    assert mapped("a.b", "a") == {"a": True}


def test_describe_unmapped_counts_records_most_frequent_first() -> None:
    counts = tally([{"ctxviewer.unmapped": ["serialized", "extra.runtime"]}, {"ctxviewer.unmapped": ["extra.runtime"]}, {}])
    assert counts == Counter({"extra.runtime": 2, "serialized": 1})
    assert describe_unmapped(counts) == "2 keys not mapped: extra.runtime ×2, serialized ×1"
    assert describe_unmapped(Counter({f"k{i}": 1 for i in range(10)}), limit=2) == \
        "10 keys not mapped: k0 ×1, k1 ×1, … and 8 more"
    assert describe_unmapped({}) == ""


def test_patch_without_id_merges_by_dotted_order_or_the_run_id_it_names() -> None:
    posts = [{"id": "r1", "dotted_order": "20250101T000000000000Zr1", "run_type": "llm", "inputs": {"x": 1}},
             {"id": "r2", "dotted_order": "20250101T000000000000Zr1.20250101T000001000000Zr2", "run_type": "llm"}]
    patches = [{"dotted_order": "20250101T000000000000Zr1", "end_time": 5},
               {"trace_id": "r1", "dotted_order": "20250101T000000000000Zr1.20250101T000001000000Zr2", "end_time": 6},
               {"dotted_order": "20250101T000000000000Zr1.20250101T000009000000Zr9", "end_time": 7}]
    runs, warnings = merge_runs(posts, patches)
    by_id = {r["id"]: r for r in runs}
    assert (by_id["r1"]["end_time"], by_id["r1"]["inputs"], by_id["r2"]["end_time"]) == (5, {"x": 1}, 6)
    assert by_id["r9"]["end_time"] == 7
    assert warnings == ["patch 2: run r9 was not posted in this file; imported from the patch alone"]


def test_langsmith_feedback_stats_become_scores_and_run_keys_are_accounted(tmp_path: Path) -> None:
    run = {"id": "r1", "trace_id": "r1", "run_type": "llm", "start_time": "2025-01-01T00:00:00Z",
           "end_time": "2025-01-01T00:00:01Z", "inputs": {"messages": [{"role": "user", "content": "hi"}], "top_p": 0.5},
           "outputs": {"choices": [{"message": {"role": "assistant", "content": "hello"}}]},
           "feedback_stats": {"correctness": {"n": 2, "avg": 0.5, "values": {}}, "vibe": {"n": 1, "avg": None,
                                                                                          "values": {"good": 1}}},
           "reference_example_id": "ex-7", "extra": {"metadata": {"user_id": "u1", "stage": "beta"}}}
    p = tmp_path / "runs.json"
    p.write_text(json.dumps([run]))
    [t], problems = _load(p)
    assert problems == []
    assert list(t.attributes["ctxviewer.scores"]) == [
        {"name": "correctness", "value": 0.5, "source": "langsmith feedback", "comment": "average of 2"},
        {"name": "vibe", "value": {"good": 1}, "source": "langsmith feedback", "comment": "average of 1"}]
    assert list(t.attributes["ctxviewer.unmapped"]) == ["reference_example_id"]
    assert (t.user_id, t.attributes["gen_ai.request.top_p"], t.attributes["langsmith.metadata.stage"]) == ("u1", 0.5, "beta")


def test_langsmith_corpus_names_only_what_a_langsmith_user_would_not_miss(shared: Path) -> None:
    counts: Counter[str] = Counter()
    for path in sorted((shared / "corpus" / "langsmith").glob("*.json")):
        traces, problems = _load(path)
        assert problems == []
        counts += tally(t.attributes for t in traces)
    assert counts == Counter({"extra.runtime": 3, "outputs.created": 3, "outputs.object": 3, "serialized": 3,
                              "events": 1, "inputs.stream_options": 1})


def test_openinference_span_attributes_not_read_are_named_with_indices_as_n(tmp_path: Path) -> None:
    attrs = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o",
             "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "hi",
             "llm.input_messages.0.message.x_vendor": "v", "llm.input_messages.1.message.x_vendor": "w",
             "llm.prompt_template.template": "Say {x}", "llm.prompt_template.variables": "{\"x\": \"hi\"}",
             "llm.invocation_parameters": "{\"temperature\": 0.1}", "metadata": "{\"team\": \"search\"}",
             "tag.tags": ["beta"], "llm.token_count.prompt": 3}
    p = tmp_path / "span.attrs.json"
    p.write_text(json.dumps(attrs))
    [t], problems = _load(p)
    assert list(t.attributes["ctxviewer.unmapped"]) == [
        "llm.input_messages.N.message.x_vendor", "llm.prompt_template.template", "llm.prompt_template.variables"]
    assert (dict(t.attributes["metadata"]), list(t.attributes["tag.tags"])) == ({"team": "search"}, ["beta"])


def test_otel_chat_span_keeps_cost_and_metadata_names_the_rest_and_reads_structured_output(tmp_path: Path) -> None:
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
             "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "A city?"}]}]),
             "ai.response.object": "{\"city\":\"Lima\"}", "ai.schema": "{\"type\":\"object\"}",
             "ai.response.id": "resp-9", "gen_ai.cost.total_cost": 0.0012, "ai.telemetry.metadata.team": "geo",
             "vendor.debug_blob": "x", "llm.is_streaming": False}
    p = tmp_path / "span.attrs.json"
    p.write_text(json.dumps(attrs))
    [t], _problems = _load(p)
    assert t.response is not None and (t.response.text, t.response.id) == ("{\"city\":\"Lima\"}", "resp-9")
    assert (t.attributes["gen_ai.cost.total_cost"], t.attributes["ai.telemetry.metadata.team"]) == (0.0012, "geo")
    assert list(t.attributes["ctxviewer.unmapped"]) == ["vendor.debug_blob"]
    assert t.attributes["llm.is_streaming"] is False  # whether the call streamed: kept


def test_otel_corpus_unmapped_keys_per_file(shared: Path) -> None:
    def keys(name: str) -> Counter[str]:
        traces, _ = _load(shared / "corpus" / "otel-genai" / name)
        return tally(t.attributes for t in traces)

    assert keys("interlingua-raw-openai-v2.otlp.json") == Counter()
    assert keys("interlingua-openllmetry-openai.otlp.json") == Counter()  # streaming flag and API base: kept
    assert keys("vercel-ai-sdk-v6-generateText-doGenerate.readablespan.json") == Counter(
        {"ai.request.headers.user-agent": 2, "resource.name": 2})


def test_promptfoo_grading_as_scores_and_litellm_payload_account(shared: Path) -> None:
    traces, _ = _load(shared / "corpus/other/promptfoo/promptfoo-sample-export.json")
    assert [(s["name"], s["value"], s["comment"]) for s in traces[0].attributes["ctxviewer.scores"]][:3] == [
        ("promptfoo", 0.75, "fail: Latency 5794ms is greater than threshold 3000ms"),
        ("assertion cost", 1, "pass: Assertion passed"),
        ("assertion latency", 0, "fail: Latency 5794ms is greater than threshold 3000ms")]
    assert tally(t.attributes for t in traces) == Counter(
        {"promptId": 4, "testCase": 4})  # metadata {"_promptfooFileMetadata": {}} carries nothing
    [t], _ = _load(shared / "corpus/other/litellm/standard_logging_payload.json")
    # error_information all "" and built-in tools all null: empty; hidden_params' other keys are null or {}
    assert "ctxviewer.unmapped" not in t.attributes
    assert t.attributes["litellm.hidden_params.api_base"] == "https://api.openai.com"
    assert t.attributes["litellm.hidden_params.litellm_model_name"] == "gpt-4o"
    assert "litellm.hidden_params.model_id" not in t.attributes  # null there
    assert "litellm.error_information" not in t.attributes
    assert t.attributes["litellm.response_cost"] == 0.00022500000000000002
