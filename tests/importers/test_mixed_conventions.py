"""One OTLP file with OpenInference and OTel GenAI model-call spans (two services behind one
collector): each importer names the other half and how to import it, counted as left out --
before, "imported 1 trace(s)", exit status 0, the rest gone (new user 2026-12-07, F17)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from otlp_factories import chat_span, otlp_request, otlp_span, s

from ctxviewer.cli import cli

OI = otlp_span("00000000000000b1", name="ChatCompletion", **{
    "openinference.span.kind": s("LLM"), "llm.model_name": s("gpt-4o-mini"),
    "llm.input_messages.0.message.role": s("user"), "llm.input_messages.0.message.content": s("hello")})


def test_each_importer_names_the_other_convention_and_both_runs_hold_every_call(tmp_path: Path) -> None:
    f = tmp_path / "collector.otlp.json"
    f.write_text(json.dumps(otlp_request(chat_span(), chat_span("00000000000000a2"), OI)))
    db = tmp_path / "t.db"
    first = CliRunner().invoke(cli, ["import", str(f), "-o", str(db)])  # detected: openinference (more specific)
    assert first.exit_code == 2
    assert (f"{f}: spans: 2 span(s) are OpenTelemetry GenAI model calls, which the openinference importer does not "
            "read: import this file again with --format otel into the same database to add them") in first.stderr
    second = CliRunner().invoke(cli, ["import", str(f), "-o", str(db), "--format", "otel"])
    assert second.exit_code == 2
    assert (f"{f}: spans: 1 span(s) are OpenInference LLM spans, which the otel importer does not read: "
            "import this file again with --format openinference into the same database to add them") in second.stderr
    rows = json.loads(CliRunner().invoke(cli, ["list", str(db), "--json"]).output)
    assert sorted(r["trace_id"].split(":")[1] for r in rows) == ["00000000000000a1", "00000000000000a2", "00000000000000b1"]


def test_a_file_of_one_convention_says_nothing_more(tmp_path: Path) -> None:
    f = tmp_path / "otel.otlp.json"
    f.write_text(json.dumps(otlp_request(chat_span())))
    res = CliRunner().invoke(cli, ["import", str(f), "-o", str(tmp_path / "o.db")])
    assert res.exit_code == 0 and "convention" not in res.stderr and "span(s) are" not in res.stderr
