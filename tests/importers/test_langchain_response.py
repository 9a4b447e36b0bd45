"""LangChain AIMessages as ChatAnthropic writes them (new user F5, F6): the proposed call held both
as a ``tool_use`` content block and in ``tool_calls`` with the same id is one call, and the
``response_metadata`` (``id``, ``model``, ``stop_reason``) is the response's id, model and finish
reason; what of it stays unmapped (``usage``) is named in the field account.

Input: tests/data/langchain_anthropic/runtree.json (written by hand: a LangSmith run tree, chain
root with one ChatAnthropic ``llm`` child)."""

from __future__ import annotations

from pathlib import Path

from factories import imported

from ctxviewer.importers.common.langchain_messages import langchain_message, langchain_response_metadata

DATA = Path(__file__).resolve().parents[1] / "data" / "langchain_anthropic"


_stored = imported


def test_a_tool_use_block_and_its_tool_calls_copy_are_one_call(tmp_path: Path) -> None:
    t = _stored(tmp_path, DATA / "runtree.json")["lc-anth-llm"]
    assert [(c.id, c.name, c.arguments) for c in t.tool_calls] == [("toolu_golden_1", "get_weather", '{"city":"Oslo"}')]


def test_response_metadata_gives_the_response_id_model_and_finish_reason(tmp_path: Path) -> None:
    t = _stored(tmp_path, DATA / "runtree.json")["lc-anth-llm"]
    assert t.response is not None
    assert (t.response.id, t.response.model, t.response.finish_reason) == (
        "msg_golden_1", "claude-3-5-haiku-20241022", "tool_use")
    assert t.response.text == "Looking it up."
    assert (t.usage.input_tokens, t.usage.output_tokens) == (40, 12)
    assert t.attributes["ctxviewer.unmapped"] == ("outputs.generations.0.0.message.kwargs.response_metadata.usage",)


def test_calls_without_ids_or_with_different_ids_are_all_kept() -> None:
    m = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
         "kwargs": {"content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}],
                    "tool_calls": [{"name": "f", "args": {}, "id": "b"}, {"name": "g", "args": {}, "id": None},
                                   {"name": "f", "args": {}, "id": "a"}]}}
    assert [(p["id"], p["name"]) for p in langchain_message(m)["parts"]] == [("a", "f"), ("b", "f"), (None, "g")]


def test_openai_and_gemini_spellings_of_response_metadata() -> None:
    openai = {"type": "ai", "data": {"content": "hi", "response_metadata": {
        "model_name": "gpt-4o-2024-08-06", "finish_reason": "stop", "system_fingerprint": "fp_1", "logprobs": None}}}
    assert langchain_response_metadata(openai, "x.") == (
        {"id": None, "model": "gpt-4o-2024-08-06", "finish_reason": "stop"}, ["x.data.response_metadata.system_fingerprint"])
    assert langchain_response_metadata({"content": "hi"}, "x.") == ({"id": None, "model": None, "finish_reason": None}, [])
