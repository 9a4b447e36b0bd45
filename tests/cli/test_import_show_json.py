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
    assert d["status"] == {"code": "ok", "message": None, "completeness": "times not recorded"}
    assert [(i["role"], i["text"]) for i in d["items"]] == [("user", "Hello!")]
    code, out = run("show", str(db), "chatcmpl-DD5NFnwbig885vzBzWKxq6GtDvWda", "--json")
    d = json.loads(out)
    assert [(c["name"], c["arguments"], c["id"]) for c in d["tool_calls"]] == [
        ("get_weather", '{"city": "San Francisco"}', "call_S1xa8vawU2HXSrvSeUcqSCZm"),
        ("get_population", '{"city": "San Francisco"}', "call_ZfEORmbRGEJZ4b7dAuVSPnaf")]
    assert [i["role"] for i in d["items"]] == ["assistant", "tool", "tool", "assistant", "user", None, None]
    assert "text" not in d["items"][0]
    assert d["usage"]["cache_creation_input_tokens"] is None  # OpenAI does not report it: null, never 0
