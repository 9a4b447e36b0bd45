"""Inspect AI: usage under Inspect's rule (input excludes the cache), scores and targets kept, the
event and sample keys not mapped named -- on the corpus logs and by rule. The condensed
message-pool log is the golden pair inspect_ai/condensed-pool.json."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ctxviewer.importers import ImportProblem, detect, load_records
from ctxviewer.importers.common.field_account import tally
from ctxviewer.importers.formats.inspect_ai import usage
from ctxviewer.model.trace import RequestTrace, Usage

CORPUS = "corpus/other/inspect_ai"


def _traces(path: Path) -> list[RequestTrace]:
    records = list(load_records(detect(path), path))
    assert [r for r in records if isinstance(r, ImportProblem)] == []
    return [r for r in records if isinstance(r, RequestTrace)]


def test_inspect_input_excludes_cache_reads_and_writes() -> None:
    got, rule = usage({"input_tokens": 143, "output_tokens": 10, "total_tokens": 217, "input_tokens_cache_read": 64},
                      "openai")
    assert got == Usage(input_tokens=207, output_tokens=10, cached_input_tokens=64)
    assert rule == "input excludes the cache (Inspect ModelUsage); cache reads and writes added"
    got, _ = usage({"input_tokens": 86, "output_tokens": 5, "input_tokens_cache_read": 17_000,
                    "input_tokens_cache_write": 817}, "anthropic")
    assert got.input_tokens == 17_903
    # an older log whose total says the input already held the cache: kept as it is
    got, rule = usage({"input_tokens": 207, "output_tokens": 10, "total_tokens": 217, "input_tokens_cache_read": 64},
                      "openai")
    assert (got.input_tokens, rule) == (207, "input includes the cache (total = input + output); kept")
    assert usage({"input_tokens": 9, "output_tokens": 1, "input_tokens_cache_read": 0}, "openai") == \
        (Usage(input_tokens=9, output_tokens=1, cached_input_tokens=0), None)


def test_inspect_corpus_scores_targets_and_unmapped_keys(shared: Path) -> None:
    [t] = _traces(shared / CORPUS / "inspect-log-read-sample.eval")
    assert list(t.attributes["ctxviewer.scores"]) == [
        {"name": "match", "value": "C", "source": "inspect scorer", "comment": "Yes"}]
    assert (t.attributes["inspect.target"], t.attributes["inspect.task"]) == (" Yes", "popularity")
    [t] = _traces(shared / CORPUS / "inspect-log-images.json")
    assert list(t.attributes["ctxviewer.scores"]) == [
        {"name": "match", "value": "I", "source": "inspect scorer", "comment": "answer: [Abstract]"}]
    assert list(t.attributes["inspect.target"]) == ["bike", "bicycle"]
    browser = _traces(shared / CORPUS / "inspect-browser-tools-gpt-4o-mini.json")
    assert len(browser) == 5 and browser[-1].attributes["ctxviewer.scores"][0]["value"] == "C"
    assert ["ctxviewer.scores" in t.attributes for t in browser] == [False] * 4 + [True]  # the graded answer's call
    assert tally(t.attributes for t in browser) == Counter({"event.call.response": 5, "sample.store": 5})
    request = json.loads(browser[0].request.content or "")  # the provider request as sent, attachments resolved
    assert (request["model"], request["tools"][0]["function"]["name"]) == ("gpt-4o-mini",
                                                                              "web_browser_go")
    assert not request["messages"][0]["content"].startswith("attachment://")


def test_a_model_graded_scorer_s_call_does_not_take_the_sample_s_scores() -> None:
    """The reviewer's F2: a model-graded scorer's call (``ModelEvent.role`` ``grader``) is a model
    event of the sample after the solver's; the scores belong to the call that gave the answer."""
    from ctxviewer.importers.formats.inspect_ai import calls_of

    def model(role: str | None) -> dict[str, object]:
        ev: dict[str, object] = {"event": "model", "model": "openai/gpt-4o", "input": [{"role": "user", "content": "q"}],
                                 "output": {"choices": [{"message": {"role": "assistant", "content": "a"}}]}}
        if role:
            ev["role"] = role
        return ev

    sample = {"id": 1, "epoch": 1, "events": [model(None), model("grader")],
              "scores": {"model_graded_qa": {"value": "C", "answer": "a"}}}
    calls = list(calls_of(sample, {"eval_id": "e"}))
    assert [("ctxviewer.scores" in c.attributes) for c in calls] == [True, False]
    assert [s["value"] for s in calls[0].attributes["ctxviewer.scores"]] == ["C"]
