"""A cost the trace itself records is said beside the list price when the two differ
(reviewer 2026-12-07 item 10: LangGraph's Langfuse export records $0.000075 for a call
genai-prices prices at $0.000300; the header said only the latter)."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

from factories import make_trace

from ctxviewer.assess.trace_header import cost_line
from ctxviewer.model.trace import Usage
from ctxviewer.pipeline.importing import import_files
from ctxviewer.report.trace_report import cost_dict
from ctxviewer.store import TraceStore
from ctxviewer.tokens.recorded_cost import RecordedCost, differs, recorded_cost


def test_the_first_recorded_key_present_wins_and_no_number_is_none() -> None:
    assert recorded_cost({"litellm.response_cost": 0.000225, "promptfoo.cost": 1.0}) == RecordedCost(
        0.000225, "litellm.response_cost")
    assert recorded_cost({"langfuse.cost.total": True}) is None
    assert recorded_cost({"langfuse.cost.total": float("nan"), "gen_ai.cost.total_cost": -1}) is None
    assert recorded_cost({}) is None
    # review 2026-12-07: Langfuse writes 0 for a model it has no price for; a string of a number counts
    assert recorded_cost({"langfuse.cost.total": 0, "litellm.response_cost": "0.0042"}) == RecordedCost(
        0.0042, "litellm.response_cost")
    assert recorded_cost({"langfuse.cost.total": "n/a"}) is None


def test_a_rounding_apart_is_the_same_figure() -> None:
    rec = RecordedCost(0.00208625, "promptfoo.cost")
    assert not differs(rec, Decimal("0.002086250"))
    assert not differs(rec, Decimal("0.00209"))  # 0.2 % apart: the exporter rounded
    assert differs(rec, Decimal("0.0030"))
    assert differs(rec, None)  # the list price not known: the recorded one is said
    assert not differs(RecordedCost(0.0000001, "litellm.response_cost"), Decimal("0.0000004"))  # under a millionth


def test_the_header_and_json_say_the_recorded_cost_of_the_langgraph_trace(shared: Path, tmp_path: Path) -> None:
    db = tmp_path / "lg.db"
    with TraceStore.create(db) as store:
        import_files([shared / "corpus" / "langfuse" / "langgraph-python-2025-08-22.trace.json"], store)
        t = store.load("4f6535aaebcda355")
    line = cost_line(t)
    assert line.startswith("$0.000300 · gpt-4o, genai-prices ")
    assert line.endswith("; the trace records $0.000075 (langfuse.cost.total)")
    d = cost_dict(t)
    assert (d["usd"], d["recorded_usd"], d["recorded_key"]) == (0.0003, 7.5e-05, "langfuse.cost.total")


def test_an_equal_recorded_cost_adds_nothing_and_an_unknown_price_still_says_it() -> None:
    t = make_trace(usage=Usage(input_tokens=1000, output_tokens=100), attributes={"litellm.response_cost": 0.00021})
    assert cost_line(t) == cost_line(replace(t, attributes={}))  # gpt-4o-mini: $0.000150 + $0.000060, as recorded
    assert cost_line(t).startswith("$0.000210 · gpt-4o-mini")
    unknown = replace(t, endpoint=replace(t.endpoint, model="no-such-model-xyz"))
    assert cost_line(unknown).endswith("; the trace records $0.000210 (litellm.response_cost)")
    assert cost_line(unknown).startswith("not known: genai-prices ")
