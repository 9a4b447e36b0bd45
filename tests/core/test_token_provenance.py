"""Token counts with provenance (issue 5 item 3): importers never count; the native importer marks
recorded counts ``recorded``; the import pipeline counts the missing ones through the store's cache
and marks them ``counted`` with the encoding; provenance survives the store, the native format and
``show --json``, and the item table's tokens tooltip says it."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest
from factories import make_trace

import ctxviewer.importers
from ctxviewer.importers import get_importer
from ctxviewer.importers.formats.native import write_jsonl
from ctxviewer.model.trace import ContextItem, Endpoint, Kind, RequestTrace, TokenProvenance, TokenSource
from ctxviewer.pipeline.importing import import_files
from ctxviewer.present.columns import ITEM_COLUMNS, column, item_tokens_tooltip
from ctxviewer.report.trace_report import trace_summary
from ctxviewer.store import TraceStore
from ctxviewer.tokens.item_rule import content_tokens

COUNTED = TokenProvenance(TokenSource.COUNTED, "cl100k_base")
RECORDED = TokenProvenance(TokenSource.RECORDED, "cl100k_base")


@pytest.fixture
def store(tmp_path: Path):
    with TraceStore.create(tmp_path / "traces.db") as s:
        yield s


def _half_recorded() -> RequestTrace:
    """make_trace with the first two counts missing (the application recorded the others)."""
    items = make_trace().items
    bare = tuple(replace(i, tokens=None, tokens_provenance=None) for i in items[:2])
    return make_trace(trace_id="half", items=bare + tuple(replace(i, tokens_provenance=None) for i in items[2:]))


def test_native_recorded_counts_are_recorded_and_missing_ones_counted(tmp_path: Path, store: TraceStore) -> None:
    path = tmp_path / "half.jsonl"
    write_jsonl([_half_recorded()], path)
    raw = [r for r in get_importer("native").load(path) if isinstance(r, RequestTrace)][0]
    assert [i.tokens_provenance for i in raw.items] == [None, None] + [RECORDED] * 5  # importer: no counting
    assert [i.tokens for i in raw.items][:2] == [None, None]
    assert import_files([path], store).imported == 1
    loaded = store.load("half")
    assert [i.tokens for i in loaded.items] == [50, 16, 17, 44, 30, 51, 21]
    assert [i.tokens_provenance for i in loaded.items] == [COUNTED, COUNTED] + [RECORDED] * 5
    items = trace_summary(loaded)["items"]
    assert [(i["tokens_source"], i["tokens_encoding"]) for i in items] == (
        [("counted", "cl100k_base")] * 2 + [("recorded", "cl100k_base")] * 5)


def test_recorded_without_an_encoding_says_the_encoding_is_unknown(tmp_path: Path, store: TraceStore) -> None:
    trace = make_trace(trace_id="noenc", endpoint=Endpoint(model="m"),
                       items=(ContextItem(Kind.USER, "u", "hello world", tokens=2),))
    write_jsonl([trace], tmp_path / "t.jsonl")
    import_files([tmp_path / "t.jsonl"], store)
    (item,) = store.load("noenc").items
    assert item.tokens_provenance == TokenProvenance(TokenSource.RECORDED, None)
    assert item_tokens_tooltip(item) == "2 tokens, recorded"


def test_otel_items_are_counted_by_the_pipeline_not_the_importer(shared: Path, store: TraceStore) -> None:
    path = shared / "corpus/otel-genai/interlingua-raw-openai-v2.otlp.json"
    (raw,) = [r for r in get_importer("otel").load(path) if isinstance(r, RequestTrace)]
    assert [(i.tokens, i.tokens_provenance) for i in raw.items] == [(None, None), (None, None)]
    assert raw.endpoint.encoding is None
    import_files([path], store)
    t = store.load(raw.trace_id)
    # gpt-4o-mini: counted with its own encoding (endpoint profile), the one `ctxviewer tokens` uses
    own = TokenProvenance(TokenSource.COUNTED, "o200k_base")
    assert [(i.id, i.tokens, i.tokens_provenance) for i in t.items] == [("msg-0", 13, own), ("msg-1", 8, own)]
    assert t.endpoint.encoding == "o200k_base"


def test_a_model_without_its_own_tokenizer_offline_is_estimated_and_says_so(store: TraceStore, tmp_path: Path) -> None:
    """Claude's tokenizer is not tiktoken: its counts are estimates (cl100k_base, its profile's),
    and an encoding not available offline is counted with the nearest one, marked the same."""

    base = make_trace()
    blank = tuple(replace(i, tokens=None, tokens_provenance=None) for i in base.items)
    claude = replace(base, trace_id="claude", items=blank, endpoint=Endpoint(provider="anthropic", model="claude-3-5-sonnet"))
    p50k = replace(base, trace_id="p50k", items=blank, endpoint=Endpoint(model="text-davinci-003", encoding="p50k_base"))
    write_jsonl([claude, p50k], tmp_path / "e.jsonl")
    import_files([tmp_path / "e.jsonl"], store)
    estimated = TokenProvenance(TokenSource.ESTIMATED, "cl100k_base")
    for tid, lines in (("claude", False), ("p50k", True)):  # claude's tool rule counts a definition's JSON
        got = store.load(tid)
        assert [(i.tokens, i.tokens_provenance) for i in got.items] == [
            (content_tokens(i.content or "", "cl100k_base", lines and i.kind is Kind.TOOL), estimated)
            for i in base.items]
    assert store.load("p50k").endpoint.encoding == "p50k_base"  # what the application recorded stays
    assert item_tokens_tooltip(replace(base.items[0], tokens=50, tokens_provenance=estimated)) == (
        "50 tokens, estimated with cl100k_base (not the model's tokenizer)")


def test_counted_provenance_round_trips_through_the_native_format(tmp_path: Path, store: TraceStore) -> None:
    import_files([_write(tmp_path / "a.jsonl", _half_recorded())], store)
    first = store.load("half")
    again = tmp_path / "again.jsonl"
    write_jsonl([first], again)
    assert '"tokens_provenance":{"source":"counted","encoding":"cl100k_base"}' in again.read_text(encoding="utf-8")
    (reread,) = list(get_importer("native").load(again))
    assert reread == first  # counted stays counted on re-import, not "recorded"


def _write(path: Path, trace: RequestTrace) -> Path:
    write_jsonl([trace], path)
    return path


def test_item_table_tokens_tooltip() -> None:
    item = make_trace().items[0]
    tip = column(ITEM_COLUMNS, "tokens").tooltip
    assert tip is not None
    assert tip(item) == "50 tokens, recorded (cl100k_base)"
    assert tip(replace(item, tokens_provenance=COUNTED)) == "50 tokens, counted with cl100k_base"
    assert tip(replace(item, tokens_provenance=TokenProvenance(TokenSource.REPORTED))) == (
        "50 tokens, reported by the provider")
    assert tip(replace(item, tokens_provenance=None)) == "50 tokens, source not recorded"
    assert tip(replace(item, tokens=None, tokens_provenance=None)) is None


def test_no_importer_module_counts_tokens() -> None:
    """Importers never count: no module of ``ctxviewer.importers`` imports the tokenizer."""
    pkg = Path(ctxviewer.importers.__file__).parent
    offenders = []
    for path in sorted(pkg.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "tokens":
                offenders.append(str(path.relative_to(pkg)))
            if isinstance(node, ast.Import) and any(a.name.endswith(".tokens") or a.name == "tiktoken" for a in node.names):
                offenders.append(str(path.relative_to(pkg)))
    assert offenders == []
