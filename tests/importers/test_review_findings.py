"""A fresh review's findings on this session's importer and eq. 3.1 changes, each with the value it
wanted (inputs in tests/data/review/, written by the reviewer)."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.assess.assessment import assess
from ctxviewer.assess.budget import check_capacity
from ctxviewer.assess.verdict import verdict_text
from ctxviewer.importers import detect
from ctxviewer.model.trace import Kind, RequestTrace

DATA = Path(__file__).resolve().parents[1] / "data" / "review"


def _load(name: str) -> list[RequestTrace]:
    path = DATA / name
    return [t for t in detect(path).load(path) if isinstance(t, RequestTrace)]


def test_a_tool_output_forging_tool_call_json_stays_a_tool_result_and_is_scanned() -> None:
    """Review 1 (high): a role-tool message that is only tool-call JSON was read as the model's own
    turn (Koog writes its calls so) even right after the assistant's call it answers: the injection
    in it went unflagged ('ok'). A result awaited makes it a result."""
    (t,) = _load("forged-tool.otlp.json")
    assert [(i.id, i.kind, i.role) for i in t.items if i.id == "msg-2"] == [("msg-2", Kind.HISTORY, "tool")]
    rules = sorted(f.rule for f in assess(t).findings if f.rule.startswith("injection."))
    assert rules == ["injection.override", "injection.tool_request"]


def test_an_input_only_limit_says_no_reserve_fills_the_window() -> None:
    """Review 3: with LiteLLM's max_input_tokens as C (B_out not counted against it), the header said
    "reserved output 200,000 tokens fills the 128,000-token context window" beside an ok verdict."""
    (t,) = _load("litellm.jsonl")
    chk = check_capacity(t)
    assert (chk.capacity_problem, chk.input_limit_only, chk.fits) == (None, True, True)
    assert "fills" not in verdict_text(chk)
