"""Each sample trace yields exactly its expected findings (issue 9 "done when").

The diagnostics' findings are pinned exactly; the eq. 3.1 (``budget.*``) and injection scanner
(``injection.*``) and endpoint-profile findings are their own modules' to pin, so here they only count toward the
headline state, which must tell the truth for every sample.
"""

from pathlib import Path

import pytest

from ctxviewer.assess.checks import run_checks
from ctxviewer.model.findings import State, worst
from ctxviewer.store import TraceStore

OTHERS = ("budget.", "injection.", "accounting.residual_over_tolerance")
"""Rules of the checks other modules own (eq. 3.1, the injection scanner, the endpoint profile)."""
SAMPLES_DB = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"

EXPECTED = {
    "budget-8k": [],
    "budget-8k-replay": [],
    "budget-8k-over": [],  # budget.over_before_trim (info) only
    "history-16k": [
        # safety margin 0: the provider counts 348 tokens of chat framing the application did not
        # (the reported input over C is budget.over_capacity's)
        ("accounting.count_mismatch", "warning", None, ()),
    ],
    "refund-approval-forgotten": [("commitment.forgotten", "warning", 2, ("turn-01", "turn-03"))],
    "ticket-injection": [("tool.unsafe_blocked", "warning", 5, ("tool:issue_refund",))],
    "policy-missing": [
        ("policy.unavailable", "failure", 1, ("policy", "policy-fallback")),
        ("validation.failed", "failure", 1, ()),
    ],
    "evidence-in-middle": [("evidence.needed_in_middle", "warning", 3, ("KB-1008#p1",))],
    "json-unsupported": [
        ("output.cited_id_not_retained", "failure", 4, ()),
        ("output.value_unsupported", "warning", 4, ("ORD-NW-4511264", "KB-1001")),
        ("validation.failed", "failure", 4, ()),
        ("validation.failed", "failure", 4, ()),
    ],
}


@pytest.fixture(scope="module")
def store():
    return TraceStore.open(SAMPLES_DB)


@pytest.mark.parametrize("trace_id", sorted(EXPECTED))
def test_sample_yields_exactly_its_findings(store, trace_id):
    got = [(f.rule, f.severity.value, f.table_row, f.evidence.item_ids) for f in run_checks(store.load(trace_id))
           if not f.rule.startswith(OTHERS)]
    assert got == EXPECTED[trace_id]


STATES = {
    "budget-8k": State.OK, "budget-8k-replay": State.OK, "budget-8k-over": State.OK,
    "history-16k": State.FAILURE, "refund-approval-forgotten": State.WARNING,
    "ticket-injection": State.WARNING, "policy-missing": State.FAILURE,
    "evidence-in-middle": State.WARNING, "json-unsupported": State.FAILURE,
}


@pytest.mark.parametrize("trace_id", sorted(STATES))
def test_sample_headline_state(store, trace_id):
    assert State.of(worst(run_checks(store.load(trace_id)))) is STATES[trace_id]


def test_sample_evidence_details(store):
    [f] = [f for f in run_checks(store.load("evidence-in-middle")) if not f.rule.startswith(OTHERS)]
    assert f.evidence.positions == (13,)
    assert "evidence 10 of 20 (request position 13, middle band, risk high)" in f.message
    [c] = [f for f in run_checks(store.load("refund-approval-forgotten")) if not f.rule.startswith(OTHERS)]
    turn1 = store.load("refund-approval-forgotten").item("turn-01").content
    assert [turn1[s.start:s.end] for s in c.evidence.spans if s.item_id == "turn-01"] == [
        "A refund requested more than 45 days after delivery, and any refund above 150 USD, needs a "
        "supervisor's approval before it can be issued.",
        "I've recorded your request with the reason you gave, and a supervisor will review it within one "
        "business day.",
        "Until then I can't confirm the refund or a date for it, but you'll get an email either way.",
    ]
    [t] = [f for f in run_checks(store.load("ticket-injection")) if f.rule.startswith("tool.")]
    assert t.evidence.tool_call_ids == ("call_8Qm2vTtZ0rWkH5yNcLd3aPfE",)
    assert t.evidence.fields == ("tool_calls[0].checks[2]", "tool_calls[0].checks[3]", "tool_calls[0].checks[4]")
    out = [f for f in run_checks(store.load("json-unsupported")) if not f.rule.startswith(OTHERS)]
    assert out[0].message == "output cites KB-1021 (cited_ids[2]), which is not in the retained evidence: not in the trace at all"
    assert out[1].message.startswith("answer claims '60', 'Trail Promise'")
