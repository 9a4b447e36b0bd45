"""Tool-call arguments that are missing, not JSON, or a JSON string (issue 27 item 8.6) are said so
in ``show`` (and the window, which uses the same words) -- never shown as ``{}`` or silently."""

from __future__ import annotations

import json

from factories import make_trace

from ctxviewer.assess.tool_review import review_calls
from ctxviewer.model.trace import Kind, ToolCall
from ctxviewer.present.answer import answer_lines
from ctxviewer.present.tool_arguments import ArgumentsView, arguments_view

TWICE = json.dumps(json.dumps({"order_id": "4471"}))  # '"{\\"order_id\\": \\"4471\\"}"'


def test_each_shape_of_arguments_has_its_heading() -> None:
    assert arguments_view(None) == ArgumentsView("arguments not recorded", None)
    assert arguments_view("") == ArgumentsView("arguments: an empty string, not JSON", None)
    assert arguments_view('{"a": 1') == ArgumentsView("arguments: not valid JSON, shown exactly as sent:", '{"a": 1')
    assert arguments_view(TWICE) == ArgumentsView(
        "arguments: a JSON string encoding JSON (encoded twice), decoded once:", '{\n  "order_id": "4471"\n}', True)
    assert arguments_view('"Paris"') == ArgumentsView("arguments: a JSON string, not an object:", '"Paris"')
    assert arguments_view("[1, 2]").heading == "arguments: a JSON array, not an object:"
    assert arguments_view("42").heading == "arguments: a JSON number, not an object:"
    assert arguments_view("null").heading == "arguments: JSON null, not an object:"
    assert arguments_view('{"city": "Paris"}') == ArgumentsView("arguments:", '{\n  "city": "Paris"\n}', True)
    assert arguments_view("{}") == ArgumentsView("arguments:", "{}", True)  # sent empty: shown as sent


def test_show_says_so_and_the_review_checks_twice_encoded_arguments_decoded() -> None:
    base = make_trace()
    calls = (ToolCall(name="lookup_order", arguments=None, id="c1"),
             ToolCall(name="lookup_order", arguments=TWICE, id="c2"),
             ToolCall(name="lookup_order", arguments='"4471"', id="c3"))
    t = make_trace(tool_calls=calls)
    lines = answer_lines(t)
    at = lines.index("Tool calls proposed (3)")
    got = [ln.strip() for ln in lines[at + 1:] if ln.strip().startswith("arguments")]
    assert got == ["arguments not recorded",
                   "arguments: a JSON string encoding JSON (encoded twice), decoded once:",
                   "arguments: a JSON string, not an object:"]
    assert "{}" not in "\n".join(lines[at:])
    reviews = review_calls(t)
    details = [next(c.detail for c in r.checks if c.name == "arguments_json") for r in reviews]
    assert details == ["arguments not recorded",
                       "arguments are a JSON string encoding JSON (encoded twice); decoded once",
                       "arguments are valid JSON, but a JSON string, not an object"]
    assert any(i.kind is Kind.TOOL for i in base.items)
    schema = {c.name: c for c in reviews[1].checks}["arguments_schema"]
    assert (schema.passed, schema.detail) == (True, "arguments match the tool's parameter schema")
    not_object = {c.name: c for c in reviews[2].checks}["arguments_schema"]
    assert not_object.passed is False and "is not of type 'object'" in not_object.detail
