"""Sessions (issue 22 item 2): the calls sharing a session id -- LangSmith ``thread_id`` metadata
(golden two-turn thread), OTel ``gen_ai.conversation.id`` (golden agent), an Inspect AI sample
(corpus: the sample's uuid) -- listed by ``ctxviewer sessions`` with their sums, one session's calls
in send order with their states by ``ctxviewer session``, and ``--diff N`` the diff of call N
against call N - 1 (the diff ``ctxviewer diff`` prints for the same pair)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from shared_data import needs_corpus

from ctxviewer.cli import cli
from ctxviewer.diff.session_pair import call_pair
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceQuery, TraceStore

pytestmark = needs_corpus

ROOT = Path(__file__).resolve().parents[2]
LANGSMITH = ROOT / "tests" / "data" / "runs" / "langsmith-agent-thread.post-patch.json"
OTEL = ROOT / "tests" / "data" / "runs" / "otel-agent-tools.otlp.json"
BROWSER = ROOT.parent / "shared" / "corpus" / "other" / "inspect_ai" / "inspect-browser-tools-gpt-4o-mini.json"
LLM_RUNS = ["11111111-1111-4111-8111-000000000003", "11111111-1111-4111-8111-000000000006",
            "11111111-1111-4111-8111-000000000008"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sessions") / "s.db"
    with TraceStore.create(path) as store:
        report = import_files([LANGSMITH, OTEL, BROWSER], store, workers=1)
    assert report.imported == 10
    return path


def _uuid() -> str:
    return str(json.loads(BROWSER.read_text(encoding="utf-8"))["samples"][0]["uuid"])


def test_sessions_are_what_the_importers_recorded(db: Path) -> None:
    with TraceStore.open(db) as store:
        found = store.sessions()
        assert store.session_count() == 3
        by_id = {s.session_id: s for s in found}
        assert [s.session_id for s in found] == sorted(by_id)  # session-id order
        thread = by_id["thread-9"]
        rows = [store.list(TraceQuery(text=f"id == '{t}'"), 0, 1)[0] for t in LLM_RUNS]
        assert thread.calls == 3 and thread.models == 1
        assert (thread.first, thread.last) == (rows[0].created, rows[2].created)
        assert thread.output_tokens == 18 + 9 + 5  # the runs' usage_metadata output_tokens
        assert thread.input_tokens == sum(r.input_tokens for r in rows)
        assert thread.cost == pytest.approx(sum(r.cost for r in rows), rel=1e-12)
        assert (thread.ok, thread.warning, thread.failure) == (
            sum(r.state == "ok" for r in rows), sum(r.state == "warning" for r in rows), sum(r.state == "failure" for r in rows))
        assert by_id["conv-7"].calls == 2  # the OTel agent's two chat spans (gen_ai.conversation.id on invoke_agent)
        assert by_id[_uuid()].calls == 5  # the Inspect sample's five model calls
        # keyset paging: one session per page, in order, then none
        pages = [store.sessions(None, None, 1)]
        while pages[-1]:
            pages.append(store.sessions(None, pages[-1][-1].session_id, 1))
        assert [p[0].session_id for p in pages[:-1]] == [s.session_id for s in found]
        assert [s.session_id for s in store.sessions(TraceQuery(text="model == 'gpt-4o-mini'"))] == [
            s.session_id for s in found]
        assert store.sessions(TraceQuery(text="id == 'nope'")) == []


def test_session_calls_in_send_order_with_states(db: Path) -> None:
    with TraceStore.open(db) as store:
        calls = store.session_calls("thread-9")
        assert [r.trace_id for r in calls] == LLM_RUNS
        assert [r.trace_id for r in calls] == store.session_trace_ids("thread-9")  # the previous-call order
        assert store.session_calls("nope") == []
    res = CliRunner().invoke(cli, ["session", str(db), "thread-9"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].split() == ["#", "sent", "trace", "model", "state", "counted", "input", "output", "cost", "ms", "worst",
                                "finding"]
    first = lines[2].split()
    assert first[:2] == ["1", "2025-11-20"] and first[3:6] == [LLM_RUNS[0], "gpt-4o-mini", calls[0].state]
    assert first[7] == str(18) and first[9] == "1,200"  # output tokens; 10:00:00.22 -> 10:00:01.42
    assert [ln.split()[3] for ln in lines[2:5]] == LLM_RUNS
    assert lines[5] == f"3 calls; a call's diff against the one before it: ctxviewer session {db} thread-9 --diff 2"
    out = json.loads(CliRunner().invoke(cli, ["session", str(db), "thread-9", "--json"]).output)
    assert [c["trace_id"] for c in out["calls"]] == LLM_RUNS and out["calls"][2]["output_tokens"] == 5


def test_session_diff_is_the_diff_of_the_pair(db: Path) -> None:
    with TraceStore.open(db) as store:
        a, b = call_pair(store, "thread-9", 2)
        assert (a.trace_id, b.trace_id) == tuple(LLM_RUNS[:2])
        with pytest.raises(ValueError, match="call 1 is the first"):
            call_pair(store, "thread-9", 1)
        with pytest.raises(ValueError, match="has 3 call"):
            call_pair(store, "thread-9", 4)
    got = CliRunner().invoke(cli, ["session", str(db), "thread-9", "--diff", "2", "--json"])
    want = CliRunner().invoke(cli, ["diff", str(db), LLM_RUNS[0], LLM_RUNS[1], "--json"])
    assert got.exit_code == 0 and json.loads(got.output) == json.loads(want.output)
    text = CliRunner().invoke(cli, ["session", str(db), "thread-9", "--diff", "3"]).output
    assert text.splitlines()[0] == f"session thread-9: call 2 ({LLM_RUNS[1]}) -> call 3 ({LLM_RUNS[2]})"
    bad = CliRunner().invoke(cli, ["session", str(db), "thread-9", "--diff", "1"])
    assert bad.exit_code == 2 and "call 1 is the first: it has no call before it" in bad.output
    missing = CliRunner().invoke(cli, ["session", str(db), "nope"])
    assert missing.exit_code == 2 and "no call has session id 'nope'" in missing.output


def test_sessions_command(db: Path) -> None:
    res = CliRunner().invoke(cli, ["sessions", str(db)])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].split()[:3] == ["session", "calls", "first"]
    assert [ln.split()[0] for ln in lines[2:5]] == sorted([_uuid(), "conv-7", "thread-9"])
    assert lines[-1] == "3 session(s)"
    page = CliRunner().invoke(cli, ["sessions", str(db), "--limit", "1"]).output.splitlines()
    assert page[-1] == f"3 session(s); next page: --after {sorted([_uuid(), 'conv-7', 'thread-9'])[0]!r}"
    out = json.loads(CliRunner().invoke(cli, ["sessions", str(db), "--json", "--filter", "state == warning"]).output)
    with TraceStore.open(db) as store:
        warned = {r.session_id for r in store.list(TraceQuery(text="state == warning"), 0, -1)}
    assert out["count"] == len(warned) and {s["session_id"] for s in out["sessions"]} == warned
    bad = CliRunner().invoke(cli, ["sessions", str(db), "--filter", "nonsense =="])
    assert bad.exit_code == 2 and "--filter" in bad.output


def test_calls_without_a_session_are_counted_beside_the_sessions(tmp_path: Path) -> None:
    """The new user's F14: ``sessions`` listed 4 sessions of 6 calls and said nothing of the other 6
    calls, which ``stats --by session`` sums as "not recorded"."""
    from dataclasses import replace

    from factories import make_trace

    from ctxviewer.pipeline.stored_facts import with_facts
    from ctxviewer.store import TraceStore

    db = tmp_path / "s.db"
    with TraceStore.create(db) as store:
        store.add(with_facts([replace(make_trace(), trace_id=f"t{n}", session_id="s-1" if n < 2 else None)
                              for n in range(5)]))
    res = CliRunner().invoke(cli, ["sessions", str(db)])
    assert res.exit_code == 0 and res.output.splitlines()[-1] == (
        "1 session(s); 3 call(s) record no session id (in no session; stats --by session sums them as 'not recorded')")
    out = json.loads(CliRunner().invoke(cli, ["sessions", str(db), "--json"]).output)
    assert (out["count"], out["calls_without_session"], out["sessions"][0]["calls"]) == (1, 3, 2)
