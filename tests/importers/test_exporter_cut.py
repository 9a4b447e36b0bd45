"""Exporter truncation that still parses (issue 21): Logfire's SDK cut (head + ``...`` + tail,
pydantic/logfire ``truncate_string``) that makes two images one, and Logfire's backend list
``logfire.truncated``. Each is detected, the cut image's placeholder says so, the trace names the
attribute and how it was cut, the import warns, and the ``content.truncated`` finding names it.

Input: tests/data/truncation/logfire-cuts.otlp.json (written by make_inputs.py beside it)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from ctxviewer.assess.checks.truncation import CHECK
from ctxviewer.assess.trace_header import capture_rows
from ctxviewer.importers import ImportProblem, detect, load_records
from ctxviewer.importers.common.exporter_cut import cut_attributes, listed_by_logfire, middle_cut
from ctxviewer.model.trace import RequestTrace
from ctxviewer.tokens.images import size_of_base64
from ctxviewer.tokens.placeholders import ImageRef, split_marked

DATA = Path(__file__).resolve().parents[1] / "data" / "truncation"
MIDDLE_HOW = ("cut in the middle by the exporter ('...' joins the head of one value to the tail of another: "
              "what lay between is not captured)")


def _load() -> tuple[list[RequestTrace], list[ImportProblem]]:
    p = DATA / "logfire-cuts.otlp.json"
    records = list(load_records(detect(p), p))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def logfire_cut(s: str, max_length: int) -> str:
    """Logfire's rule (``truncate_sequence``): the two ends of ``(max_length - 3) // 2`` characters and ``...``."""
    half = (max_length - 3) // 2
    return s if len(s) <= max_length else s[:half] + "..." + s[-half:]


def test_two_images_cut_into_one_are_one_cut_image_and_the_attribute_is_named() -> None:
    (cut, listed), problems = _load()
    [msg] = cut.items
    assert msg.content == "Compare these two charts.\n[image/png blob, 48×36, 7,190 bytes base64, cut by the exporter]"
    assert split_marked(msg.content).images == (ImageRef((48, 36), None),)  # counted as one image, first one's size
    assert cut.attributes["ctxviewer.truncated"] == ("gen_ai.input.messages",)
    assert cut.attributes["ctxviewer.truncated_how"] == (f"gen_ai.input.messages: {MIDDLE_HOW}",)
    assert capture_rows(cut)[0] == ("Content", f"truncated: gen_ai.input.messages: {MIDDLE_HOW}; "
                                               "reported usage exceeds what was captured")
    assert [f.message for f in CHECK.run(cut)] == [
        "the exporter truncated msg-0: stored text (and its token count) is shorter than what was sent; "
        "eq. 3.1 takes the provider-reported input (1,130 tokens)"]
    assert [p.message for p in problems] == [
        f"gen_ai.input.messages: {MIDDLE_HOW}; images and text lost in the cut are not counted, so reported "
        "usage exceeds what was captured",
        "gen_ai.output.messages: shortened by Logfire (listed in logfire.truncated); images and text lost in the "
        "cut are not counted, so reported usage exceeds what was captured"]
    assert [p.record for p in problems] == ["resourceSpans[0].scopeSpans[0].spans[0] span 00000000000000b1",
                                            "resourceSpans[0].scopeSpans[0].spans[1] span 00000000000000b2"]


def test_logfire_truncated_list_names_the_answer_and_is_not_unmapped() -> None:
    (_, listed), _ = _load()
    assert listed.response is not None and listed.response.text == "Sales rose in March, then"
    assert listed.attributes["ctxviewer.truncated"] == ("gen_ai.output.messages",)
    assert "ctxviewer.unmapped" not in listed.attributes
    assert [f.message for f in CHECK.run(listed)] == [
        "the exporter truncated response.text: stored text (and its token count) is shorter than what was sent"]
    assert listed_by_logfire({"logfire.truncated": '["all_messages_events"]'}) == ["all_messages_events"]
    assert cut_attributes({"logfire.truncated": ["all_messages_events"]}, ()) == {"all_messages_events": "logfire"}


def test_the_uncut_messages_hold_two_images() -> None:
    doc = json.loads((DATA / "logfire-cuts.otlp.json").read_text())
    cut = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"][3]["value"]["stringValue"]
    head, _, tail = cut.partition("...")
    assert json.loads(cut)[0]["parts"][1]["content"] == head.split('"content":"')[-1] + "..." + tail.split('"')[0]
    assert size_of_base64(head.split('"content":"')[-1]) == (48, 36)


@given(st.binary(min_size=24, max_size=3000))
def test_whole_base64_is_never_a_cut_and_a_logfire_cut_of_it_is(data: bytes) -> None:
    b64 = base64.b64encode(data).decode()
    assert not middle_cut(b64)
    cut = logfire_cut(b64, len(b64) - 1)
    assert middle_cut(cut) == ((len(b64) - 4) // 2 >= 32)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_prose_with_an_ellipsis_is_not_a_cut(text: str) -> None:
    assert not middle_cut(f"{text} and then... {text}. Wait… what?")
