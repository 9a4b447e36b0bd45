"""A spans file and a separate OTLP logs file given to one import are joined by span id:
the calls get their content from the log records and no longer say "not captured"; the records
that joined no span are imported on their own and named in a warning.

Input: tests/data/otel-join/ (collector file exporter, one request per line, a traces and a logs
pipeline) in the shape the opentelemetry-python-contrib openai-v2 instrumentation writes for its
test ``test_chat_completion_tool_calls_with_content`` (semconv <= 1.36 message events: spans
without content, gen_ai.*.message / gen_ai.choice log records with the span's ids; the bodies of
the corpus cassette provider-api/openai/chat-completions-tool-calls-two-turn.otel-contrib), plus
one record of a span the spans file does not hold."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ctxviewer.importers import REGISTRY, ImportProblem
from ctxviewer.model.trace import Kind, RequestTrace
from ctxviewer.pipeline.companion_files import plan
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

DATA = Path(__file__).resolve().parents[1] / "data" / "otel-join"
SPANS, LOGS = DATA / "traces.jsonl", DATA / "logs.jsonl"
FIRST = "4bf92f3577b34da6a3ce929d0e0e4736:00f067aa0ba902b7"
SECOND = "4bf92f3577b34da6a3ce929d0e0e4736:a3ce929d0e0e4737"
LONE = "0af7651916cd43dd8448eb211c80319c:1111111111111111"


def _records(paths: list[Path]) -> list[object]:
    planned, companions = plan(paths, None, REGISTRY)
    assert [p.importer.name for p in planned if p.importer] == ["otel", "otel-logs"]  # spans first, whatever the order
    return [r for p in planned for r in REGISTRY.load(p.importer, p.path, None, companions)]  # type: ignore[arg-type]


def test_the_log_records_content_joins_its_spans() -> None:
    records = _records([LOGS, SPANS])
    traces = {r.trace_id: r for r in records if isinstance(r, RequestTrace)}
    assert list(traces) == [FIRST, SECOND, LONE]
    first, second = traces[FIRST], traces[SECOND]
    assert [(i.kind, i.role, i.content) for i in first.items] == [
        (Kind.POLICY, "system", "You're a helpful assistant."),
        (Kind.USER, "user", "What's the weather in Seattle and San Francisco today?")]
    assert [(c.id, c.arguments) for c in first.tool_calls] == [
        ("call_JpNb8OiAkbIbHzDggfpdDHpi", '{"location": "Seattle, WA"}'),
        ("call_vaFQc3zK6hHTRZKXRI5Eo2cJ", '{"location": "San Francisco, CA"}')]
    assert [(i.kind, i.role) for i in second.items] == [(Kind.POLICY, "system"), (Kind.USER, "user"),
                                                         (Kind.HISTORY, "assistant"), (Kind.HISTORY, "tool"),
                                                         (Kind.HISTORY, "tool")]
    assert [i.content for i in second.items[3:]] == ["50 degrees and raining", "70 degrees and sunny"]
    assert second.response is not None and second.response.text == (
        "Today, the weather in Seattle is 50 degrees and raining, while in San Francisco, it's 70 degrees and sunny.")
    for t in (first, second):  # the span's own facts stay: model, usage; content is no longer "not captured"
        assert t.endpoint.model == "gpt-4o-mini" and t.service == "weather-bot"
        assert "ctxviewer.content" not in t.attributes
    assert (first.usage.input_tokens, second.usage.input_tokens) == (75, 99)  # type: ignore[union-attr]
    problems = [(str(r), r.info) for r in records if isinstance(r, ImportProblem)]
    assert not any("not captured" in p or "no message content" in p for p, _ in problems)
    assert problems == [  # the join is a note (info: nothing wrong); the record that joined no span a warning
        (f"{LOGS}: whole file: 9 log record(s) joined their spans in {SPANS}: their content is on those calls", True),
        (f"{LOGS}: whole file: 1 GenAI log record(s) joined no span of the spans file(s) imported with it "
         "(span 1111111111111111): imported on their own as log-only calls", False)]
    assert traces[LONE].user_request == "And in Porto?"


def test_alone_the_spans_say_not_captured_and_the_logs_import_as_log_only_calls() -> None:
    planned, companions = plan([SPANS], None, REGISTRY)
    assert companions is None
    [spans] = planned
    traces = [r for r in REGISTRY.load(spans.importer, SPANS) if isinstance(r, RequestTrace)]  # type: ignore[arg-type]
    assert [t.attributes.get("ctxviewer.content") for t in traces] == ["not captured", "not captured"]
    logs = [r for r in REGISTRY.load(REGISTRY.get("otel-logs"), LOGS) if isinstance(r, RequestTrace)]
    assert [t.trace_id for t in logs] == [FIRST, SECOND, LONE]


def test_a_folder_holding_both_is_joined_in_one_import(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    for f in (SPANS, LOGS):
        shutil.copy(f, folder / f.name)
    with TraceStore.create(tmp_path / "t.db") as store:
        report = import_files([folder], store)
        assert report.imported == 3 and report.replaced == 0  # the log-only copies of the joined calls are not made
        second = store.load(SECOND)
    assert [i.content for i in second.items if i.role == "tool"] == ["50 degrees and raining", "70 degrees and sunny"]
    assert [p.message.split(":")[0] for p in report.problems if p.file.endswith("logs.jsonl")] == [
        "1 GenAI log record(s) joined no span of the spans file(s) imported with it (span 1111111111111111)"]
    assert [p.message.split(":")[0] for p in report.notes] == [  # a note, not a warning: nothing wrong
        "9 log record(s) joined their spans in " + str(folder / "traces.jsonl")]
    assert [(n["severity"], n["message"].split(":")[0]) for n in report.as_dict()["notes"]] == [  # type: ignore[union-attr]
        ("info", "9 log record(s) joined their spans in " + str(folder / "traces.jsonl"))]


def test_the_cli_and_the_import_dialog_say_the_join_as_a_note(tmp_path: Path) -> None:
    """``ctxviewer import`` prints the join as ``note:`` (nothing wrong, nothing to act on) and the
    record that joined no span as ``warning:``; the GUI's import text says the same."""
    from click.testing import CliRunner

    from ctxviewer.cli import cli

    res = CliRunner().invoke(cli, ["import", str(SPANS), str(LOGS), "-o", str(tmp_path / "c.db")])
    assert res.exit_code == 0, res.output
    lines = [line for line in res.stderr.splitlines() if "joined" in line]
    assert lines == [
        f"warning: {LOGS}: whole file: 1 GenAI log record(s) joined no span of the spans file(s) imported with it "
        "(span 1111111111111111): imported on their own as log-only calls",
        f"note: {LOGS}: whole file: 9 log record(s) joined their spans in {SPANS}: their content is on those calls"]
    pytest.importorskip("PySide6")
    from ctxviewer.gui.importer import problems_text
    from ctxviewer.pipeline.importing import import_into

    text = problems_text(import_into(tmp_path / "g.db", [SPANS, LOGS], workers=1))
    lines = text.splitlines()
    assert lines[lines.index("Notes:") + 1] == (
        f"{LOGS}: whole file: 9 log record(s) joined their spans in {SPANS}: their content is on those calls")
    assert not any("joined their spans" in line for line in lines[:lines.index("Notes:")])  # not among the problems
    assert "1 problems" in text.splitlines()[0]


def test_a_logs_file_whose_records_all_joined_counts_as_imported(tmp_path: Path) -> None:
    """New user nu2 #12: 'imported 1 trace(s) from 1 of 2 file(s)' although the logs file's 3 records
    (botocore Bedrock Converse gen_ai.*.message / gen_ai.choice events) were on the call."""
    data = Path(__file__).resolve().parents[1] / "data" / "log_join"
    with TraceStore.create(tmp_path / "b.db") as store:
        report = import_files([data / "bedrock-converse.otlp.json", data / "bedrock-converse.logs.otlp.json"], store)
    assert (report.imported, report.files, report.files_imported) == (1, 2, 1 + 1)
    assert report.summary() == "imported 1 trace(s) from 2 file(s)"
