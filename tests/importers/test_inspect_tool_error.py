"""An Inspect tool message whose ``error`` is set (``ToolCallError {type, message}``, content
``""``): new user, inspect-anthropic-cache-tool-timeout.json showed the tool result as an empty
0-token item "as sent" and the run tree's failed ``bash`` step without its message. Inspect sends
the error in place of the content (Anthropic: ``error.message`` in an ``is_error`` tool_result;
OpenAI-compatible providers: ``"Error: " + error.message``), and the model's answer ("The command
timed out") depends on it.

Input: tests/data/inspect_tool_error/tool-timeout.json (the new user's log, the system message
shortened): model anthropic/claude-sonnet-4-20250514, bash call toolu_01 timed out after 180 s."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.importers import detect
from ctxviewer.importers.formats.inspect_ai import message
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

PATH = Path(__file__).resolve().parents[1] / "data" / "inspect_tool_error" / "tool-timeout.json"
ERROR = {"type": "timeout", "message": "Command timed out after 180 seconds."}


def test_the_tool_error_is_the_tool_result_sent_and_counted(tmp_path: Path) -> None:
    [_first, second] = [r for r in detect(PATH).load(PATH) if isinstance(r, RequestTrace)]
    tool = next(i for i in second.items if i.role == "tool")
    assert (tool.id, tool.content) == ("msg-3", "Command timed out after 180 seconds.")
    with TraceStore.create(tmp_path / "t.db") as store:
        import_files([PATH], store)
        stored = store.load("E1/ctf-7/1/1")
        steps = {s.span.span_id: s.span for s in store.run_steps("E1/ctf-7/1")}
    item = next(i for i in stored.items if i.id == "msg-3")
    assert item.tokens == 8  # counted as sent (it was an empty 0-token item)
    step = steps["tool-toolu_01"]
    assert (step.kind, step.name, step.status, step.status_message) == (
        "tool", "bash", "error", "timeout: Command timed out after 180 seconds.")


def test_openai_compatible_providers_get_the_error_prefixed() -> None:
    m = {"role": "tool", "tool_call_id": "c1", "function": "bash", "content": "", "error": ERROR}
    assert message(m, "openai") == {"role": "tool", "parts": [
        {"type": "tool_call_response", "id": "c1", "response": "Error: Command timed out after 180 seconds.",
         "is_error": True}]}
    assert message(m, "anthropic")["parts"][0]["response"] == "Command timed out after 180 seconds."
    assert message(dict(m, error=None, content="ok"), "openai")["parts"] == [
        {"type": "tool_call_response", "id": "c1", "response": "ok"}]
