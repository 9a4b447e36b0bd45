"""Phoenix spans dataframes saved to Parquet (issue 21 item 5: ``px.Client().get_spans_dataframe()``
then ``df.to_parquet()``, or ``TraceDataset.save()``) import through the OpenInference mapping:
the same traces as the same spans exported as OTLP JSON (tests/data/phoenix/rag.otlpv1.json).

Input: tests/data/phoenix/rag.spans-frame.json (the frame's rows, written by make_frame.py), written
to Parquet here with pyarrow, as pandas' ``to_parquet`` stores it (times as timestamps, messages
and documents as lists of structs, absent attributes null)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from ctxviewer.importers import ImportProblem, detect, load_records
from ctxviewer.importers.common.phoenix_frames import flat_attributes, span_document
from ctxviewer.model.trace import RequestTrace

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

DATA = Path(__file__).resolve().parents[1] / "data" / "phoenix"


def _rows() -> list[dict[str, Any]]:
    rows = json.loads((DATA / "rag.spans-frame.json").read_text())
    for r in rows:
        for k in ("start_time", "end_time"):
            r[k] = datetime.fromisoformat(r[k])
    return rows


def _write(tmp: Path, rows: list[dict[str, Any]], name: str = "trace_dataset-1.parquet") -> Path:
    path = tmp / name
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    records = list(load_records(detect(path), path))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def test_a_parquet_spans_frame_gives_the_traces_of_the_otlp_export(tmp_path: Path) -> None:
    path = _write(tmp_path, _rows())
    assert detect(path).name == "openinference"
    [frame], problems = _load(path)
    [otlp], _ = _load(DATA / "rag.otlpv1.json")
    assert problems == []
    assert [(i.id, i.kind.value, i.content) for i in frame.items] == [(i.id, i.kind.value, i.content) for i in otlp.items]
    assert [i.id for i in frame.items] == ["msg-0", "msg-1"]
    assert (frame.usage, frame.response, frame.endpoint, frame.created, frame.session_id, frame.user_id) == \
        (otlp.usage, otlp.response, otlp.endpoint, otlp.created, otlp.session_id, otlp.user_id)
    assert frame.attributes["ctxviewer.documents"] == otlp.attributes["ctxviewer.documents"]
    assert frame.trace_id == otlp.trace_id
    assert "ctxviewer.unmapped" not in frame.attributes


def test_columns_of_neither_kind_are_named_and_missing_values_left_out(tmp_path: Path) -> None:
    rows = _rows()
    for r in rows:
        r["eval.correctness.label"] = "correct" if r["span_kind"] == "LLM" else None
    [t], _ = _load(_write(tmp_path, rows))
    assert t.attributes["ctxviewer.unmapped"] == ("phoenix.eval.correctness.label",)  # named, never lost silently


def test_row_forms_flatten_to_openinference_keys() -> None:
    row = {"attributes.llm": {"token_count": {"prompt": 5}}, "attributes.llm.input_messages":
           [{"message": {"role": "user", "content": "hi"}}, {"message.role": "assistant", "message.content": "yo"}],
           "attributes.tag.tags": ["a", "b"], "attributes.x": float("nan"), "name": "n"}
    assert flat_attributes(row) == {"llm.token_count.prompt": 5, "llm.input_messages.0.message.role": "user",
                                    "llm.input_messages.0.message.content": "hi",
                                    "llm.input_messages.1.message.role": "assistant",
                                    "llm.input_messages.1.message.content": "yo", "tag.tags": ["a", "b"]}
    doc = span_document(dict(row, **{"context.span_id": "s", "context.trace_id": "t", "span_kind": "LLM"}))
    assert doc["context"] == {"trace_id": "t", "span_id": "s"} and doc["span_kind"] == "LLM"


def test_other_parquet_files_are_not_phoenix_frames(tmp_path: Path) -> None:
    path = _write(tmp_path, [{"trace_id": "t", "start_time": "x", "type": "GENERATION", "id": "o"}], "obs.parquet")
    assert detect(path).name != "openinference"


def test_the_frame_saved_as_csv_gives_the_same_traces(tmp_path: Path) -> None:
    """``df.to_csv()``: every value text, lists and objects as their Python repr, the index first."""
    import csv

    rows = _rows()
    columns = ["", *rows[0]]
    path = tmp_path / "spans.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(columns)
        for i, r in enumerate(rows):
            w.writerow([str(i), *("" if v is None else (repr(v) if isinstance(v, (list, dict)) else str(v))
                                  for v in r.values())])
    assert detect(path).name == "openinference"
    [from_csv], problems = _load(path)
    [from_parquet], _ = _load(_write(tmp_path, _rows()))
    assert problems == []
    assert [(i.id, i.content) for i in from_csv.items] == [(i.id, i.content) for i in from_parquet.items]
    assert (from_csv.usage, from_csv.created, from_csv.attributes["ctxviewer.documents"]) == \
        (from_parquet.usage, from_parquet.created, from_parquet.attributes["ctxviewer.documents"])
