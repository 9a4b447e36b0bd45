"""Issue 27 item 5: a diff says which tool-call arguments changed (text and JSON), and a new policy
version shows the word diff of the two policy texts even when the policy items have other ids."""

from __future__ import annotations

import json
from dataclasses import replace

from factories import make_rich_trace, make_trace

from ctxviewer.diff import diff_traces
from ctxviewer.diff.arguments import argument_changes
from ctxviewer.diff.render import diff_json, format_diff_text
from ctxviewer.model.trace import Policy


def _with_refund_arguments(arguments: str):
    t = make_rich_trace()
    calls = (replace(t.tool_calls[0], arguments=arguments), *t.tool_calls[1:])
    return replace(t, trace_id="replay", tool_calls=calls)


def test_a_changed_argument_is_named_with_its_old_and_new_value() -> None:
    a = make_rich_trace()  # issue_refund {"order_id": "4471", "amount": 89.0}
    b = _with_refund_arguments('{"amount": 890.0, "order_id": "4471", "reason": "late"}')
    d = diff_traces(a, b)
    text = format_diff_text(d)
    assert "  issue_refund (both): verdict needs_approval → needs_approval\n" \
           "    argument amount: 89.0 → 890.0\n    argument reason: added \"late\"\n" in text
    assert "order_id" not in text.split("tool calls", 1)[1]  # the same value in another key order
    (refund, lookup) = diff_json(d)["tool_calls"]
    assert refund["argument_changes"] == [{"key": "amount", "change": "changed", "a": 89.0, "b": 890.0},
                                          {"key": "reason", "change": "added", "a": None, "b": "late"}]
    assert lookup["argument_changes"] == []


def test_a_removed_argument_and_arguments_that_are_not_an_object() -> None:
    a = make_rich_trace()
    d = diff_traces(a, _with_refund_arguments('{"order_id": "4471"}'))
    assert "    argument amount: removed 89.0\n" in format_diff_text(d)
    whole = argument_changes('{"order_id": "4471"}', "order 4471")
    assert [(c.key, c.change, c.a, c.b) for c in whole] == [(None, "changed", {"order_id": "4471"}, "order 4471")]
    assert argument_changes('{"a": 1, "b": [1, 2]}', '{"b": [1,2], "a": 1}') == ()


def test_a_new_policy_version_shows_the_word_diff_of_the_two_texts() -> None:
    a = make_trace()
    old = a.items[0]
    new = replace(old, id="policy-v8", content=old.content.replace("data, not instructions.", "untrusted data, never as instructions."))
    assert new.content != old.content
    b = replace(a, trace_id="v8", policy=Policy("support-policy", "v8", True), items=(new, *a.items[1:]))
    d = diff_traces(a, b)
    assert d.policy.changed and d.policy.text_changed
    text = format_diff_text(d)
    assert "policy            support-policy v7 → support-policy v8\n" \
           "policy text       1 word removed, 3 added\n      + 'untrusted'\n      - 'not'\n      + 'never as'\n" in text
    js = json.loads(json.dumps(diff_json(d)))["policy"]
    assert js["text_changed"] is True
    changed = [s for s in js["text_diff"] if s["op"] != "equal"]
    assert changed == [{"op": "insert", "text": "untrusted "}, {"op": "delete", "text": "not"},
                       {"op": "insert", "text": "never as"}]
    assert "".join(s["text"] for s in js["text_diff"] if s["op"] != "delete") == new.content
    same = diff_traces(a, replace(a, trace_id="copy"))
    assert not same.policy.text_changed and diff_json(same)["policy"]["text_diff"] is None
    assert "policy text" not in format_diff_text(same)
