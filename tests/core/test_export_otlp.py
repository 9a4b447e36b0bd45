"""``ctxviewer export --format otlp`` (ctxviewer.report.export_otlp) and its round trip through
``ctxviewer import`` (ctxviewer.importers.formats.ctxviewer_otlp): import(export(db)) gives the same traces
back, on every sample trace and on the traces of every corpus file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.importers import get_importer
from ctxviewer.model.serialize import trace_to_dict
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import TraceStore

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"


def _all(db: Path) -> dict[str, dict]:
    with TraceStore.open(db) as store:
        return {r.trace_id: trace_to_dict(store.load(r.trace_id)) for r in store.list(limit=-1)}


def _round_trip(db: Path, tmp_path: Path) -> tuple[dict[str, dict], dict[str, dict], Path]:
    out = tmp_path / "export.otlp.json"
    res = CliRunner().invoke(cli, ["export", str(db), "-o", str(out), "--format", "otlp"])
    assert res.exit_code == 0, res.output
    back = tmp_path / "back.db"
    report = import_into(back, [out])
    assert report.problems == []
    return _all(db), _all(back), out


def test_samples_round_trip(tmp_path: Path) -> None:
    before, after, out = _round_trip(SAMPLES, tmp_path)
    assert len(before) == 9
    assert after == before


def _corpus_files(shared: Path) -> list[Path]:
    return sorted(p for p in (shared / "corpus").rglob("*")
                  if p.is_file() and p.suffix != ".md" and "spec-schemas" not in p.parts)


@pytest.mark.slow
def test_every_corpus_file_round_trips(shared: Path, tmp_path: Path) -> None:
    files = _corpus_files(shared)
    assert len(files) == 41
    done = 0
    for n, f in enumerate(files):
        db = tmp_path / f"c{n}.db"
        if import_into(db, [f]).imported == 0:
            continue  # a file with no model call (the lone execute_tool span) has nothing to export
        sub = tmp_path / f"rt{n}"
        sub.mkdir()
        before, after, _ = _round_trip(db, sub)
        assert after == before, f.name
        done += 1
    assert done == 41  # every trace file of the corpus


def test_export_speaks_current_genai_conventions(tmp_path: Path) -> None:
    out = tmp_path / "one.otlp.json"
    res = CliRunner().invoke(cli, ["export", str(SAMPLES), "budget-8k-over", "-o", str(out)])
    assert res.exit_code == 0 and "exported 1 trace(s)" in res.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    span = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    attrs = {a["key"]: a["value"] for a in span["attributes"]}
    assert span["kind"] == 3 and attrs["gen_ai.operation.name"] == {"stringValue": "chat"}
    with TraceStore.open(SAMPLES) as store:
        t = store.load("budget-8k-over")
    assert attrs["gen_ai.request.model"] == {"stringValue": t.endpoint.model}
    items = json.loads(attrs["ctxviewer.items"]["stringValue"])
    omitted = [i for i in items if i["status"] == "omitted"]
    assert omitted and all(i["omission_reason"] for i in omitted)
    assert [i["id"] for i in items] == [i.id for i in t.items]
    msgs = json.loads(attrs["gen_ai.input.messages"]["stringValue"])
    assert len(msgs) == len([i for i in t.retained if i.kind.value != "tool"])  # omitted items are not sent
    for cat, v in t.budget.items():
        assert attrs[f"ctxviewer.budget.{cat.value}"] == {"intValue": str(v)}
    # any OTel GenAI consumer reads it: the otel importer sees the same model, messages and usage
    traces = [r for r in get_importer("otel").load(out) if isinstance(r, RequestTrace)]
    assert traces[0].endpoint.model == t.endpoint.model
    assert [i.content for i in traces[0].items if i.kind.value != "tool"] == \
        [i.content for i in t.retained if i.kind.value != "tool"]


def test_export_unknown_trace_is_a_clear_error(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["export", str(SAMPLES), "nope", "-o", str(tmp_path / "x.json")])
    assert res.exit_code == 2 and "no trace with id 'nope'" in res.output
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("tid", ["053074667b1113278073667614bb3e19:03491beea3cb073d"])
def test_otel_ids_are_kept(tid: str) -> None:
    from ctxviewer.report.export_otlp import span_ids

    assert span_ids(tid) == ("053074667b1113278073667614bb3e19", "03491beea3cb073d")
    assert len(span_ids("budget-8k")[0]) == 32
