"""``stats`` counts model calls: an OTel ``execute_tool`` span imported on its own (it fed no chat
span in its file) is a tool run, not a call (new user nu3 #10: "calls 2, counted input 41" for one
model call). Input: tests/data/otel_vendors/lone-execute-tool.otlp.json (a chat span proposing
``transfer`` and its ``execute_tool`` span, no later chat span)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.pipeline.model_calls import left_out_words, model_calls_filter
from ctxviewer.store import TraceStore

DATA = Path(__file__).resolve().parents[1] / "data" / "otel_vendors" / "lone-execute-tool.otlp.json"


def _db(tmp_path: Path) -> Path:
    db = tmp_path / "t.db"
    result = CliRunner().invoke(cli, ["import", str(DATA), "-o", str(db)])
    assert result.exit_code == 0, result.output
    return db


def test_a_lone_tool_run_is_not_counted_as_a_call(tmp_path: Path) -> None:
    db = _db(tmp_path)
    result = CliRunner().invoke(cli, ["stats", str(db), "--json"])
    assert result.exit_code == 0, result.output
    total = json.loads(result.stdout)["total"]
    assert (total["calls"], total["output_tokens"], total["output_known"]) == (1, 12, 1)  # the chat call alone
    assert result.stderr.strip() == ("note: 1 trace is a tool execution imported on its own (operation "
                                      "execute_tool), no model call: not counted")
    with TraceStore.open(db) as store:
        assert model_calls_filter(store, "") == ("not operation == execute_tool", 1)
        assert model_calls_filter(store, "model ~ gpt") == ("model ~ gpt", 0)  # no tool run among them: unchanged
        assert model_calls_filter(store, "service == bank-bot") == (
            "(service == bank-bot) and not operation == execute_tool", 1)


def test_the_words_for_several() -> None:
    assert left_out_words(0) == ""
    assert left_out_words(3) == ("3 traces are tool executions imported on their own (operation execute_tool), "
                                 "no model call: not counted")
