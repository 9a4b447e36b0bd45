"""One request, one count: item counts, the accounting breakdown and `ctxviewer tokens` agree
(ctxviewer.tokens.item_rule; new-user finding F13: 181, 223 and 284 tokens for one request)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.assess.breakdown import breakdown
from ctxviewer.assess.checks.accounting import CHECK
from ctxviewer.model.trace import Kind, RequestTrace
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore
from ctxviewer.tokens.counting import count_tokens
from ctxviewer.tokens.item_rule import (
    call_texts,
    content_tokens,
    definition_lines,
    definition_of,
    enum_of,
    is_rendered,
    properties_of,
)
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
    assert gap == ["the provider reported 207 input tokens, counted 181 (o200k_base; 120 in the items + 61 of message "
                   "framing and tool-definition overhead): 26 tokens above the count "
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
                            "estimate); 166 in the items + 46 of message framing and tool-definition overhead): 560 tokens above the count -- the endpoint adds a tool-use system prompt of "
                            "its own with its tool definition (Anthropic documents 159-530 tokens by model) and "
                            "renders the definitions in a form no published rule counts; neither is in the trace")]


def test_a_bad_definition_rule_in_a_profiles_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviewer.tokens import profiles

    f = tmp_path / "p.json"
    f.write_text(json.dumps({"profiles": [{"name": "mine", "patterns": ["mine*"], "tools": {"definition": "xml"}}]}))
    with pytest.raises(profiles.ProfileError, match="profile 'mine': tools.definition must be 'lines' or 'json', not 'xml'"):
        profiles._read(f.read_text(), str(f))


def test_parsed_arguments_count_compact_with_their_non_ascii_text() -> None:
    """Review R4: parsed arguments were re-serialized with ``\\u`` escapes (95 tokens for a request
    ``tokens`` counts at 88): non-ASCII text now counts as itself."""
    line = '{"type":"tool_call","id":"c1","name":"get_weather","arguments":{"city":"Zürich","day":"火曜日"}}'
    assert content_tokens(line, "o200k_base") == (
        count_tokens("get_weather", "o200k_base") + count_tokens('{"city": "Zürich", "day": "火曜日"}', "o200k_base"))
    assert call_texts({"name": "f", "arguments": {"a": "é"}}) == ("f", '{"a": "é"}')


def test_a_definition_of_another_shape_counts_what_it_holds_and_never_raises() -> None:
    """Review R1: a ``properties`` list or string, or a number as ``enum``, raised TypeError in the
    import (traceback, no database)."""
    listed = '{"name":"x","parameters":{"type":"object","properties":["a","b"]}}'
    assert definition_lines(*definition_of(listed)) == ["x:"]
    assert content_tokens(listed, "o200k_base", definition=True) == count_tokens("x:", "o200k_base")
    one = '{"name":"y","parameters":{"properties":{"unit":{"type":"string","enum":7}}}}'
    assert definition_lines(*definition_of(one)) == ["y:", "7", "unit:string:"]
    assert properties_of({"properties": "abc"}) == {} and enum_of({"enum": None}) == []
    assert enum_of({"type": "string"}) is None and enum_of({"enum": ["a", "b"]}) == ["a", "b"]


def _native(tmp_path: Path, model: str, items: list[dict], usage: int | None = None) -> RequestTrace:
    """Import one native trace of ``items`` (kind, id, role, content) sent to ``model``; the stored trace."""
    record = {"format": "ctxviewer.trace/1", "trace_id": "t", "endpoint": {"provider": "x", "model": model},
              "items": [{"status": "retained", "position": k + 1, **it} for k, it in enumerate(items)]}
    if usage is not None:
        record["usage"] = {"input_tokens": usage, "output_tokens": 1}
    src = tmp_path / f"{model}.jsonl"
    src.write_text(json.dumps(record) + "\n")
    with TraceStore.create(tmp_path / f"{model}.db") as store:
        import_files([src], store, workers=1)
        return store.load("t")


PERSON = '{"name":"Alice Example","email":"alice@example.com","department":"Research and Development"}'


def test_a_tool_result_with_a_name_is_text_not_a_definition(tmp_path: Path) -> None:
    """Review R2: a kind-``tool`` item sent under role ``tool`` whose JSON has a ``name`` was counted
    as the definition line "Alice Example:" (3 tokens) and, on claude, cited as "its tool definition"."""
    trace = _native(tmp_path, "gpt-4o", [{"kind": "user", "id": "u", "role": "user", "content": "who?"},
                                         {"kind": "tool", "id": "r1", "role": "tool", "content": PERSON}])
    result = trace.items[1]
    assert not result.is_tool_definition
    from ctxviewer.assess.tool_review import tool_definitions

    assert tool_definitions(trace) == {}  # review S5: no tool named "Alice Example" was offered
    assert result.tokens == count_tokens(PERSON, "o200k_base") == 18
    claude = _native(tmp_path, "claude-sonnet-4-5", [{"kind": "user", "id": "u", "role": "user", "content": "who?"},
                                                     {"kind": "tool", "id": "r1", "role": "tool", "content": PERSON}],
                     usage=400)
    gap = [(f.severity.value, f.message) for f in CHECK.run(claude) if f.rule == "accounting.reported_gap"]
    assert len(gap) == 1 and gap[0][0] == "warning" and "tool-use system prompt" not in gap[0][1]


def test_the_tool_prompt_explains_a_gap_no_larger_than_its_documented_size(tmp_path: Path) -> None:
    """Review R3: on a "json" endpoint every gap above the count was explained as the tool prompt
    (50,000 reported against 64 counted: info)."""
    items = [{"kind": "user", "id": "u", "role": "user", "content": "Weather in Paris?"},
             {"kind": "tool", "id": "get_weather", "content": WEATHER_DEF}]
    near = _native(tmp_path, "claude-sonnet-4-5", items, usage=400)
    far = _native(tmp_path, "claude-3-5-sonnet", items, usage=50_000)
    near_gap = [(f.severity.value, f.message) for f in CHECK.run(near) if f.rule == "accounting.reported_gap"]
    far_gap = [(f.severity.value, f.message) for f in CHECK.run(far) if f.rule == "accounting.reported_gap"]
    assert [s for s, _ in near_gap] == ["info"] and "tool-use system prompt" in near_gap[0][1]
    assert [s for s, _ in far_gap] == ["warning"] and "disagree by more than 3x" in far_gap[0][1]


def test_reasoning_and_tool_calls_in_one_turn_count_by_the_rule(tmp_path: Path) -> None:
    """Review R5: a reasoning label sent the turn down the plain-text path, and its call line
    counted as JSON (32 tokens instead of 14)."""
    call = '{"type":"tool_call","id":"call_abc123def456","name":"get_weather","arguments":{"city":"Paris"}}'
    trace = _native(tmp_path, "o3", [{"kind": "user", "id": "u", "role": "user", "content": "Weather?"},
                                     {"kind": "history", "id": "plain", "role": "assistant", "content": call},
                                     {"kind": "history", "id": "why", "role": "assistant",
                                      "content": "[reasoning] I should look it up.\n" + call}])
    plain, why = trace.items[1].tokens, trace.items[2].tokens
    name_args = count_tokens("get_weather", "o200k_base") + count_tokens('{"city": "Paris"}', "o200k_base")
    assert plain == name_args == 8
    assert why == count_tokens("I should look it up.", "o200k_base") + name_args == 14


def test_a_schema_of_another_shape_imports(tmp_path: Path) -> None:
    """Review R1: ``properties`` as a list ended the import with a traceback and no database."""
    listed = '{"name":"x","parameters":{"type":"object","properties":["a","b"]}}'
    trace = _native(tmp_path, "gpt-4o", [{"kind": "user", "id": "u", "role": "user", "content": "hi"},
                                         {"kind": "tool", "id": "x", "content": listed}])
    assert trace.items[1].tokens == count_tokens("x:", "o200k_base")
