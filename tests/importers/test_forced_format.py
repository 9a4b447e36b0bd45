"""A file forced to the wrong format (finding 9a of the new-user run): the native importer names
only the first few lines that are not JSON and counts the rest in one problem, and a file that
gives no trace under a forced format gets a hint naming the format detection would pick."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import make_trace
from otlp_factories import chat_span, otlp_request

from ctxviewer.importers import ImportProblem, get_importer
from ctxviewer.importers.formats.native import MAX_INVALID_LINES_NOTED, trace_line
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

NAME_EXPECTED = "invalid JSON: Expecting property name enclosed in double quotes"
CORPUS = Path("/work/shared/corpus/otel-genai/interlingua-raw-openai-v2.otlp.json")


@pytest.fixture
def store(tmp_path: Path):
    with TraceStore.create(tmp_path / "traces.db") as s:
        yield s


def _pretty_otlp(tmp_path: Path) -> Path:
    path = tmp_path / "pretty.otlp.json"
    path.write_text(json.dumps(otlp_request(chat_span()), indent=2), encoding="utf-8")
    return path


def test_pretty_printed_otlp_forced_native_names_five_lines_counts_the_rest_and_hints(
        tmp_path: Path, store: TraceStore) -> None:
    path = _pretty_otlp(tmp_path)
    assert len(path.read_text().splitlines()) == 38
    report = import_files([path], store, fmt="native")
    f = str(path)
    assert report.imported == 0
    assert report.problems == [
        ImportProblem(f, "line 1", f"{NAME_EXPECTED} (column 2)"),
        ImportProblem(f, "line 2", "invalid JSON: Extra data (column 18)"),
        ImportProblem(f, "line 3", f"{NAME_EXPECTED} (column 6)"),
        ImportProblem(f, "line 4", "invalid JSON: Extra data (column 19)"),
        ImportProblem(f, "line 5", f"{NAME_EXPECTED} (column 10)"),
        ImportProblem(f, "lines 6 to 38", "\u2026 and 33 more lines of invalid JSON"),
        ImportProblem(f, "whole file", "no traces read with --format native; it looks like otel; try --format otel"),
    ]
    assert MAX_INVALID_LINES_NOTED == 5


def test_corpus_otlp_file_forced_native_gives_seven_problems_not_153(tmp_path: Path, store: TraceStore) -> None:
    if not CORPUS.exists():
        pytest.skip(f"{CORPUS} not available")
    report = import_files([CORPUS], store, fmt="native")
    assert len(CORPUS.read_text(encoding="utf-8").splitlines()) == 153
    assert report.imported == 0 and len(report.problems) == 7
    assert [p.record for p in report.problems] == ["line 1", "line 2", "line 3", "line 4", "line 5",
                                                   "lines 6 to 153", "whole file"]
    assert report.problems[5].message == "\u2026 and 148 more lines of invalid JSON"
    assert report.problems[6].message == "no traces read with --format native; it looks like otel; try --format otel"


def test_one_line_over_the_bound_is_named_as_one_line_and_good_lines_still_load(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    lines = ["{bad"] * 3 + [trace_line(make_trace(trace_id="a"))] + ["{bad"] * 3
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = list(get_importer("native").load(path))
    bad = f"{NAME_EXPECTED} (column 2)"
    assert [r.trace_id for r in records if not isinstance(r, ImportProblem)] == ["a"]
    assert [r for r in records if isinstance(r, ImportProblem)] == [
        *(ImportProblem(str(path), f"line {n}", bad) for n in (1, 2, 3, 5, 6)),
        ImportProblem(str(path), "line 7", "\u2026 and 1 more line of invalid JSON"),
    ]


def test_five_invalid_lines_are_all_named_and_nothing_is_counted(tmp_path: Path) -> None:
    path = tmp_path / "five.jsonl"
    path.write_text("[\n" * 5, encoding="utf-8")
    problems = list(get_importer("native").load(path))
    assert all(isinstance(p, ImportProblem) for p in problems)
    assert [(p.record, p.message) for p in problems if isinstance(p, ImportProblem)] == [
        (f"line {n}", "invalid JSON: Expecting value (column 2)") for n in range(1, 6)]


def test_no_hint_when_the_forced_format_is_what_detection_picks(tmp_path: Path, store: TraceStore) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(trace_line(make_trace(trace_id="a")).replace('"trace_id":"a"', '"trace_id":""') + "\n")
    report = import_files([path], store, fmt="native")
    assert report.problems == [ImportProblem(str(path), "line 1", "trace_id: is required (a non-empty string)")]


def test_a_whole_file_failure_under_a_forced_format_carries_the_hint(tmp_path: Path, store: TraceStore) -> None:
    path = tmp_path / "native.jsonl"
    path.write_text(trace_line(make_trace(trace_id="a")) + "\n", encoding="utf-8")
    report = import_files([path], store, fmt="otel")
    assert report.imported == 0
    assert report.problems == [ImportProblem(
        str(path), "whole file", "not a span container (no resourceSpans, span objects or attribute map); "
                                 "it looks like native; try --format native")]
    assert import_files([path], store).imported == 1  # detected, it imports


def test_detected_format_gets_no_hint_even_when_nothing_imports(tmp_path: Path, store: TraceStore) -> None:
    path = tmp_path / "only-bad.jsonl"
    path.write_text('{"format": "ctxviewer.trace/1", "trace_id": ""}\n', encoding="utf-8")
    report = import_files([path], store)
    assert report.problems == [ImportProblem(str(path), "line 1", "trace_id: is required (a non-empty string)")]
