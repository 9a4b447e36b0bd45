"""The account of every field at the surfaces: ``import --json`` lists per file the source keys not
mapped (with record counts), the plain import names them on stderr, the GUI's import dialog text
says them, and the stored trace keeps its own list (ctxviewer.unmapped)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import TraceStore

REASONING = "corpus/langsmith/langsmith_py_wrap_openai_reasoning.post-patch.json"
STREAM = "corpus/langsmith/langsmith_py_wrap_openai_stream.post-patch.json"


def test_import_json_lists_unmapped_keys_per_file(shared: Path, tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    res = CliRunner().invoke(cli, ["import", str(shared / REASONING), str(shared / STREAM), "-o", str(db), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert [(u["file"].rsplit("/", 1)[-1], u["keys"]) for u in summary["unmapped"]] == [
        ("langsmith_py_wrap_openai_reasoning.post-patch.json",
         {"extra.runtime": 1, "outputs.created": 1, "outputs.object": 1, "serialized": 1}),
        ("langsmith_py_wrap_openai_stream.post-patch.json",
         {"events": 1, "extra.runtime": 1, "inputs.stream_options": 1, "outputs.created": 1, "outputs.object": 1,
          "serialized": 1})]
    assert summary["unmapped"][0]["summary"] == \
        "4 keys not mapped: extra.runtime ×1, outputs.created ×1, outputs.object ×1, serialized ×1"
    with TraceStore.open(db) as store:  # each trace keeps its own list (the Attributes pane shows it)
        assert list(store.load("a8b34ded-ccd2-4fb7-bccb-9cd625066a14").attributes["ctxviewer.unmapped"]) == [
            "extra.runtime", "outputs.created", "outputs.object", "serialized"]


def test_plain_import_notes_unmapped_keys_on_stderr(shared: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["import", str(shared / REASONING), "-o", str(tmp_path / "b.db")])
    assert res.exit_code == 0, res.output
    assert f"note: {shared / REASONING}: 4 keys not mapped: extra.runtime ×1" in res.stderr


def test_import_dialog_text_names_unmapped_keys(shared: Path, tmp_path: Path) -> None:
    pytest.importorskip("PySide6")  # .ci/run's first pass runs without Qt
    from ctxviewer.gui.importer import problems_text

    report = import_into(tmp_path / "c.db", [shared / REASONING], workers=1)
    assert report.problems == []
    assert problems_text(report).splitlines() == [
        "Imported 1 traces from 1 of 1 files.", "",
        "Not mapped (each trace's Attributes pane lists its own, ctxviewer.unmapped):",
        f"{shared / REASONING}: 4 keys not mapped: extra.runtime ×1, outputs.created ×1, outputs.object ×1, serialized ×1"]


def test_import_json_counts_unmapped_keys_of_cassette_provider_api_and_native_files(tmp_path: Path) -> None:
    data = Path(__file__).resolve().parents[1] / "data" / "unmapped"
    files = [data / "anthropic.vcr.yaml", data / "openai-chat.exchange.json", data / "native.jsonl"]
    res = CliRunner().invoke(cli, ["import", *map(str, files), "-o", str(tmp_path / "d.db"), "--json"])
    assert res.exit_code == 0, res.output
    assert {u["file"].rsplit("/", 1)[-1]: u["summary"] for u in json.loads(res.stdout)["unmapped"]} == {
        "anthropic.vcr.yaml": "4 keys not mapped: http.request.headers ×1, http.response.headers ×1, "
                              "http.response.status.message ×1, response.usage.server_tool_use ×1",
        "openai-chat.exchange.json": "3 keys not mapped: http.response.status.message ×1, response.obfuscation ×1, "
                                     "response.usage.completion_tokens_details.accepted_prediction_tokens ×1",
        "native.jsonl": "6 keys not mapped: colour ×1, endpoint.region ×1, extra.runtime ×1, items.N.score ×1, "
                        "items.N.source.page ×1, usage.audio_tokens ×1"}
