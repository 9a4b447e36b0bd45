"""One request, one count: item counts, the accounting breakdown and `ctxviewer tokens` agree
(ctxviewer.tokens.item_rule; new-user finding F13: 181, 223 and 284 tokens for one request)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.assess.breakdown import breakdown
from ctxviewer.assess.checks.accounting import CHECK
from ctxviewer.model.trace import Kind
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore
from ctxviewer.tokens.counting import count_tokens
from ctxviewer.tokens.item_rule import content_tokens, definition_lines, is_rendered
from ctxviewer.tokens.request_accounting import count_request
from tests.shared_data import CORPUS, needs_corpus

PARALLEL = CORPUS / "provider-api" / "openai" / "chat-completions-parallel-tool-calls.extracted.json"
TOOL_RESULT = CORPUS / "provider-api" / "anthropic" / "messages-tool-result-in-history.extracted.json"
WEATHER_DEF = ('{"type":"function","function":{"name":"get_weather","description":"finds the weather for a given '
               'city","parameters":{"type":"object","properties":{"city":{"type":"string","description":'
               '"The city to find the weather for, e.g. \'London\'"}},"required":["city"]}}}')


def test_a_definition_counts_its_name_description_and_property_lines() -> None:
    assert definition_lines("get_weather", "finds the weather.", {"properties": {"city": {
        "type": "string", "description": "The city.", "enum": ["Paris", "Rome"]}}}) == [
        "get_weather:finds the weather", "Paris", "Rome", "city:string:The city"]
    want = count_tokens("get_weather:finds the weather for a given city", "o200k_base") + count_tokens(
        "city:string:The city to find the weather for, e.g. 'London'", "o200k_base")
    assert content_tokens(WEATHER_DEF, "o200k_base", definition=True) == want == 27
    assert content_tokens(WEATHER_DEF, "o200k_base") == count_tokens(WEATHER_DEF, "o200k_base") == 61


def test_stored_tool_call_lines_count_name_and_arguments_and_the_other_lines_as_text() -> None:
    text = ('Looking it up.\n{"type":"tool_call","id":"c1","name":"get_weather","arguments":{"city":"New York"}}\n'
            '{"type":"tool_call","id":"c2","name":"get_population","arguments":"{\\"city\\": \\"Rome\\"}"}')
    want = sum(count_tokens(t, "o200k_base") for t in (
        "Looking it up.", "get_weather", '{"city": "New York"}', "get_population", '{"city": "Rome"}'))
    assert is_rendered(text)
    assert content_tokens(text, "o200k_base") == want
    plain = 'a JSON line {"type":"tool_call"} that is not a call'
    assert not is_rendered(plain)
    assert content_tokens(plain, "o200k_base") == count_tokens(plain, "o200k_base")


@needs_corpus
def test_tokens_show_and_check_count_one_openai_request_alike(tmp_path: Path) -> None:
    body = json.loads(PARALLEL.read_text())["interactions"][0]["request"]["body"]
    rc = count_request(body)
    assert (rc.total, rc.content, rc.framing, rc.tools) == (181, 66, 23, 92)
    with TraceStore.create(tmp_path / "o.db") as store:
        import_files([PARALLEL], store, workers=1)
        trace = store.load("chatcmpl-DD5NFnwbig885vzBzWKxq6GtDvWda")
    assert [(i.id, i.tokens) for i in trace.items] == [
        ("msg-0", 18), ("msg-1", 13), ("msg-2", 13), ("msg-3", 13), ("msg-4", 9),
        ("get_weather", 27), ("get_population", 27)]
    assert [i.content for i in rc.items] == [18, 13, 13, 13, 9]
    bd = breakdown(trace)
    assert (bd.total, bd.framing, bd.tool_overhead, bd.reported) == (181, 23, 38, 207)
    gap = [f.message for f in CHECK.run(trace) if f.rule == "accounting.reported_gap"]
    assert gap == ["the provider reported 207 input tokens, counted 181 (o200k_base): 26 tokens above the count "
                   "(tolerance 8): tool schemas or template framing counted differently"]


@needs_corpus
def test_an_anthropic_definition_counts_as_its_json_and_the_tool_prompt_gap_is_explained(tmp_path: Path) -> None:
    with TraceStore.create(tmp_path / "a.db") as store:
        import_files([TOOL_RESULT], store, workers=1)
        trace = store.load("msg_013r8xmbHsaDMebw7MeyGvhH")
    tool = next(i for i in trace.items if i.kind is Kind.TOOL)
    assert tool.tokens == count_tokens(tool.content or "", "cl100k_base") == 85
    gap = [(f.severity.value, f.message) for f in CHECK.run(trace) if f.rule == "accounting.reported_gap"]
    assert gap == [("info", "the provider reported 772 input tokens, counted 212 (cl100k_base (cross-vendor "
                            "estimate)): 560 tokens above the count -- the endpoint sends a prompt of its own with "
                            "its tool definition, which the trace does not hold and no published rule counts")]


def test_a_bad_definition_rule_in_a_profiles_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviewer.tokens import profiles

    f = tmp_path / "p.json"
    f.write_text(json.dumps({"profiles": [{"name": "mine", "patterns": ["mine*"], "tools": {"definition": "xml"}}]}))
    with pytest.raises(profiles.ProfileError, match="profile 'mine': tools.definition must be 'lines' or 'json', not 'xml'"):
        profiles._read(f.read_text(), str(f))
