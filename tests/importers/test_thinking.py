"""Thinking blocks (issue 27 item 8.2): an Anthropic ``thinking`` block wherever it occurs (OTel
``gen_ai.input.messages`` / ``gen_ai.output.messages``, a provider request, OpenInference) keeps its
thinking text, shown as reasoning and counted as that text only; its signature and a
``redacted_thinking`` block's encrypted data are never text and never counted."""

from __future__ import annotations

import json
from pathlib import Path

from otlp_factories import chat_span, otlp_request, s

from ctxviewer.importers import detect
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.importing import import_files
from ctxviewer.present.answer import answer_lines, response_dict
from ctxviewer.store import TraceStore
from ctxviewer.tokens.counting import count_tokens

THINKING = ("The user wants to know whether 221 is prime. 221 = 13 * 17, so it is not prime. "
            "I should answer briefly and show the factors.")
# the shape Anthropic returns: a base64 signature several hundred characters long
SIGNATURE = ("ErUBCkYIBBgCIkBSmb5ZZnDB0y2W1z9c3HhAlB4g1yGmGJdtBiqzUXfNmKFGyQ8Dn0iUoGJvJfS2aRkTbJFhDk8l"
             "GQm1b4wXyAFmEgwV3kXqYgU3n2Zc8JIaDLgqwS0AhLe5sD0bUSIwQ8N6G6H3zqJmXnWmJ7rA0BuO8D3f1eBJqg") * 5
REDACTED = "EmwKAhgBEgy3va3pzix0LnrdDy0ahTq7Gc0R9wj2ZWKv" * 12


def _import(tmp_path: Path, *spans: dict) -> RequestTrace:
    path = tmp_path / "spans.otlp.json"
    path.write_text(json.dumps(otlp_request(*spans)), encoding="utf-8")
    with TraceStore.create(tmp_path / "t.db") as store:
        assert import_files([path], store).problems == []
        return store.load(store.list()[0].trace_id)


def test_a_thinking_block_counts_as_its_thinking_text_only(tmp_path: Path) -> None:
    assert count_tokens(SIGNATURE, "cl100k_base") > 400  # what counting the block as JSON cost
    msgs = [{"role": "user", "content": [{"type": "text", "text": "Is 221 prime?"}]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": THINKING, "signature": SIGNATURE}]},
            {"role": "assistant", "content": [{"type": "redacted_thinking", "data": REDACTED},
                                              {"type": "text", "text": "No: 221 = 13 x 17."}]},
            {"role": "user", "content": [{"type": "text", "text": "And 223?"}]}]
    out = [{"role": "assistant", "parts": [{"type": "thinking", "thinking": "223 has no factor up to 14.",
                                            "signature": SIGNATURE},
                                           {"type": "text", "content": "Yes, 223 is prime."}]}]
    span = chat_span(messages=msgs, **{"gen_ai.request.model": s("claude-sonnet-4-5"),
                                       "gen_ai.output.messages": s(json.dumps(out))})
    t = _import(tmp_path, span)
    thinking, redacted = t.items[1], t.items[2]
    assert thinking.content == "[reasoning] " + THINKING
    assert thinking.tokens == count_tokens(THINKING, "cl100k_base") == 35
    assert redacted.content == "[reasoning redacted by the provider: encrypted, not shown]\nNo: 221 = 13 x 17."
    assert redacted.tokens == count_tokens("No: 221 = 13 x 17.", "cl100k_base")
    everything = json.dumps([i.content for i in t.items]) + json.dumps(response_dict(t))
    assert SIGNATURE[:24] not in everything and REDACTED[:24] not in everything
    # the answer's thinking is kept apart from its text, and shown
    assert t.response is not None
    assert (t.response.text, t.response.reasoning) == ("Yes, 223 is prime.", "223 has no factor up to 14.")
    assert answer_lines(t)[:4] == [answer_lines(t)[0], "    reasoning (thinking):", "        223 has no factor up to 14.",
                                   "    text:"]
    assert response_dict(t) == {"text": "Yes, 223 is prime.", "finish_reason": None, "model": None, "id": None,
                                "reasoning": "223 has no factor up to 14."}


def test_openinference_corpus_reasoning_is_kept_and_its_signature_is_not(shared: Path) -> None:
    path = shared / "corpus/openinference/spec-examples/llm-spans-md-examples.json"
    traces = {r.response.model: r for r in detect(path).load(path)
              if isinstance(r, RequestTrace) and r.response is not None and r.response.text == "Paris."}
    claude, gpt = traces["claude-opus-4-6"], traces["gpt-5"]
    assert claude.response is not None and gpt.response is not None
    assert claude.response.reasoning == "Let me work through this. The capital of France is..."
    assert gpt.response.reasoning == "User asked for the capital of France...\nThe answer is Paris."
    shown = "\n".join(answer_lines(claude) + answer_lines(gpt))
    assert "EuYBCkQYAiJA" not in shown and "gAAAAA" not in shown
