"""Done-when test of issue 5: every sample trace says the same verdict, state, created time and
item wording through the chart, the header, ``show``, ``show --json``, ``list --json`` and the
screenshot window -- all rendering one core assessment -- plus one test per bullet of the issue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.assess import budget
from ctxviewer.assess.assessment import assess
from ctxviewer.cli import cli
from ctxviewer.gui.screenshot import screenshot_window
from ctxviewer.model.serialize import parse_created
from ctxviewer.model.trace import Status
from ctxviewer.model.words import fmt_time
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.present.columns import (
    ITEM_COLUMNS,
    TRACE_COLUMNS,
    item_reason,
    item_status,
    item_status_words,
)
from ctxviewer.present.finding_view import state_headline
from ctxviewer.present.item_title import item_title
from ctxviewer.store import TraceStore

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"
SAMPLE_IDS = ["budget-8k", "budget-8k-over", "history-16k", "refund-approval-forgotten", "ticket-injection",
              "policy-missing", "evidence-in-middle", "json-unsupported", "budget-8k-replay"]
STATUS = [c.key for c in ITEM_COLUMNS].index("status")
REASON = [c.key for c in ITEM_COLUMNS].index("reason")


def cli_out(*args: str) -> str:
    res = CliRunner().invoke(cli, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


@pytest.fixture(scope="module")
def listed() -> dict[str, dict]:  # type: ignore[type-arg]
    return {r["trace_id"]: r for r in json.loads(cli_out("list", str(SAMPLES), "--json"))}


def test_samples_are_all_there(listed) -> None:  # type: ignore[no-untyped-def]
    assert sorted(listed) == sorted(SAMPLE_IDS)


@pytest.mark.parametrize("trace_id", SAMPLE_IDS)
def test_every_surface_says_the_same(qapp, listed, trace_id: str) -> None:  # type: ignore[no-untyped-def]
    with TraceStore.open(SAMPLES) as store:
        trace = store.load(trace_id)
    a = assess(trace)
    verdict, state, created = a.verdict, a.state.value, fmt_time(trace.created)
    omitted = [it for it in trace.items if it.status is Status.OMITTED]

    shown = json.loads(cli_out("show", str(SAMPLES), trace_id, "--json"))
    assert (shown["verdict"], shown["state"], shown["fits"]) == (verdict, state, a.fits)
    assert [f["rule"] for f in shown["findings"]] == [f.rule for f in a.findings]
    row = listed[trace_id]
    assert (row["verdict"], row["state"], row["fits"], row["margin"]) == (verdict, state, a.fits, a.capacity.margin), (
        "the facts stored in sample_traces/samples.db are stale (a check changed): "
        "run `python -m sample_traces.make_samples`")
    assert row["created"] == shown["created"]  # one ISO 8601 UTC form
    assert fmt_time(parse_created(shown["created"])) == created

    text = cli_out("show", str(SAMPLES), trace_id)
    assert f"eq. 3.1     {verdict}\n" in text
    assert f"State       {dict(a.header)['State']}\n" in text
    assert f"Created     {created} UTC\n" in text
    for it in trace.items:
        assert item_status(it) in text

    with screenshot_window(SAMPLES, trace_id, item_id=omitted[0].id if omitted else None) as w:
        assert (w.chart.verdict(), w.chart.state()) == (verdict, state_headline(a.state))  # symbol + word
        assert w.chart.state_label.property("state") == a.state.value  # the colour (app.qss selects on it)
        assert w.chart.figure == a.figure
        assert w.chart.segments() == {"used": list(a.figure.used), "omitted": list(a.figure.omitted),
                                      "declared": list(a.figure.declared)}
        assert w.chart.capacity_line == a.figure.capacity_line
        header = dict(w.detail.rows())
        # issue 13: the state heads the chart, tool calls and validations are in the Response pane
        assert header == {k: v for k, v in a.header if k not in ("State", "Tool calls", "Validations")}
        assert header["Created"] == f"{created} UTC"
        assert dict(a.header)["State"].startswith(state)
        cells = [w.item_model.data(w.item_model.index(r, STATUS)) for r in range(w.item_model.rowCount())]
        assert cells == [item_status(it) for it in trace.items]
        reasons = [w.item_model.data(w.item_model.index(r, REASON)) for r in range(w.item_model.rowCount())]
        assert reasons == [item_reason(it) for it in trace.items]
        if omitted:
            assert w.panel.content_title.text() == item_title(omitted[0])
            assert item_status_words(omitted[0]) in w.panel.content_title.text()
        r = w.trace_model.row_of(trace_id)
        assert r is not None
        list_cells = {c.key: w.trace_model.data(w.trace_model.index(r, i)) for i, c in enumerate(TRACE_COLUMNS)}
        assert (list_cells["created"], list_cells["state"]) == (created, state)


# ---------------------------------------------------------------- one test per bullet of the issue


def test_policy_missing_fits_but_its_state_is_failure() -> None:
    d = json.loads(cli_out("show", str(SAMPLES), "policy-missing", "--json"))
    assert (d["fits"], d["margin"], d["state"]) == (True, 5491, "failure")
    policy = [f for f in d["findings"] if f["rule"] == "policy.unavailable"]
    assert policy == [{
        "rule": "policy.unavailable", "severity": "failure", "table_row": 1,
        "message": "required policy version 2026-10-03 unavailable: the request should be rejected",
        "evidence": policy[0]["evidence"],
        "first_evidence": "Policy loader and version pin",
        "repair": "Reject the request when the required policy version is unavailable",
    }]
    assert d["findings"][0]["severity"] == "failure"
    assert "the request should be rejected" in d["verdict"]
    assert "the request should be rejected" in cli_out("show", str(SAMPLES), "policy-missing")


def test_list_and_show_print_created_identically() -> None:
    rows = {r["trace_id"]: r["created"] for r in json.loads(cli_out("list", str(SAMPLES), "--json"))}
    shown = json.loads(cli_out("show", str(SAMPLES), "budget-8k", "--json"))["created"]
    assert rows["budget-8k"] == shown == "2026-11-09T16:42:31.208Z"


@pytest.mark.slow
def test_an_omitted_item_is_worded_once(qapp) -> None:  # type: ignore[no-untyped-def]
    with TraceStore.open(SAMPLES) as store:
        item = store.load("budget-8k-over").item("KB-1014")
    assert (item_status(item), item_reason(item), item_status_words(item)) == ("omitted", "budget", "omitted: budget")
    text = cli_out("show", str(SAMPLES), "budget-8k-over")
    line = next(ln for ln in text.splitlines() if " KB-1014 " in ln)
    assert line.split()[-2:] == ["omitted", "budget"]
    with screenshot_window(SAMPLES, "budget-8k-over", item_id="KB-1014") as w:
        row = w.item_model.row_of("KB-1014")
        assert w.item_model.data(w.item_model.index(row, STATUS)) == "omitted"
        assert w.item_model.data(w.item_model.index(row, REASON)) == "budget"
        assert w.panel.content_title.text() == "KB-1014 — evidence, untrusted, 354 tokens, omitted: budget"


@pytest.mark.slow
def test_the_chart_paints_a_figure_and_eq_3_1_runs_once_per_selection(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from ctxviewer.pipeline.warm_up import first_trace

    first_trace()  # the window's one-time warm-up (its own sample trace), done before counting
    calls: list[str] = []
    real = budget.check_capacity
    monkeypatch.setattr(budget, "check_capacity", lambda t: calls.append(t.trace_id) or real(t))
    budget.capacity.cache_clear()
    with screenshot_window(SAMPLES, "budget-8k") as w:
        calls.clear()
        budget.capacity.cache_clear()
        with qtbot.waitSignal(w.sig_trace_shown, timeout=30_000) as shown:
            w.select_trace("budget-8k-over")
        assert shown.args == ["budget-8k-over"]
        assert calls == ["budget-8k-over"]  # in the loader's worker, once
        fig = w.panel.assessment.figure if w.panel.assessment else None
        assert fig is not None and w.chart.figure is fig  # the chart paints the core's figure
        assert (fig.capacity_line, fig.note, round(fig.x_max)) == (8000, None, 8240)
        w.chart.set_assessment(w.panel.assessment)  # a repaint derives nothing
        assert calls == ["budget-8k-over"]


def test_omissions_recorded_is_read_from_the_stored_row(tmp_path: Path, monkeypatch) -> None:
    from dataclasses import replace

    from factories import make_trace

    import ctxviewer.importers as importers

    path = tmp_path / "otel.db"
    with TraceStore.create(path) as store:
        store.add(with_facts([replace(make_trace(), source_format="otel", omissions_recorded=False)]))  # as an import sets it
    monkeypatch.setattr(importers, "omissions_recorded", lambda fmt: pytest.fail("looked up per cell"))
    with TraceStore.open(path) as store:
        (row,) = store.list()
    assert row.omissions_recorded is False
    retained_omitted = next(c for c in TRACE_COLUMNS if c.key == "retained_omitted")
    assert retained_omitted.format(row) == "6 / ≥1"  # the format records no omissions; this trace records one
    assert retained_omitted.format(replace(row, omitted_count=0)) == "6 / not recorded"
    assert retained_omitted.format(replace(row, omissions_recorded=True)) == "6 / 1"
