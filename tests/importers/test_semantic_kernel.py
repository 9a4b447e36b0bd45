"""Semantic Kernel's model-call spans: its singular finish reason, and the switch its content note names.

Input: tests/data/otel_vendors/semantic-kernel-finish-reason.otlp.json, built from the documented
shapes with content capture off (no ``gen_ai.content.*`` events):
* a Python span (scope ``semantic_kernel.utils.telemetry.model_diagnostics.decorators``): SK joins
  ``str(finish_reason)`` of each choice, here the enum's repr ``"FinishReason.LENGTH"``
  (``_set_completion_response``), 64 output tokens of B_out 64;
* a .NET span (``ActivitySource`` ``Microsoft.SemanticKernel.Diagnostics``): ``'["ToolCalls","Stop"]'``
  (``ModelDiagnostics.SetFinishReasons``).
Before, ``gen_ai.response.finish_reason`` was only named in ``ctxviewer.unmapped``, the finish
reason "not recorded" (so the cut-off answer raised no ``budget.output_exhausted``), and the
content note named OpenTelemetry's switch, which Semantic Kernel does not read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.assess.checks.output_limit import output_exhausted
from ctxviewer.importers import ImportProblem, get_importer
from ctxviewer.importers.common.finish_reasons import first_finish_reason, singular_finish_reason
from ctxviewer.importers.formats.otel.semantic_kernel import is_sk_call
from ctxviewer.model.trace import RequestTrace

PATH = Path(__file__).resolve().parents[1] / "data" / "otel_vendors" / "semantic-kernel-finish-reason.otlp.json"
SK_NOTE = ("no message content captured on this span (Semantic Kernel records it only when "
           "SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE is true, or in .NET the AppContext "
           "switch Microsoft.SemanticKernel.Experimental.GenAI.EnableOTelDiagnosticsSensitive; it is off by default); "
           "usage and metadata only")


def _load() -> tuple[dict[str, RequestTrace], list[str]]:
    records = list(get_importer("otel").load(PATH))
    return ({r.trace_id: r for r in records if isinstance(r, RequestTrace)},
            [r.message for r in records if isinstance(r, ImportProblem)])


def test_the_singular_finish_reason_is_the_response_s_and_not_unmapped() -> None:
    traces, _ = _load()
    py = traces["5c000000000000000000000000000003:5c00000000000031"]
    net = traces["5c000000000000000000000000000004:5c00000000000041"]
    assert py.response is not None and net.response is not None
    assert (py.response.finish_reason, py.response.id, py.response.text) == ("length", "chatcmpl-sk-31", None)
    assert (net.response.finish_reason, net.response.id) == ("ToolCalls", "chatcmpl-sk-41")  # the first choice's
    assert "ctxviewer.unmapped" not in py.attributes and "ctxviewer.unmapped" not in net.attributes
    finding = output_exhausted(py)  # 64 of B_out 64 and "length": the answer is cut off
    assert finding is not None and finding.message == (
        "the response stopped at the reserved output B_out of 64 tokens (finish reason length; "
        "64 output tokens reported): the answer is cut off")


def test_no_content_names_semantic_kernel_s_switch_not_opentelemetry_s() -> None:
    traces, problems = _load()
    assert [t.attributes["ctxviewer.content"] for t in traces.values()] == ["not captured", "not captured"]
    assert problems == [SK_NOTE, SK_NOTE]
    assert not any("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in p for p in problems)


@pytest.mark.parametrize(("value", "expected"), [
    ("stop", "stop"), ("stop,length", "stop"), ("FinishReason.STOP", "stop"),
    ("FinishReason.TOOL_CALLS,FinishReason.STOP", "tool_calls"), ('["Stop","ToolCalls"]', "Stop"),
    ("[Length, Stop]", "Length"), ("None", None), ('["N/A"]', None), ("[]", None), ("", None), (None, None)])
def test_singular_forms_of_python_and_dotnet(value: object, expected: str | None) -> None:
    assert singular_finish_reason(value) == expected


def test_the_semconv_array_wins_over_the_singular() -> None:
    assert first_finish_reason({"gen_ai.response.finish_reasons": ["tool_calls", "stop"],
                                "gen_ai.response.finish_reason": "stop"}) == "tool_calls"
    assert first_finish_reason({"gen_ai.response.finish_reasons": [], "gen_ai.response.finish_reason": "length"}) == "length"
    assert first_finish_reason({}) is None


def test_semantic_kernel_spans_by_operation_or_scope() -> None:
    assert is_sk_call({"gen_ai.operation.name": "text.streaming_completions"}, {})
    assert is_sk_call({"gen_ai.operation.name": "chat"}, {"name": "Microsoft.SemanticKernel.Diagnostics"})
    assert is_sk_call({"gen_ai.operation.name": "chat"}, {"name": "semantic_kernel.connectors.ai.open_ai"})
    assert not is_sk_call({"gen_ai.operation.name": "chat"}, {"name": "opentelemetry.instrumentation.openai_v2"})


def test_a_langfuse_generation_of_a_semantic_kernel_span_reads_it_too() -> None:
    """Langfuse keeps an OTLP span's attributes in ``metadata.attributes``: the same reading."""
    from ctxviewer.importers.common.llm_call import build_trace
    from ctxviewer.importers.formats.langfuse import call_from_observation

    obs = {"id": "g", "traceId": "t", "type": "GENERATION", "startTime": "2025-11-03T10:00:00.000Z",
           "endTime": "2025-11-03T10:00:01.000Z", "model": "gpt-4o", "input": [{"role": "user", "content": "hi"}],
           "output": {"role": "assistant", "content": "Hello"},
           "metadata": {"attributes": {"gen_ai.operation.name": "chat.completions",
                                       "gen_ai.response.finish_reason": "FinishReason.STOP"}}}
    t, _ = build_trace(call_from_observation(obs, {}, {"id": "t"}))
    assert t.response is not None and (t.response.text, t.response.finish_reason) == ("Hello", "stop")
