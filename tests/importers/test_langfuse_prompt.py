"""Langfuse generations linked to a managed prompt (new user F7): ``promptName`` / ``promptVersion``
are the trace's policy id and version when the call sent a system message; a prompt linked to a
call without one (a text prompt compiled into the user turn) is not made the policy, so the
policy check does not call a required policy missing. The ``langfuse.prompt*`` attributes stay.

Input: tests/data/langfuse_prompt/prompt-link.trace.json (written by hand: a Langfuse UI trace
download ``{trace, observations}``)."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.assess.checks.policy import CHECK
from ctxviewer.importers import detect
from ctxviewer.model.trace import Policy, RequestTrace

DATA = Path(__file__).resolve().parents[1] / "data" / "langfuse_prompt"


def _traces(name: str) -> dict[str, RequestTrace]:
    path = DATA / name
    return {r.trace_id: r for r in detect(path).load(path) if isinstance(r, RequestTrace)}


def test_a_linked_chat_prompt_is_the_policy_id_and_version() -> None:
    t = _traces("prompt-link.trace.json")["gen-chat-prompt"]
    assert t.policy == Policy(id="refund-system", version="7", available=None)
    assert (t.attributes["langfuse.promptName"], t.attributes["langfuse.promptVersion"],
            t.attributes["langfuse.promptId"]) == ("refund-system", 7, "cm-prompt-1")
    assert [f.rule for f in CHECK.run(t)] == []


def test_a_prompt_linked_to_a_call_without_a_system_message_is_not_the_policy() -> None:
    t = _traces("prompt-link.trace.json")["gen-text-prompt"]
    assert t.policy == Policy()
    assert t.attributes["langfuse.promptName"] == "title-text"
    assert [(f.rule, f.severity.value) for f in CHECK.run(t)] == [("policy.missing", "info")]
