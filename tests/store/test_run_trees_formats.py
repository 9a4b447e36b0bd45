"""Run trees of OTel GenAI spans, LangSmith runs and MLflow spans: every step the file held, under
its parent, with the file's durations (ms), status and attributes; model calls naming their trace
with its recorded usage. The corpus OTel files (OpenLLMetry's workflow span and its chat span,
LiteLLM's callback pair) and LangSmith runs are read as the file says; the multi-step shapes the
corpus lacks (an OTel agent with tools, retrieval and an error; a LangSmith chain with retriever,
tools and two model calls; MLflow agents and chains) are golden inputs in tests/data/runs and
tests/importers/golden/mlflow."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from shared_data import needs_corpus

from ctxviewer.cli import cli
from ctxviewer.importers.formats.langsmith_runs import dotted_ids, parent_of
from ctxviewer.pipeline.importing import import_files
from ctxviewer.present.run_tree import build_tree, tree_lines
from ctxviewer.store import TraceStore
from ctxviewer.store.runs import RunStep

pytestmark = needs_corpus

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
DATA = ROOT / "tests" / "data" / "runs"
OTEL_AGENT = DATA / "otel-agent-tools.otlp.json"
LANGSMITH = DATA / "langsmith-agent-thread.post-patch.json"
MLFLOW = ROOT / "tests" / "importers" / "golden" / "mlflow"


def _steps(tmp_path: Path, *files: Path) -> dict[str, dict[str, RunStep]]:
    """Import ``files`` into a new store; ``{run id: {span id: step}}``."""
    db = tmp_path / "runs.db"
    with TraceStore.create(db) as store:
        import_files(list(files), store, workers=1)
    with TraceStore.open(db) as store:
        runs = [r[0] for r in store._conn.execute("SELECT DISTINCT run_id FROM run_spans ORDER BY run_id")]
        return {run: {s.span.span_id: s for s in store.run_steps(run)} for run in runs}


def _otlp_spans(path: Path) -> list[dict[str, Any]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [sp for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for sp in ss["spans"]]


def _attrs(span: dict[str, Any]) -> dict[str, Any]:
    """The span's attributes as the OTLP/JSON file encodes them (``intValue`` as a decimal string -> int)."""
    return {a["key"]: int(v["intValue"]) if "intValue" in v else next(iter(v.values()))
            for a in span.get("attributes", []) for v in [a["value"]]}


def _plain(value: Any) -> Any:
    """A stored (frozen) attribute value as plain JSON types."""
    return json.loads(json.dumps(value))


def _ns_ms(span: dict[str, Any]) -> float:
    return (int(span["endTimeUnixNano"]) - int(span["startTimeUnixNano"])) / 1e6


@pytest.mark.parametrize("name", ["interlingua-openllmetry-openai.otlp.json", "interlingua-litellm-otel-callback.otlp.json",
                                  "interlingua-raw-openai-v2.otlp.json"])
def test_corpus_otel_spans_are_the_run_as_the_file_says(tmp_path: Path, name: str) -> None:
    path = CORPUS / "otel-genai" / name
    spans = _otlp_spans(path)
    (run,) = _steps(tmp_path, path).values()
    assert set(run) == {sp["spanId"] for sp in spans}  # every span, the workflow and raw request too
    for sp in spans:
        step, attrs = run[sp["spanId"]], _attrs(sp)
        assert step.span.parent_id == (sp.get("parentSpanId") or None)
        assert step.span.name == sp["name"]
        assert step.duration_ms == pytest.approx(_ns_ms(sp), abs=1e-3)  # the file's ns, microsecond precision
        if attrs.get("gen_ai.operation.name") == "chat":
            assert step.span.kind == "llm" and step.span.trace_id == f"{sp['traceId']}:{sp['spanId']}"
            assert step.input_tokens == int(attrs["gen_ai.usage.input_tokens"])
            assert step.output_tokens == int(attrs["gen_ai.usage.output_tokens"])
            assert "gen_ai.input.messages" not in step.span.attributes  # the messages live in the trace
        else:
            assert step.span.trace_id is None and step.input_tokens is None
            assert {k: step.span.attributes[k] for k in attrs} == attrs  # every attribute kept, as recorded


def test_openllmetry_workflow_is_the_chat_spans_parent(tmp_path: Path) -> None:
    (run,) = _steps(tmp_path, CORPUS / "otel-genai" / "interlingua-openllmetry-openai.otlp.json").values()
    assert [ln.split(" · ")[:2] for ln in tree_lines(build_tree(list(run.values())))] == [
        ["workflow support_triage.workflow", "31 ms"], ["  llm openai.chat", "26 ms"]]  # traceloop.span.kind workflow


def test_otel_agent_with_tools_retrieval_and_an_error(tmp_path: Path) -> None:
    spans = _otlp_spans(OTEL_AGENT)
    (run,) = _steps(tmp_path, OTEL_AGENT).values()
    assert set(run) == {sp["spanId"] for sp in spans}
    for sp in spans:
        step = run[sp["spanId"]]
        assert (step.span.parent_id, step.span.name) == (sp.get("parentSpanId"), sp["name"])
        assert step.duration_ms == _ns_ms(sp)
    lines = tree_lines(build_tree(list(run.values())))
    assert [ln.split(" · ")[:3] for ln in lines] == [
        ["agent invoke_agent weather", "2,450 ms", "ok"],
        ["  llm chat gpt-4o-mini", "800 ms", "ok"],
        ["  tool execute_tool get_weather", "500 ms", "ok"],
        ["  retriever retrieval forecasts", "85 ms", "ERROR: index forecasts not reachable"],
        ["  llm chat gpt-4o-mini", "985 ms", "ok"]]
    tool = run["a000000000000003"].span.attributes
    assert (tool["gen_ai.tool.call.arguments"], tool["gen_ai.tool.call.result"]) == ('{"city": "Lisbon"}', "sunny, 21 C")
    assert run["a000000000000001"].span.attributes["gen_ai.conversation.id"] == "conv-7"
    second = run["a000000000000005"]
    assert (second.input_tokens, second.output_tokens) == (131, 9)  # input includes the 64 cached (semconv)
    assert second.cost is not None  # priced from the recorded usage


def test_langsmith_chain_retriever_tools_and_llm_runs(tmp_path: Path) -> None:
    doc = json.loads(LANGSMITH.read_text(encoding="utf-8"))
    runs = {r["id"]: dict(r) for r in doc["post"]}
    for p in doc["patch"]:
        runs[p["id"]].update(p)
    trees = _steps(tmp_path, LANGSMITH)
    first, second = "11111111-1111-4111-8111-000000000001", "11111111-1111-4111-8111-000000000007"
    assert sorted(trees) == [first, second]  # one run tree per trace_id
    assert {sid for t in trees.values() for sid in t} == set(runs)
    for rid, r in runs.items():
        step = trees[r["trace_id"]][rid]
        parent = r.get("parent_run_id") or (r["dotted_order"].split(".")[-2].partition("Z")[2]
                                            if "." in r["dotted_order"] else None)
        assert (step.span.kind, step.span.name, step.span.parent_id) == (r["run_type"], r["name"], parent)
        ms = (datetime.fromisoformat(r["end_time"]) - datetime.fromisoformat(r["start_time"])).total_seconds() * 1000
        assert step.duration_ms == pytest.approx(ms, abs=1e-6)
        if r["run_type"] == "llm":
            usage = r["outputs"]["usage_metadata"]
            assert step.span.trace_id == rid
            assert (step.input_tokens, step.output_tokens) == (usage["input_tokens"], usage["output_tokens"])
            assert "inputs" not in step.span.attributes
        else:
            assert step.span.trace_id is None
            assert _plain([step.span.attributes["inputs"], step.span.attributes["outputs"]]) == [r["inputs"], r["outputs"]]
    tool = trees[first]["11111111-1111-4111-8111-000000000004"]
    assert "parent_run_id" not in runs[tool.span.span_id]  # its parent read from dotted_order
    failed = trees[first]["11111111-1111-4111-8111-000000000005"]
    assert (failed.span.status, failed.span.status_message) == ("error", "TimeoutError: SMS gateway did not answer in 50 ms")
    assert [ln.split(" · ")[0] for ln in tree_lines(build_tree(list(trees[first].values())))] == [
        "chain support_turn", "  retriever order_docs", "  llm ChatOpenAI", "  tool lookup_order",
        "  tool notify_customer", "  llm ChatOpenAI"]


@pytest.mark.parametrize("name", ["langsmith_py_wrap_openai.post-patch.json", "langsmith_py_wrap_openai_stream.post-patch.json"])
def test_corpus_langsmith_llm_run_is_a_one_step_tree(tmp_path: Path, name: str) -> None:
    doc = json.loads((CORPUS / "langsmith" / name).read_text(encoding="utf-8"))
    (post,), (patch,) = doc["post"], doc["patch"]
    (run,) = _steps(tmp_path, CORPUS / "langsmith" / name).values()
    (step,) = run.values()
    ms = (datetime.fromisoformat(patch["end_time"]) - datetime.fromisoformat(post["start_time"])).total_seconds() * 1000
    assert (step.span.kind, step.span.name, step.span.parent_id) == ("llm", post["name"], None)
    assert step.duration_ms == pytest.approx(ms, abs=1e-6)
    usage = patch["outputs"]["usage_metadata"]
    assert (step.input_tokens, step.output_tokens) == (usage["input_tokens"], usage["output_tokens"])


def _hex(b64: str) -> str:
    return base64.b64decode(b64).hex()


@pytest.mark.parametrize("name", ["openai-tool-call.trace.json", "v2-retriever-error.trace.json"])
def test_mlflow_spans_are_the_run(tmp_path: Path, name: str) -> None:
    doc = json.loads((MLFLOW / name).read_text(encoding="utf-8"))
    (run,) = _steps(tmp_path, MLFLOW / name).values()
    spans = doc["data"]["spans"]
    assert len(run) == len(spans)
    for sp in spans:
        v3 = "span_id" in sp
        sid = _hex(sp["span_id"]) if v3 else sp["context"]["span_id"][2:]
        parent = (_hex(sp["parent_span_id"]) if sp["parent_span_id"] else None) if v3 else \
            (sp["parent_id"][2:] if sp["parent_id"] else None)
        step = run[sid]
        kind = json.loads(sp["attributes"]["mlflow.spanType"])
        assert (step.span.kind, step.span.name, step.span.parent_id) == (kind.lower(), sp["name"], parent)
        ns = (sp["end_time_unix_nano"] - sp["start_time_unix_nano"]) if v3 else (sp["end_time"] - sp["start_time"])
        assert step.duration_ms == pytest.approx(ns / 1e6, abs=1e-3)
        if kind in ("LLM", "CHAT_MODEL"):
            usage = json.loads(sp["attributes"]["mlflow.chat.tokenUsage"])
            assert step.span.trace_id is not None and step.output_tokens == usage["output_tokens"]
            assert "mlflow.spanInputs" not in step.span.attributes
        else:
            assert step.span.trace_id is None
            assert {k: _plain(step.span.attributes[k]) for k in sp["attributes"] if k != "mlflow.traceRequestId"} == {
                k: json.loads(v) for k, v in sp["attributes"].items() if k != "mlflow.traceRequestId"}
    if name.startswith("v2"):
        llm = next(s for s in run.values() if s.span.trace_id)
        assert llm.span.status == "error"


def test_tree_command_on_langsmith(tmp_path: Path) -> None:
    db = tmp_path / "ls.db"
    with TraceStore.create(db) as store:
        import_files([LANGSMITH], store, workers=1)
    res = CliRunner().invoke(cli, ["tree", str(db), "11111111-1111-4111-8111-000000000006"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("run 11111111-1111-4111-8111-000000000001 · 6 steps · 2 model calls · input 291 · "
                               "output 27 · $")
    assert lines[5] == "  tool notify_customer · 60 ms · ERROR: TimeoutError: SMS gateway did not answer in 50 ms"


@given(st.lists(st.uuids(), min_size=1, max_size=6), st.datetimes(timezones=st.just(timezone.utc)))
def test_dotted_order_names_the_chain_from_the_root(ids: list[Any], when: datetime) -> None:
    """``dotted_order`` = ``{time}Z{run id}`` segments root first (langsmith-sdk run_trees.py): the
    run's parent is the second-last run id, a one-segment order is a root."""
    stamp = when.strftime("%Y%m%dT%H%M%S%f")
    dotted = ".".join(f"{stamp}Z{u}" for u in ids)
    assert dotted_ids(dotted) == [str(u) for u in ids]
    assert parent_of({"dotted_order": dotted}) == (str(ids[-2]) if len(ids) > 1 else None)
    assert parent_of({"dotted_order": dotted, "parent_run_id": "p-1"}) == "p-1"  # the recorded parent wins
