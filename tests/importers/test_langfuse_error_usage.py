"""Langfuse's all-zero usage on a failed generation (new user F8): ``level: ERROR`` with usage
``{input: 0, output: 0}`` (and ``usageDetails`` empty, or all zero) is Langfuse's placeholder for
"nothing reported", so the usage is not recorded -- no "the provider reported 0 input tokens".
A non-zero count on an ERROR call, and zeros on a call that did not fail, stay as reported.

Input: tests/data/langfuse_prompt/error-usage.trace.json (written by hand: a Langfuse UI trace
download with four generations)."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.importers import detect
from ctxviewer.model.trace import RequestTrace, Usage

PATH = Path(__file__).resolve().parents[1] / "data" / "langfuse_prompt" / "error-usage.trace.json"


def _traces() -> dict[str, RequestTrace]:
    return {r.trace_id: r for r in detect(PATH).load(PATH) if isinstance(r, RequestTrace)}


def test_an_error_generation_with_zero_placeholders_has_no_usage_recorded() -> None:
    t = _traces()
    assert t["gen-err-placeholder"].usage == Usage()
    assert t["gen-err-details-zero"].usage == Usage()
    assert t["gen-err-placeholder"].attributes["otel.status_code"] == "error"


def test_reported_counts_and_zeros_on_a_call_that_did_not_fail_are_kept() -> None:
    t = _traces()
    assert (t["gen-err-reported"].usage.input_tokens, t["gen-err-reported"].usage.output_tokens) == (9, 0)
    assert (t["gen-ok-zero-output"].usage.input_tokens, t["gen-ok-zero-output"].usage.output_tokens) == (0, 0)


def test_no_accounting_finding_claims_a_provider_report_of_zero(tmp_path: Path) -> None:
    from ctxviewer.assess.checks import run_checks
    from ctxviewer.pipeline.importing import import_files
    from ctxviewer.store import TraceStore

    with TraceStore.create(tmp_path / "t.db") as store:
        import_files([PATH], store)
        placeholder = store.load("gen-err-placeholder")
        zero_ok = store.load("gen-ok-zero-output")
    assert placeholder.items[0].tokens is not None  # counted, so a reported count would be compared
    assert [f.rule for f in run_checks(placeholder) if f.rule.startswith("accounting.")] == []
    assert [f.rule for f in run_checks(zero_ok) if f.rule.startswith("accounting.")] == ["accounting.reported_gap"]
