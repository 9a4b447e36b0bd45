"""The run tree (issue 22 items 1 and 7): the OpenInference agent trace (OpenAI Agents SDK via
OpenInference, downloaded from Langfuse) and an Inspect AI log from the corpus open as trees whose
steps, durations and usage equal the file's; ``ctxviewer tree`` prints them."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from shared_data import needs_corpus

from ctxviewer.cli import cli
from ctxviewer.pipeline.importing import import_files
from ctxviewer.present.run_tree import build_tree, tree_lines
from ctxviewer.store import TraceStore

pytestmark = needs_corpus

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
AGENTS = CORPUS / "langfuse" / "openai-agents-2025-09-30.trace.json"
BROWSER = CORPUS / "other" / "inspect_ai" / "inspect-browser-tools-gpt-4o-mini.json"


def _ms(a: str, b: str) -> float:
    return (datetime.fromisoformat(b.replace("Z", "+00:00")) - datetime.fromisoformat(a.replace("Z", "+00:00"))
            ).total_seconds() * 1000


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tree") / "runs.db"
    with TraceStore.create(path) as store:
        report = import_files([AGENTS, BROWSER], store, workers=1)
    assert report.imported == 7 and not report.problems
    return path


def test_agent_trace_steps_durations_and_usage_equal_the_file(db: Path) -> None:
    doc = json.loads(AGENTS.read_text(encoding="utf-8"))
    obs = {o["id"]: o for o in doc["observations"]}
    with TraceStore.open(db) as store:
        run = store.run_of("98870087af69bf06")
        steps = store.run_steps(run or "")
    assert run == doc["trace"]["id"]
    assert {s.span.span_id for s in steps} == set(obs)  # every observation, the tool and agents too
    for s in steps:
        o = obs[s.span.span_id]
        assert (s.span.parent_id, s.span.kind, s.span.name) == (o.get("parentObservationId"), o["type"].lower(), o["name"])
        assert s.duration_ms == pytest.approx(_ms(o["startTime"], o["endTime"]), abs=1e-6)
        if o["type"] == "GENERATION":
            assert s.span.trace_id == o["id"]
            assert (s.input_tokens, s.output_tokens) == (o["usageDetails"]["input"], o["usageDetails"]["output"])
        else:
            assert s.span.trace_id is None and s.input_tokens is None
    tool = next(s for s in steps if s.span.kind == "tool")
    assert tool.span.attributes["metadata"] == obs[tool.span.span_id]["metadata"]  # the tool's attributes kept
    assert [line.split(" · ")[0] for line in tree_lines(build_tree(steps))] == [
        "agent Agent workflow", "  agent Hello world", "    generation response", "    tool get_weather",
        "    generation response"]


def test_inspect_sample_steps_durations_and_usage_equal_the_file(db: Path) -> None:
    (sample,) = json.loads(BROWSER.read_text(encoding="utf-8"))["samples"]
    events = sample["events"]
    begins = {e["id"]: e for e in events if e["event"] == "span_begin"}
    ends = {e["id"]: e for e in events if e["event"] == "span_end"}
    models = [e for e in events if e["event"] == "model"]
    with TraceStore.open(db) as store:
        run = store.run_of("ZB2vu5GNujYaBdPSReCeop/1/1/3")
        steps = {s.span.span_id: s for s in store.run_steps(run or "")}
    assert run == "ZB2vu5GNujYaBdPSReCeop/1/1"
    assert len(steps) == 1 + len(begins) + len(models) == 14  # the sample, 8 spans, 5 model calls
    for sid, b in begins.items():
        s = steps[sid]
        assert (s.span.kind, s.span.name, s.span.parent_id) == (b["type"], b["name"], b.get("parent_id", "sample"))
        assert s.duration_ms == pytest.approx(_ms(b["timestamp"], ends[sid]["timestamp"]), abs=1e-6)
    for n, e in enumerate(models):
        s = steps[f"model-{n}"]
        assert (s.span.trace_id, s.span.parent_id) == (f"ZB2vu5GNujYaBdPSReCeop/1/1/{n}", e["span_id"])
        assert s.duration_ms == pytest.approx(_ms(e["timestamp"], e["completed"]), abs=1e-6)
        assert (s.input_tokens, s.output_tokens) == (e["output"]["usage"]["input_tokens"], e["output"]["usage"]["output_tokens"])
    tools = [s for s in steps.values() if s.span.kind == "tool"]
    assert [t.span.attributes["function"] for t in tools] == ["web_browser_go"] + ["web_browser_click"] * 3
    assert all(t.span.attributes["result"] for t in tools)  # the tool event merged into its span


def test_tree_command(db: Path) -> None:
    res = CliRunner().invoke(cli, ["tree", str(db), "ZB2vu5GNujYaBdPSReCeop/1/1/0"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("run ZB2vu5GNujYaBdPSReCeop/1/1 · 14 steps · 5 model calls · input 15,235 · output 281 · $0.001772")
    assert lines[1:5] == ["sample sample 1 epoch 1 · 19,692 ms", "  init init · 1,455 ms", "  solver use_tools · 4 ms",
                          "  solver generate · 18,229 ms"]
    assert lines[5].startswith("    llm openai/gpt-4o-mini · 1,235 ms · ok · input 1,124 · output 23 · $0.000182")  # 1,124 x 0.15 + 23 x 0.6 micro-dollars
    assert lines[5].endswith(" · trace ZB2vu5GNujYaBdPSReCeop/1/1/0")
    assert lines[6] == "    tool web_browser_go · 4,316 ms"
    out = json.loads(CliRunner().invoke(cli, ["tree", str(db), "98870087af69bf06", "--json"]).output)
    (root,) = out["steps"]
    assert (root["name"], [c["name"] for c in root["children"][0]["children"]]) == (
        "Agent workflow", ["response", "get_weather", "response"])
    missing = CliRunner().invoke(cli, ["tree", str(db), "nope"])  # a typo is not a trace without its run
    assert (missing.exit_code, missing.output) == (2, f"Error: {db}: no trace or run with id 'nope' "
                                                      "('ctxviewer list' names the traces)\n")
    samples = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
    runless = CliRunner().invoke(cli, ["tree", str(samples), "budget-8k"])  # native traces record no run
    assert runless.exit_code == 2 and "no run holds 'budget-8k' (a trace imported without its run" in runless.output


def test_openinference_spans_keep_their_chain_and_say_what_is_not_recorded(tmp_path: Path) -> None:
    """OpenInference spans (Phoenix JSON of the spec's traces.md): the CHAIN span and its LLM span,
    the LLM span recording no token counts -- "not recorded" in the tree, never 0."""
    src = CORPUS / "openinference" / "spec-examples" / "traces-md-example-spans.json"
    db = tmp_path / "oi.db"
    with TraceStore.create(db) as store:
        import_files([src], store, workers=1)
    res = CliRunner().invoke(cli, ["tree", str(db), "ed7b336d-e71a-46f0-a334-5f2e87cb6cfc"])
    assert res.output.splitlines() == [
        "run ed7b336d-e71a-46f0-a334-5f2e87cb6cfc · 2 steps · 1 model calls · input not recorded · "
        "output not recorded · not known",
        "chain query · 2,028 ms · ok",  # 12:54:47.293922 -> 12:54:49.322066
        "  llm llm · 1,725 ms · ok · input not recorded · output not recorded · not known · "
        "trace ed7b336d-e71a-46f0-a334-5f2e87cb6cfc:ad67332a-38bd-428e-9f62-538ba2fa90d4",
    ]
    with TraceStore.open(db) as store:
        (chain,) = store.children("ed7b336d-e71a-46f0-a334-5f2e87cb6cfc", None)
        assert chain.span.attributes["output.value"] == "I am here."  # the later print of the span wins
        (llm,) = store.children("ed7b336d-e71a-46f0-a334-5f2e87cb6cfc", chain.span.span_id)
        assert llm.duration_ms == pytest.approx(1724.69, abs=1e-6)


def test_a_tree_read_from_a_damaged_database_is_printed_then_warned_about(db: Path, tmp_path: Path) -> None:
    """New user (wt-nu): steps in a damaged page were left out of the tree in silence (exit 0)."""
    import shutil
    import sqlite3
    from contextlib import closing

    bad = tmp_path / "bad.db"
    shutil.copyfile(db, bad)
    with closing(sqlite3.connect(bad)) as conn:  # a table the tree does not read: its steps still read back
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'items'").fetchone()[0]
        page = conn.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(bad.read_bytes())
    data[(root - 1) * page: root * page] = b"\xff" * page
    bad.write_bytes(bytes(data))
    with TraceStore.open(bad) as store:
        damage = store.damage()
    assert damage is not None and "btreeInitPage() returns error code 11" in damage
    clean = CliRunner().invoke(cli, ["tree", str(db), "ZB2vu5GNujYaBdPSReCeop/1/1/0"])
    res = CliRunner().invoke(cli, ["tree", str(bad), "ZB2vu5GNujYaBdPSReCeop/1/1/0"])
    assert (res.exit_code, res.stdout) == (2, clean.stdout)
    assert res.stderr == (f"warning: {bad}: is damaged ({damage}); the steps above are those that read back, the "
                          "content behind them may not read back (ctxviewer check reads every trace)\n")
