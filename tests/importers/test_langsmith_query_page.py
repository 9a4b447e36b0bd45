"""A saved ``POST /runs/query`` response page (``{"runs": [...], "cursors": {"next": ...}}``, what
langsmith-sdk ``Client._get_cursor_paginated_list`` pages through for ``list_runs``): new user, it
was refused "no LangSmith runs (expected post/patch or run objects with run_type)". Its runs are
read as a run list; a page whose ``cursors.next`` is set says once that more runs exist.

Input: tests/data/langsmith_query/runs-query-page.json (the new user's hand-written page: a
chain with two ChatAnthropic llm runs and a tool run, ``cursors.next`` null)."""

from __future__ import annotations

import json
from pathlib import Path

from ctxviewer.importers import REGISTRY, ImportProblem
from ctxviewer.model.trace import RequestTrace

PAGE = Path(__file__).resolve().parents[1] / "data" / "langsmith_query" / "runs-query-page.json"


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem]]:
    importer = REGISTRY.detect(path)
    assert importer is not None and importer.name == "langsmith"
    records = list(REGISTRY.load(importer, path))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)])


def test_a_runs_query_page_gives_the_llm_runs_like_the_bare_list(tmp_path: Path) -> None:
    traces, problems = _load(PAGE)
    assert [t.trace_id for t in traces] == ["1f0a0000-0000-4000-8000-000000000002", "1f0a0000-0000-4000-8000-000000000004"]
    assert [p.message for p in problems if p.record == "whole file"] == []  # cursors.next is null: the last page
    bare = tmp_path / "runs.json"
    bare.write_text(json.dumps(json.loads(PAGE.read_text(encoding="utf-8"))["runs"]), encoding="utf-8")
    listed, _ = _load(bare)
    assert [(t.trace_id, [(i.id, i.content) for i in t.items], t.usage) for t in traces] == [
        (t.trace_id, [(i.id, i.content) for i in t.items], t.usage) for t in listed]
    assert traces[0].usage is not None and traces[0].usage.input_tokens == 1850


def test_a_page_with_a_next_cursor_says_once_that_more_runs_exist(tmp_path: Path) -> None:
    doc = json.loads(PAGE.read_text(encoding="utf-8"))
    doc["cursors"] = {"next": "eyJvZmZzZXQiOiA0fQ=="}
    p = tmp_path / "page1.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    traces, problems = _load(p)
    assert len(traces) == 2
    assert [(x.record, x.message, x.dropped) for x in problems if x.record == "whole file"] == [
        ("whole file", "a page of POST /runs/query (4 run(s)); cursors.next is set, so more runs exist that this "
                       "file does not hold (not imported)", 0)]
