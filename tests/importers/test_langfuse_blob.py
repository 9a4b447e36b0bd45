"""Langfuse blob-storage exports (``langfuse-blob``): the legacy layout of ``tests/data/langfuse_blob``
(``traces/``, ``observations/``, ``scores/`` of one window and its run manifest, rows written from
the documented export columns) and the enriched ``observations_v2`` golden, as JSON Lines, JSON,
gzip and Parquet; the join by trace id, de-duplication by id, scores, usage, the account of
unmapped columns, and bad rows named by file and line while the rest loads."""

from __future__ import annotations

import gzip
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from regen import normalise

from ctxviewer.importers import REGISTRY, ImportFailed, ImportProblem
from ctxviewer.importers.formats.langfuse.blob import IMPORTER
from ctxviewer.model.run import RunSpan
from ctxviewer.model.serialize import trace_to_dict
from ctxviewer.model.trace import RequestTrace

DATA = Path(__file__).resolve().parents[1] / "data" / "langfuse_blob"
PROJECT = DATA / "proj-7f3a"
WINDOW = "2026-11-30T10-00-00-000Z"
MANIFEST = PROJECT / "manifests" / f"{WINDOW}.json"
ENRICHED = Path(__file__).resolve().parent / "golden" / "langfuse-blob" / "enriched-observations.jsonl"


def _load(path: Path) -> tuple[list[RequestTrace], list[ImportProblem], list[RunSpan]]:
    runs: list[RunSpan] = []
    records = list(REGISTRY.load(REGISTRY.detect(path), path, runs))
    return ([r for r in records if isinstance(r, RequestTrace)], [r for r in records if isinstance(r, ImportProblem)],
            runs)


def _same_dir(tmp_path: Path) -> Path:
    copy = tmp_path / "proj-7f3a"
    shutil.copytree(PROJECT, copy)
    return copy


def test_the_manifest_imports_the_run_joined_as_its_golden_expectation() -> None:
    """The golden pair beside the layout: every trace, every problem, byte for byte."""
    want = json.loads((DATA / "manifest.expected.json").read_text(encoding="utf-8"))
    got = normalise(MANIFEST)
    assert got == want


def test_a_generation_is_a_trace_with_its_trace_row_scores_usage_and_cost() -> None:
    traces, problems, runs = _load(MANIFEST)
    assert [t.trace_id for t in traces] == ["obs-gen1", "obs-gen2", "obs-gen3"]
    first = traces[0]
    assert first.session_id == "sess-42" and first.user_id == "user-17"  # from the traces/ row, joined by trace_id
    # usage_details: Langfuse keeps cache reads out of input, so normalised input = 96 + 32
    assert (first.usage.input_tokens, first.usage.cached_input_tokens, first.usage.output_tokens) == (128, 32, 18)
    attrs = first.attributes
    assert attrs["langfuse.cost.total"] == pytest.approx(0.00003) and attrs["gen_ai.request.temperature"] == 0.2
    assert first.reserved_output_tokens == 256
    assert attrs["langfuse.trace.tags"] == ("refunds", "tier-1") and attrs["langfuse.promptVersion"] == 3
    assert [c.name for c in first.tool_calls] == ["lookup_order"]  # the output's tool call
    assert [i.id for i in first.items if i.kind.value == "tool"] == ["lookup_order"]  # tool_definitions
    assert [i.content for i in first.items if i.kind.value == "policy"] == [
        "You are the refunds assistant. Be brief."]  # inherited from the AGENT observation's attributes
    assert [(s["name"], s["value"], s["source"]) for s in attrs["ctxviewer.scores"]] == [
        ("helpfulness", 0.8, "langfuse ANNOTATION on trace"), ("tone", "friendly", "langfuse API on observation")]
    assert [(s["name"], s["value"]) for s in traces[1].attributes["ctxviewer.scores"]] == [
        ("helpfulness", 0.8), ("correct", True)]
    assert list(attrs["ctxviewer.unmapped"]) == ["input_price", "output_price", "trace.bookmarked", "trace.metadata",
                                                 "trace.public", "usage_pricing_tier_name"]
    assert [(s.span_id, s.kind, s.parent_id, s.trace_id) for s in runs] == [
        ("obs-agent", "agent", None, None), ("obs-gen1", "generation", "obs-agent", "obs-gen1"),
        ("obs-tool", "tool", "obs-agent", None), ("obs-gen2", "generation", "obs-agent", "obs-gen2"),
        ("obs-gen3", "generation", None, "obs-gen3")]


def test_the_newest_version_of_a_row_wins() -> None:
    """The window file holds obs-gen3 twice (an inclusive boundary): the later ``updated_at`` is kept."""
    traces, _, _ = _load(MANIFEST)
    gen3 = traces[2]
    assert gen3.attributes["otel.status_code"] == "error"
    assert gen3.attributes["otel.status_message"] == "overloaded_error: upstream 529"
    assert gen3.response is not None and gen3.response.text is None  # the stale row's output "stale" is gone


def test_bad_rows_are_named_by_file_and_line_and_the_rest_loads() -> None:
    traces, problems, _ = _load(MANIFEST)
    assert len(traces) == 3
    assert [(p.record, p.dropped) for p in problems] == [
        (f"observations/{WINDOW}.jsonl line 5", 1), (f"observations/{WINDOW}.jsonl line 8", 1),
        (f"scores/{WINDOW}.jsonl line 4", 1)]
    assert problems[0].message.startswith("not JSON:") and problems[1].message == "observations row without a trace_id"
    assert "trace trace-zz, which has no observations in this import" in problems[2].message


def test_a_data_file_reads_its_window_siblings_and_they_defer_to_it() -> None:
    by_manifest = [trace_to_dict(t) for t in _load(MANIFEST)[0]]
    traces, problems, _ = _load(PROJECT / "observations" / f"{WINDOW}.jsonl")
    assert [trace_to_dict(t) for t in traces] == by_manifest
    for table in ("traces", "scores"):
        traces, problems, _ = _load(PROJECT / table / f"{WINDOW}.jsonl")
        assert traces == [] and [(p.record, p.dropped) for p in problems] == [("whole file", 0)]
        assert f"import observations/{WINDOW}.jsonl" in problems[0].message


def test_the_enriched_export_says_what_the_legacy_join_says() -> None:
    """``observations_v2`` rows carry the trace's fields; the calls are the legacy join's, less the
    trace row's own metadata (which the enriched file does not hold)."""
    legacy, _, _ = _load(MANIFEST)
    enriched, problems, _ = _load(ENRICHED)
    assert problems == []

    def comparable(t: RequestTrace) -> dict[str, Any]:
        d = trace_to_dict(t)
        d["attributes"]["ctxviewer.unmapped"] = [k for k in d["attributes"].get("ctxviewer.unmapped", [])
                                                 if k != "trace.metadata"]
        d["attributes"].pop("ctxviewer.scores", None)  # no scores file beside the golden
        return d

    assert [comparable(t) for t in enriched] == [comparable(t) for t in legacy]


def test_json_and_gzip_files_read_as_json_lines(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in ENRICHED.read_text(encoding="utf-8").splitlines()]
    as_json = tmp_path / "observations.json"
    as_json.write_text(json.dumps(rows), encoding="utf-8")
    zipped = tmp_path / "observations.jsonl.gz"
    zipped.write_bytes(gzip.compress(ENRICHED.read_bytes()))
    want = [trace_to_dict(t) for t in _load(ENRICHED)[0]]
    for path in (as_json, zipped):
        assert REGISTRY.detect(path).name == "langfuse-blob"
        assert [trace_to_dict(t) for t in _load(path)[0]] == want


def _parquet(rows: list[dict[str, Any]], path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    # typed as Langfuse writes them: maps for usage / cost / tool definitions, arrays of strings
    types = {"usage_details": pa.map_(pa.string(), pa.int64()), "cost_details": pa.map_(pa.string(), pa.float64()),
             "tool_definitions": pa.map_(pa.string(), pa.string()), "metadata": pa.map_(pa.string(), pa.string()),
             "tool_calls": pa.list_(pa.string()), "tool_call_names": pa.list_(pa.string()), "tags": pa.list_(pa.string())}
    names = list(dict.fromkeys(k for r in rows for k in r))
    columns = {k: [r.get(k) for r in rows] for k in names}
    arrays = {k: pa.array([list(v.items()) if isinstance(v, dict) else v for v in vs], type=types[k])
              if k in types else pa.array(vs) for k, vs in columns.items()}
    pq.write_table(pa.table(arrays), path)


def test_parquet_reads_as_the_same_rows(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in ENRICHED.read_text(encoding="utf-8").splitlines()]
    path = tmp_path / "observations_v2" / "2026-11-30.parquet"
    path.parent.mkdir()
    _parquet(rows, path)
    assert REGISTRY.detect(path).name == "langfuse-blob"
    assert [trace_to_dict(t) for t in _load(path)[0]] == [trace_to_dict(t) for t in _load(ENRICHED)[0]]


def test_parquet_without_the_extra_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [json.loads(line) for line in ENRICHED.read_text(encoding="utf-8").splitlines()]
    path = tmp_path / "observations_v2.parquet"
    _parquet(rows, path)
    for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now raises ImportError
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    assert REGISTRY.detect(path).name == "langfuse-blob"
    with pytest.raises(ImportFailed, match=r"needs pyarrow \(pip install 'ctxviewer\[parquet\]'\)"):
        list(IMPORTER.load(path))


def test_a_listed_file_missing_from_the_manifest_is_named(tmp_path: Path) -> None:
    copy = _same_dir(tmp_path)
    (copy / "scores" / f"{WINDOW}.jsonl").unlink()
    with pytest.raises(ImportFailed, match=rf"lists exports/proj-7f3a/scores/{WINDOW}.jsonl, which is not at"):
        list(IMPORTER.load(copy / "manifests" / f"{WINDOW}.json"))


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**64), st.floats(allow_nan=True),
                    st.text(max_size=12), st.lists(st.text(max_size=4), max_size=3),
                    st.dictionaries(st.text(max_size=6), st.one_of(st.integers(), st.text(max_size=6)), max_size=3))
_COLUMNS = ["id", "trace_id", "type", "parent_observation_id", "start_time", "end_time", "name", "metadata", "level",
            "status_message", "input", "output", "provided_model_name", "model_parameters", "usage_details",
            "cost_details", "total_cost", "tool_calls", "tool_call_names", "tool_definitions", "prompt_version",
            "updated_at", "user_id", "session_id", "tags", "value", "data_type", "string_value", "observation_id"]


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.dictionaries(st.sampled_from(_COLUMNS), _VALUES, max_size=14), min_size=1, max_size=6),
       st.lists(st.sampled_from(["GENERATION", "SPAN", "AGENT", "TOOL"]), min_size=6, max_size=6),
       st.integers(0, 5))
def test_any_rows_load_without_raising_and_every_row_is_kept_or_named(rows: list[dict[str, Any]], types: list[str],
                                                                        cut: int) -> None:
    """Rows of the documented columns with any values (half of them model calls with an id and
    trace id), one line cut short: nothing raises, the import never stops early, and each bad line
    is named by its line."""
    import tempfile

    lines = []
    for i, row in enumerate(rows):
        if i % 2 == 0:
            row = dict(row, id=f"o{i}", trace_id="t1", type=types[i], start_time=f"2026-11-30 10:00:0{i}.000000")
        lines.append(json.dumps(row, default=str))
    if cut < len(lines):
        lines[cut] = lines[cut][: len(lines[cut]) // 2]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "observations" / "w.jsonl"
        path.parent.mkdir()
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        records = list(REGISTRY.load(IMPORTER, path))
    problems = [r for r in records if isinstance(r, ImportProblem)]
    assert all(p.file == str(path) for p in problems)
    assert not any("importer 'langfuse-blob' failed" in p.message for p in problems), problems
    named = {p.record.split(" (")[0] for p in problems}
    for i, line in enumerate(lines, 1):
        try:
            json.loads(line)
        except ValueError:
            assert f"observations/w.jsonl line {i}" in named
