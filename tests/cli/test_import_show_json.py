"""``import --json`` (summary object; traces = what the DB holds) and the issue-6 fields of
``show --json`` (normalised usage, response, tool_calls with ids, status, per-item role,
``--content`` text) on real corpus files."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ctxviewer.cli import cli


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout


def test_import_json_counts_distinct_traces(shared: Path, tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    code, out = run("import", str(shared / "corpus/provider-api/anthropic"), "-o", str(db), "--json")
    assert code == 0, out
    summary = json.loads(out)
    # 3 cassettes + their 3 extracted twins: the same 3 calls; the twins replace, with a warning each
    assert (summary["files"], summary["files_imported"], summary["traces"]) == (6, 6, 3)
    assert summary["items"] == 1 + 1 + 4
    assert [w["message"] for w in summary["warnings"]] == [
        "trace id already imported in this run; this record replaces the earlier one"] * 3
    code, listed = run("list", str(db), "--json")
    assert len(json.loads(listed)) == summary["traces"]


def test_show_json_issue6_fields(shared: Path, tmp_path: Path) -> None:
    db = tmp_path / "b.db"
    run("import", str(shared / "corpus/provider-api/anthropic/messages-cache-token-usage.vcr.yaml"),
        str(shared / "corpus/provider-api/openai/chat-completions-parallel-tool-calls.vcr.yaml"), "-o", str(db))
    code, out = run("show", str(db), "msg_01DVteM3nnSHbb43ErkL7NH2", "--json", "--content")
    assert code == 0, out
    d = json.loads(out)
    assert d["usage"] == {"input_tokens": 107, "output_tokens": 21, "cached_input_tokens": 2,
                          "cache_creation_input_tokens": 5, "reasoning_tokens": None}
    assert d["response"] == {"text": "Hi there! How are you doing today? Is there anything I can help you with?",
                             "finish_reason": "end_turn", "model": "claude-3-5-haiku-20241022",
                             "id": "msg_01DVteM3nnSHbb43ErkL7NH2"}
    assert d["status"] == {"code": "ok", "message": None, "completeness": "times not recorded",
                           "warning": None}
    assert [(i["role"], i["text"]) for i in d["items"]] == [("user", "Hello!")]
    code, out = run("show", str(db), "chatcmpl-DD5NFnwbig885vzBzWKxq6GtDvWda", "--json")
    d = json.loads(out)
    assert [(c["name"], c["arguments"], c["id"]) for c in d["tool_calls"]] == [
        ("get_weather", '{"city": "San Francisco"}', "call_S1xa8vawU2HXSrvSeUcqSCZm"),
        ("get_population", '{"city": "San Francisco"}', "call_ZfEORmbRGEJZ4b7dAuVSPnaf")]
    assert [i["role"] for i in d["items"]] == ["assistant", "tool", "tool", "assistant", "user", None, None]
    assert "text" not in d["items"][0]
    assert d["usage"]["cache_creation_input_tokens"] is None  # OpenAI does not report it: null, never 0


def test_show_text_says_span_status_session_and_inheritance(tmp_path: Path) -> None:
    """What the importers keep is shown (GUI header and ``show`` share the assessment's rows): an
    ERROR span with its message, a span that never ended, the session and the system instructions
    inherited from the agent span."""
    from otlp_factories import chat_span, otlp_request, otlp_span, s

    agent = otlp_span("00000000000000f0", name="invoke_agent support", end="1700000009000000000",
                      **{"gen_ai.operation.name": s("invoke_agent"), "gen_ai.conversation.id": s("conv-42"),
                         "gen_ai.system_instructions": s('[{"type":"text","content":"Policy v2."}]')})
    failed = chat_span("00000000000000a1", end="1700000001250000000",
                       status={"code": "STATUS_CODE_ERROR", "message": "429 rate limited"})
    open_span = chat_span("00000000000000a2")
    for sp in (failed, open_span):
        sp["parentSpanId"] = "00000000000000f0"
    src = tmp_path / "spans.otlp.json"
    src.write_text(json.dumps(otlp_request(failed, open_span, agent)))
    db = tmp_path / "s.db"
    assert run("import", str(src), "-o", str(db))[0] == 0
    tid = "0af7651916cd43dd8448eb211c80319c"
    code, out = run("show", str(db), f"{tid}:00000000000000a1")
    assert code == 0, out
    lines = out.splitlines()
    assert "Span        ERROR: 429 rate limited · ended after 1,250 ms" in lines
    assert "Session     conv-42" in lines
    assert "Inherited   system instructions from span invoke_agent support (00000000000000f0)" in lines
    code, out = run("show", str(db), f"{tid}:00000000000000a2")
    assert "Span        status not recorded · NEVER ENDED (no end time recorded)" in out.splitlines()
