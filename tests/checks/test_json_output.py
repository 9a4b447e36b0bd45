"""Table 3.1 row 4: JSON output citing ids that were not retained, or values no cited text holds."""

import json

from factories import make_trace

from ctxviewer.assess.checks.json_output import JsonOutputCheck, parse_output
from ctxviewer.model.findings import Severity
from ctxviewer.model.trace import Response


def answer(obj):
    return make_trace(response=Response(text=json.dumps(obj)))


def test_cited_id_not_retained_omitted_and_unknown():
    t = answer({"answer": "Delivery is due on 2026-11-03.", "cited_ids": ["order-4471", "shipping-delays", "KB-9"]})
    got = [(f.rule, f.severity, f.evidence.item_ids, f.message) for f in JsonOutputCheck().run(t)]
    assert got == [
        ("output.cited_id_not_retained", Severity.FAILURE, ("ev-shipping-delays",),
         "output cites shipping-delays (cited_ids[1]), which is not in the retained evidence: omitted (budget)"),
        ("output.cited_id_not_retained", Severity.FAILURE, (),
         "output cites KB-9 (cited_ids[2]), which is not in the retained evidence: not in the trace at all"),
    ]


def test_value_not_in_the_cited_text():
    t = answer({"answer": "It ships with the Gold Express service in 2 days.", "sources": ["order-4471"]})
    [f] = JsonOutputCheck().run(t)
    assert (f.rule, f.severity, f.table_row) == ("output.value_unsupported", Severity.WARNING, 4)
    assert f.message == ("answer claims '2', 'Gold Express', which the cited text (ev-order-4471) does not contain")
    assert f.evidence.positions == (4,)


def test_benign_supported_json_and_prose():
    assert list(JsonOutputCheck().run(answer({"answer": "Carrier estimate: delivery 2026-11-03 via ParcelLine, "
                                                        "tracking PL-88213.", "cited_ids": ["order-4471"]}))) == []
    assert list(JsonOutputCheck().run(make_trace(response=Response(text="Due 3 November [KB-9].")))) == []


def test_parse_output_accepts_a_code_fence_only_around_json():
    assert parse_output('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_output("{not json") is None and parse_output("plain") is None
