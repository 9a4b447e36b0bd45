"""Choices after the first are kept, never dropped (ctxviewer.importers.common.choices): OTel GenAI
``gen_ai.output.messages`` holds one message per choice; a second choice proposing a destructive
call was dropped without a word (new user 2026-12-07, F14)."""

from __future__ import annotations

import json
from pathlib import Path

from otlp_factories import chat_span, otlp_request, s

from ctxviewer.assess.trace_header import header_rows
from ctxviewer.importers.contract import ImportProblem
from ctxviewer.importers.formats.otel import IMPORTER

OUTPUT = [{"role": "assistant", "parts": [{"type": "text", "content": "A cat."}], "finish_reason": "stop"},
          {"role": "assistant", "parts": [{"type": "tool_call", "id": "c9", "name": "delete_all_files",
                                           "arguments": {"path": "/"}}], "finish_reason": "tool_calls"}]


def _load(tmp_path: Path, output: list, choices: int | None = 2) -> tuple[list, list[str]]:  # type: ignore[type-arg]
    f = tmp_path / "choices.otlp.json"
    attrs = {"gen_ai.output.messages": s(json.dumps(output))}
    if choices is not None:
        attrs["gen_ai.request.choice.count"] = {"intValue": str(choices)}
    f.write_text(json.dumps(otlp_request(chat_span(**attrs))))
    records = list(IMPORTER.load(f))
    return ([r for r in records if hasattr(r, "trace_id")],
            [r.message for r in records if isinstance(r, ImportProblem)])


def test_the_second_choice_is_kept_and_said(tmp_path: Path) -> None:
    [trace], problems = _load(tmp_path, OUTPUT)
    assert (trace.response.text, trace.response.finish_reason, trace.tool_calls) == ("A cat.", "stop", ())
    assert [dict(c) | {"tool_calls": [dict(t) for t in c["tool_calls"]]}
            for c in trace.attributes["ctxviewer.other_choices"]] == [
        {"choice": 2, "finish_reason": "tool_calls",
         "tool_calls": [{"name": "delete_all_files", "arguments": '{"path":"/"}', "id": "c9"}]}]
    assert problems == [
        "gen_ai.output.messages holds 2 choices: the trace shows choice 1; choice 2 "
        "(finish reason tool_calls; proposes delete_all_files) is kept as ctxviewer.other_choices"]
    assert dict(header_rows(trace))["Choices"] == (
        "choice 1 shown (this trace's response and tool calls)\n"
        'choice 2: delete_all_files({"path":"/"}) -- finish reason tool_calls (not this trace\'s response)')


def test_one_choice_or_one_turns_calls_as_separate_messages_keep_nothing_else(tmp_path: Path) -> None:
    [one], problems = _load(tmp_path, OUTPUT[:1])
    assert "ctxviewer.other_choices" not in one.attributes and problems == [] and "Choices" not in dict(header_rows(one))
    calls = [{"role": "assistant", "parts": [{"type": "tool_call", "id": f"c{n}", "name": f"t{n}", "arguments": {}}]}
             for n in (1, 2)]  # Koog writes each tool call of one turn as its own message
    [koog], problems = _load(tmp_path, calls, choices=None)
    assert [c.name for c in koog.tool_calls] == ["t1", "t2"] and problems == []
    assert "ctxviewer.other_choices" not in koog.attributes


def test_two_choices_of_tool_calls_only_stay_two_choices(tmp_path: Path) -> None:
    """Review rev4 F-7: OpenAI n=2 with tools answers two choices of tool calls only; read as one turn,
    choice 2's delete_all_files was shown as this response's proposal."""
    calls = [{"role": "assistant", "parts": [{"type": "tool_call", "id": i, "name": name, "arguments": {}}],
              "finish_reason": "tool_calls"} for i, name in (("a", "get_weather"), ("b", "delete_all_files"))]
    [trace], problems = _load(tmp_path, calls)  # _load sets gen_ai.request.choice.count 2
    assert [c.name for c in trace.tool_calls] == ["get_weather"]
    assert [c["tool_calls"][0]["name"] for c in trace.attributes["ctxviewer.other_choices"]] == ["delete_all_files"]


def test_the_warning_names_the_sources_own_field() -> None:
    # new user: a LangSmith run list with n=2 (outputs.choices) was warned about gen_ai.output.messages,
    # a key the file does not hold
    from ctxviewer.importers import detect

    path = Path(__file__).resolve().parents[1] / "data" / "langsmith_query" / "two-choices.runs.json"
    problems = [r.message for r in detect(path).load(path) if isinstance(r, ImportProblem)]
    assert problems == ["outputs.choices holds 2 choices: the trace shows choice 1; choice 2 (finish reason length) "
                        "is kept as ctxviewer.other_choices"]


def test_a_provider_exchange_names_its_response_choices(tmp_path: Path) -> None:
    from ctxviewer.importers import detect

    exchange = {"request": {"model": "gpt-4o-mini", "n": 2, "messages": [{"role": "user", "content": "Name a pet."}]},
                "response": {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
                             "choices": [{"index": 0, "message": {"role": "assistant", "content": "A cat."},
                                          "finish_reason": "stop"},
                                         {"index": 1, "message": {"role": "assistant", "content": "A dog."},
                                          "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}}}
    path = tmp_path / "exchange.json"
    path.write_text(json.dumps(exchange), encoding="utf-8")
    importer = detect(path)
    problems = [r.message for r in importer.load(path) if isinstance(r, ImportProblem)]
    assert (importer.name, problems) == ("provider-api", [
        "response.choices holds 2 choices: the trace shows choice 1; choice 2 (finish reason stop) "
        "is kept as ctxviewer.other_choices"])
