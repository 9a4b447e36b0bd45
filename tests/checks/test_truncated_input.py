"""A truncated capture with a reported usage (issue 27 item 8.5): eq. 3.1 checks the
provider-reported input (18,000 tokens), not the count of the truncated text ("input 25"), and
the item says it is truncated."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from factories import make_trace
from otlp_factories import chat_span, i, otlp_request, s

from ctxviewer.assess.assessment import assess
from ctxviewer.assess.budget import TRUNCATED_SOURCE, check_capacity
from ctxviewer.assess.trace_header import numbers_line
from ctxviewer.assess.truncated import truncation
from ctxviewer.model.trace import Kind, RequestTrace, Usage
from ctxviewer.pipeline.importing import import_files
from ctxviewer.present.item_title import item_title
from ctxviewer.report.trace_report import format_trace_text
from ctxviewer.store import TraceQuery, TraceStore

CUT = '[{"role":"user","parts":[{"type":"text","content":"Summarise the attached contract: WHEREAS the parties'


def _imported(tmp_path: Path, **attrs: Any) -> RequestTrace:
    span = chat_span(end="1700000001000000000", **{"gen_ai.request.model": s("gpt-4o"), **attrs})
    path = tmp_path / "spans.otlp.json"
    path.write_text(json.dumps(otlp_request(span)), encoding="utf-8")
    with TraceStore.create(tmp_path / "t.db") as store:
        import_files([path], store)
        return store.load(store.list()[0].trace_id)


def test_a_value_cut_mid_json_with_reported_usage_checks_the_reported_input(tmp_path: Path) -> None:
    t = _imported(tmp_path, **{"gen_ai.input.messages": s(CUT), "gen_ai.usage.input_tokens": i(18000)})
    assert [(it.id, it.tokens) for it in t.items] == [("msg-0", 26)]  # the captured text's count
    chk = check_capacity(t)
    assert (chk.input_tokens, chk.input_source, chk.capacity, chk.margin) == (18000, TRUNCATED_SOURCE, 128000, 110000)
    assert numbers_line(t, chk).startswith(
        "input 18,000 reported by the provider (the captured text is truncated) + reserved output not recorded")
    assert truncation(t).item_ids == ("msg-0",)
    assert item_title(t.items[0], truncated=True) == (
        "msg-0 — user, untrusted, 26 tokens of truncated text (truncated by the exporter), retained")
    a = assess(t)
    assert [(f.rule, f.severity.value, f.message) for f in a.findings if f.rule.startswith(("content", "accounting"))] == [
        ("content.truncated", "warning",
         "the exporter truncated msg-0: stored text (and its token count) is shorter than what was sent; eq. 3.1 "
         "takes the provider-reported input (18,000 tokens)"),
        ("accounting.reported_gap", "info",
         "the provider reported 18,000 input tokens, counted 33 (o200k_base; 26 in the items + 7 of message framing): the exporter truncated msg-0, so the "
         "rest of what was sent is not in the trace (eq. 3.1 takes the reported input)")]
    shown = format_trace_text(t, a)
    assert "truncated by the exporter: msg-0 (their counts are of the captured text only)" in shown


def test_a_truncation_marker_over_capacity_by_the_reported_input(tmp_path: Path) -> None:
    msgs = [{"role": "user", "parts": [{"type": "text", "content": "Read this log: 2025-01-01 boot ...[truncated]"}]}]
    t = _imported(tmp_path, messages=msgs, **{"gen_ai.usage.input_tokens": i(130000)})
    chk = check_capacity(t)
    assert (chk.input_tokens, chk.fits, chk.input_source) == (130000, False, TRUNCATED_SOURCE)
    assert chk.margin == 128000 - 130000


def test_no_reported_usage_or_an_application_count_keeps_the_count(tmp_path: Path) -> None:
    t = _imported(tmp_path, **{"gen_ai.input.messages": s(CUT)})
    chk = check_capacity(t)
    assert (chk.input_tokens, chk.input_source) == (26, "sum of the retained items")  # nothing better known
    base = make_trace()
    cut = replace(base, items=tuple(replace(it, content=(it.content or "") + " …[truncated]")
                                    if it.kind is Kind.USER else it for it in base.items),
                  usage=Usage(input_tokens=6_000))
    assert (check_capacity(cut).input_tokens, check_capacity(cut).input_source) == (6_000, TRUNCATED_SOURCE)
    assert check_capacity(base).input_source == "sum of the retained items"  # not truncated
    app = replace(cut, input_tokens=2_500)  # the application counted what it sent: that count stands
    assert (check_capacity(app).input_tokens, check_capacity(app).input_source) == (2_500, "counted by the application")


def test_a_span_without_captured_content_checks_the_reported_input_never_0(tmp_path: Path) -> None:
    """OTel content capture is opt-in: a chat span with usage only has no items to sum. eq. 3.1
    checked "input 0" against the whole window (a false 128,000-token margin; list, filters and
    stats said 0); it takes the provider-reported input, or says it cannot check without one."""
    from ctxviewer.assess.input_source import NOT_CAPTURED_SOURCE

    span = chat_span(end="1700000001000000000", **{"gen_ai.request.model": s("gpt-4o"),
                                                   "gen_ai.usage.input_tokens": i(1200), "gen_ai.usage.output_tokens": i(80)})
    span["attributes"] = [a for a in span["attributes"] if a["key"] != "gen_ai.input.messages"]  # capture off
    path = tmp_path / "usage-only.otlp.json"
    path.write_text(json.dumps(otlp_request(span)), encoding="utf-8")
    with TraceStore.create(tmp_path / "t.db") as store:
        import_files([path], store)
        t = store.load(store.list()[0].trace_id)
    assert t.attributes["ctxviewer.content"] == "not captured" and t.retained == ()
    chk = check_capacity(t)
    assert (chk.input_tokens, chk.input_source, chk.capacity, chk.margin, chk.fits) == (
        1200, NOT_CAPTURED_SOURCE, 128000, 126800, True)
    with TraceStore.open(tmp_path / "t.db") as store:
        (row,) = store.list()
        assert (row.input_tokens, row.margin) == (1200, 126800)  # what list, filters and stats read
        assert [r.trace_id for r in store.list(TraceQuery(text="input > 1000"))] == [row.trace_id]
    bare = replace(t, usage=Usage())
    chk = check_capacity(bare)
    assert (chk.input_tokens, chk.margin, chk.fits) == (None, None, None)  # not known, not 0
    assert [(f.rule, f.message) for f in assess(bare).findings if f.rule.startswith("budget")] == [
        ("budget.not_checked", "eq. 3.1 cannot be checked: input tokens not recorded")]


def test_messages_that_could_not_be_read_are_not_a_request_sent_without_a_policy(tmp_path: Path) -> None:
    """``gen_ai.input.messages`` cut mid-JSON (kept as raw text holding a system message) or not
    JSON at all: what was sent is not known, so "no policy (system instructions) was sent" (Table 3.1
    row 1) is not claimed; a value not readable at all is content not captured, with its reason."""
    cut = _imported(tmp_path, **{"gen_ai.input.messages": s('[{"role": "system", "parts": [{"type": "text", '
                                                              '"content": "You are a bank assistant"}]}, {"role"'),
                                 "gen_ai.usage.input_tokens": i(1200)})
    assert [f.rule for f in assess(cut).findings if f.rule.startswith("policy")] == []
    (tmp_path / "g").mkdir()
    garbled = _imported(tmp_path / "g", **{"gen_ai.input.messages": s("not json"), "gen_ai.usage.input_tokens": i(50)})
    assert garbled.attributes["ctxviewer.content"] == "not captured" and garbled.items == ()
    assert garbled.attributes["ctxviewer.content_note"] == (
        "gen_ai.input.messages: recorded but not readable as messages; usage and metadata only")
    (tmp_path / "h").mkdir()  # review item 8: no usage either is not "usage and metadata only"
    bare = _imported(tmp_path / "h", **{"gen_ai.input.messages": s("not json")})
    assert bare.attributes["ctxviewer.content_note"] == (
        "gen_ai.input.messages: recorded but not readable as messages; metadata only, no usage")
    a = assess(garbled)
    assert [f.rule for f in a.findings if f.rule.startswith("policy")] == []
    assert check_capacity(garbled).input_tokens == 50  # the reported input, not the 0 of no items
