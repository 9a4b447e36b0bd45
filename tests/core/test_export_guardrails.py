"""``ctxviewer export --guardrails``: the offline scanner's verdicts as OpenTelemetry
``apply_guardrail`` spans (ctxviewer.report.guardrail_spans), read back on import as the traces'
runtime guardrail results -- through ``ctxviewer-otlp`` and the generic ``otel`` importer -- where
the ``guardrail`` check finds the runtime guard and the scanner agree."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from ctxviewer.assess.checks.guardrail import CHECK
from ctxviewer.cli import cli
from ctxviewer.importers import get_importer
from ctxviewer.model.guardrail import GuardrailFinding, GuardrailResult
from ctxviewer.model.trace import RequestTrace
from ctxviewer.store import TraceStore

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"


def _export(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "g.otlp.json"
    res = CliRunner().invoke(cli, ["export", str(SAMPLES), "ticket-injection", "-o", str(out), "--guardrails", *extra])
    assert res.exit_code == 0, res.output
    return out


def test_the_scanners_verdicts_are_guardrail_spans_with_finding_events(tmp_path: Path) -> None:
    doc = json.loads(_export(tmp_path).read_text("utf-8"))
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    chat, guards = spans[0], spans[1:]
    assert all(g["parentSpanId"] == chat["spanId"] and g["traceId"] == chat["traceId"] for g in guards)
    by_target = {next(a["value"]["stringValue"] for a in g["attributes"] if a["key"] == "gen_ai.security.target.id"): g
                 for g in guards}
    ticket = by_target["TCK-58213"]
    attrs = {a["key"]: a["value"]["stringValue"] for a in ticket["attributes"]}
    assert attrs == {"gen_ai.operation.name": "apply_guardrail", "gen_ai.guardian.name": "ctxviewer scanner",
                     "gen_ai.security.target.type": "llm_input", "gen_ai.security.target.id": "TCK-58213",
                     "gen_ai.security.decision.type": "warn"}
    assert ticket["name"] == "apply_guardrail ctxviewer scanner llm_input"
    cats = [next(a["value"]["stringValue"] for a in e["attributes"] if a["key"] == "gen_ai.security.risk.category")
            for e in ticket["events"]]
    assert cats == ["injection.override", "injection.tool_request", "injection.hidden", "injection.hidden",
                    "injection.hidden"]
    assert {e["name"] for e in ticket["events"]} == {"gen_ai.security.finding"}
    call = [g for g in guards if any(a["key"] == "gen_ai.security.target.type" and a["value"]["stringValue"] == "tool_call"
                                     for a in g["attributes"])]
    assert len(call) == 1  # the refund the ticket asked for (action linkage)


def _trace(recs: list[object]) -> RequestTrace:
    (t,) = [r for r in recs if isinstance(r, RequestTrace)]
    return t


def test_export_round_trips_through_import_and_the_check_sees_agreement(tmp_path: Path) -> None:
    out = _export(tmp_path)
    with TraceStore.open(SAMPLES) as store:
        original = store.load("ticket-injection")
    back = _trace(list(get_importer("ctxviewer-otlp").load(out)))
    assert back.guardrails and {g.guardian for g in back.guardrails} == {"ctxviewer scanner"}
    assert replace(back, guardrails=()) == original  # everything else exactly as exported
    ticket = next(g for g in back.guardrails if g.target_id == "TCK-58213")
    assert ticket.decision == "warn" and ticket.findings[0] == GuardrailFinding(
        "injection.override", "medium", None, ticket.findings[0].detail)
    assert ticket.findings[0].detail and "Ignore previous instructions" in ticket.findings[0].detail
    assert [f.rule for f in CHECK.run(back) if f.rule == "guardrail.disagree"] == []  # guard and scanner agree
    # the generic OpenTelemetry importer reads the same spans as the chat span's guardrail results
    generic = _trace([r for r in get_importer("otel").load(out)])
    assert {(g.target_id, g.decision) for g in generic.guardrails} == {(g.target_id, g.decision) for g in back.guardrails}


def test_guardrails_need_otlp_and_a_guard_that_allowed_the_ticket_disagrees(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["export", str(SAMPLES), "-o", str(tmp_path / "x.jsonl"), "--format", "native",
                                   "--guardrails"])
    assert res.exit_code == 2 and "--guardrails adds OpenTelemetry spans: it needs --format otlp" in res.output
    with TraceStore.open(SAMPLES) as store:
        t = store.load("ticket-injection")
    allowed = replace(t, guardrails=(GuardrailResult("edge-guard", "llm_input", "TCK-58213", "allow"),))
    (f,) = [f for f in CHECK.run(allowed) if f.rule == "guardrail.disagree"]
    assert f.message.startswith("runtime guard 'edge-guard' let evidence TCK-58213")
