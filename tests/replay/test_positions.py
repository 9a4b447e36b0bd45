"""Position tests (ctxviewer.replay.positions, .scoring) against the fake server: only the item
moves, the planted curve is recovered within its intervals, the null server shows no effect."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replay_fakes import FakeServer

from ctxviewer.model.trace import RequestTrace
from ctxviewer.replay.endpoints import EndpointConfig
from ctxviewer.replay.positions import move_item, run_position_test, slots, variants
from ctxviewer.replay.scoring import parse_rule
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
ITEM = "KB-1008#p1"  # the price-adjustment passage evidence-in-middle needed
CURVE = {1: 0.9, 10: 0.3, 20: 0.8}  # a lost-in-the-middle U, planted


@pytest.fixture(scope="module")
def trace() -> RequestTrace:
    with TraceStore.open(SAMPLES) as s:
        return s.load("evidence-in-middle")


def _ep(srv: FakeServer, kind: str = "openai-chat") -> EndpointConfig:
    return EndpointConfig("fake", kind, srv.base_url, "m", None, timeout_s=10, source="test")


def test_moving_keeps_every_other_item_in_order(trace: RequestTrace) -> None:
    ev = [i.id for i in slots(trace, ITEM)]
    assert len(ev) == 20 and ev.index(ITEM) == 9
    moved = move_item(trace, ITEM, 1)
    after = [i.id for i in slots(moved, ITEM)]
    assert after == [ITEM] + [i for i in ev if i != ITEM]
    assert [i.position for i in moved.retained] == list(range(1, len(moved.retained) + 1))
    assert [i.id for i in moved.items if i.kind.value != "evidence"] == [i.id for i in trace.items if i.kind.value != "evidence"]
    assert [i.id for i in slots(move_item(trace, ITEM, 20), ITEM)][-1] == ITEM
    with pytest.raises(ValueError, match="position 22 is outside 1..20"):
        move_item(trace, ITEM, 22)


@pytest.mark.parametrize("kind", ["openai-chat", "anthropic-messages", "openai-responses"])
def test_variants_differ_only_by_the_items_place(trace: RequestTrace, kind: str) -> None:
    ep = EndpointConfig("x", kind, "http://127.0.0.1:9/v1", "m", None)
    vs = variants(trace, ITEM, [1, 10, 20], ep)
    assert [v.position for v in vs] == [1, 10, 20]
    assert len({v.plan.body for v in vs}) == 3


@pytest.mark.parametrize(("rule", "answer", "right"), [
    ('contains:"price   ADJUSTMENT"', "A price adjustment is possible.", True),
    ('contains:"gift cards cannot be refunded"', "Gift cards can be refunded.", False),
    (r'regex:"\bNW-\d{7}\b"', "Order NW-4497710 qualifies", True),
    ("json:decision.refund=false", 'Here: {"decision": {"refund": false}} done', True),
    ("json:decision.refund=false", '{"decision": {"refund": true}}', False),
    ('exact:"Yes"', "  Yes\n", True),
    ('exact:"Yes"', "Yes.", False),
])
def test_score_rules(rule: str, answer: str, right: bool) -> None:
    assert parse_rule(rule).score(answer) is right


@pytest.mark.parametrize(("rule", "words"), [("has:x", "KIND one of contains, regex, json, exact"),
                                             ("regex:(", "not a valid regular expression"),
                                             ("json:field", "expected json:FIELD.PATH=VALUE"), ('exact:""', "empty")])
def test_bad_score_rules(rule: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_rule(rule)


@pytest.mark.parametrize("path", ["a..b", ".a", "a.", "a. .b"])
def test_a_json_path_with_an_empty_step_is_refused(path: str) -> None:
    """New user (wt-nu): json:a..b=1 was accepted and matched no answer, so every run scored 0."""
    with pytest.raises(ValueError) as err:
        parse_rule(f"json:{path}=1")
    assert str(err.value) == (f"score rule {'json:' + path + '=1'!r}: the path {path!r} has an empty step (FIELD.PATH "
                              "is names joined by single dots: json:answer.amount=42)")
    assert parse_rule("json:answer.amount=42").score('{"answer": {"amount": 42}}') is True


def _run(trace: RequestTrace, curve, repeats: int, kind: str = "openai-chat"):
    needle = trace.item(ITEM).content
    with FakeServer(curve=curve, needle=needle, answer_text="price adjustment", seed=3) as srv:
        seen: list[tuple[int, int]] = []
        res = run_position_test([(trace, ITEM)], _ep(srv, kind), list(CURVE), repeats,
                                parse_rule('contains:"price adjustment"'), progress=lambda d, t: seen.append((d, t)),
                                test_id="ptest-1")
    return res, srv, seen


def test_the_planted_curve_is_recovered_within_its_intervals(trace: RequestTrace) -> None:
    res, srv, seen = _run(trace, lambda pos: CURVE[pos], 60)
    assert srv.problems == [[]] * 180
    assert srv.positions[:3] == [1, 10, 20]  # the server saw the passage where the variant put it
    assert seen[-1] == (180, 180)
    a = res.analysis
    assert a.unit == "runs" and [p.position for p in a.positions] == [1, 10, 20]
    for p in a.positions:
        assert p.low <= CURVE[p.position] <= p.high, p
        assert p.runs == 60
    q, df, pval = a.cochran
    assert df == 2 and pval < 0.001
    best, worst, spread, low, high = a.spread
    assert (best, worst) == (1, 10)
    assert low <= 0.6 <= high and low > 0
    t = res.traces[0]
    assert t.trace_id == "evidence-in-middle~ptest-1-p1-r1" and t.replay_of == "evidence-in-middle"
    assert t.attributes["ctxviewer.position_test.position"] == 1
    assert t.attributes["ctxviewer.position_test.score"] == (res.scores[0].correct)


def test_the_null_server_shows_no_effect(trace: RequestTrace) -> None:
    res, srv, _ = _run(trace, lambda pos: 0.6, 60)
    a = res.analysis
    for p in a.positions:
        assert p.low <= 0.6 <= p.high, p
    assert a.cochran[2] > 0.05
    assert all(pair[4] > 0.05 for pair in a.mcnemar)
    best, worst, spread, low, high = a.spread
    assert low <= 0 <= high


def test_several_traces_give_the_item_level_analysis(trace: RequestTrace) -> None:
    needle = trace.item(ITEM).content
    from dataclasses import replace as dc_replace
    other = dc_replace(trace, trace_id="evidence-in-middle-2")
    with FakeServer(curve=lambda pos: CURVE[pos], needle=needle, answer_text="price adjustment") as srv:
        res = run_position_test([(trace, ITEM), (other, ITEM)], _ep(srv, "anthropic-messages"), [1, 10], 3,
                                parse_rule('contains:"price adjustment"'))
    assert srv.problems == [[]] * 12
    assert res.analysis.unit == "items" and res.analysis.positions[0].n == 2 and res.analysis.positions[0].runs == 6
    assert json.loads(srv.requests[0]["raw"])["model"] == "m"


def test_cancel_stops_between_runs(trace: RequestTrace) -> None:
    calls = [0]

    def cancelled() -> bool:
        calls[0] += 1
        return calls[0] > 2

    with FakeServer() as srv:
        res = run_position_test([(trace, ITEM)], _ep(srv), [1, 20], 5, parse_rule('contains:"x"'), cancelled=cancelled)
    assert res.cancelled and res.analysis is None and len(res.traces) == len(srv.requests) == 1


def test_the_position_test_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trace: RequestTrace) -> None:
    import shutil

    from click.testing import CliRunner

    from ctxviewer.cli import cli

    monkeypatch.setattr("ctxviewer.replay.endpoints.user_config_path", lambda: tmp_path / "none.toml")
    db = tmp_path / "s.db"
    shutil.copy(SAMPLES, db)
    with FakeServer(curve=lambda pos: CURVE[pos], needle=trace.item(ITEM).content, answer_text="price adjustment") as srv:
        (tmp_path / "ctxviewer.toml").write_text(
            f'[endpoint.fake]\nkind = "openai-compatible"\nbase_url = "{srv.base_url}"\n', encoding="utf-8")
        result = CliRunner().invoke(cli, ["position-test", str(db), "evidence-in-middle", "--item", ITEM, "--endpoint",
                                          "fake", "--positions", "1,10,20", "--repeats", "4", "--score",
                                          'contains:"price adjustment"', "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert [p["position"] for p in doc["positions"]] == [1, 10, 20] and doc["runs"] == 12
    assert doc["checked"] == ("3 variants of evidence-in-middle: each request is byte-identical to the first but for "
                              "where KB-1008#p1 sits (rebuilt from the items)")
    assert doc["cochran_q"]["df"] == 2 and doc["notes"] == [
        "one item: intervals and tests are over its runs (repeats), not over items in general"]
    with TraceStore.open(tmp_path / "s.replays.db") as s:
        assert len(s.list()) == 12
    bad = CliRunner().invoke(cli, ["position-test", str(db), "evidence-in-middle", "--item", ITEM, "--endpoint", "fake",
                                   "--positions", "1", "--score", "contains:x"])
    assert bad.exit_code == 2 and "give two or more different positions" in bad.output
