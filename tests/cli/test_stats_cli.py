"""``ctxviewer stats`` (issue 22 items 5 and 7): sums by model / session / day in SQL, cost totals
equal to genai-prices' own figures for the recorded usage, unknown prices counted apart."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import genai_prices
import pytest
from click.testing import CliRunner
from shared_data import needs_corpus

from ctxviewer.cli import cli
from ctxviewer.importers.formats.inspect_ai import IMPORTER
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceQuery, TraceStore

pytestmark = needs_corpus

INSPECT = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "other" / "inspect_ai"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


@pytest.fixture(scope="module")
def traces() -> list[RequestTrace]:
    return [r for f in sorted(INSPECT.iterdir()) for r in IMPORTER.load(f) if isinstance(r, RequestTrace)]


def _db(tmp_path: Path, traces: list[RequestTrace]) -> Path:
    db = tmp_path / "inspect.db"
    with TraceStore.create(db) as store:
        store.add(with_facts(traces))
    return db


def _library_price(t: RequestTrace) -> Decimal | None:
    u = t.usage
    kw = {k: v for k, v in (("input_tokens", u.input_tokens), ("output_tokens", u.output_tokens),
                            ("cache_read_tokens", u.cached_input_tokens), ("cache_write_tokens", u.cache_creation_input_tokens),
                            ("output_reasoning_tokens", u.reasoning_tokens)) if v is not None}
    try:
        return genai_prices.calc_price(genai_prices.Usage(**kw), t.endpoint.model or "", provider_id=t.endpoint.provider,
                                       genai_request_timestamp=t.created).total_price
    except LookupError:
        return None


def test_cost_totals_equal_the_price_library(tmp_path: Path, traces: list[RequestTrace]) -> None:
    db = _db(tmp_path, traces)
    prices = {t.trace_id: _library_price(t) for t in traces}
    known = [p for p in prices.values() if p is not None]
    assert (len(traces), len(known)) == (7, 6)  # ollama/gemma3 (the .eval log) has no price
    res = CliRunner().invoke(cli, ["stats", str(db), "--by", "model", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["total"]["calls"] == 7 and out["total"]["cost_known"] == 6
    assert out["total"]["cost"] == pytest.approx(float(sum(known)), rel=1e-12)
    by_model = {g["key"]: g for g in out["groups"]}
    assert sorted(by_model) == ["gemma3", "gpt-4o", "gpt-4o-mini"]
    assert by_model["gpt-4o-mini"]["cost"] == pytest.approx(
        float(sum(p for t, p in zip(traces, prices.values()) if t.endpoint.model == "gpt-4o-mini" and p)), rel=1e-12)
    assert (by_model["gemma3"]["cost"], by_model["gemma3"]["cost_known"]) == (None, 0)  # not known: null, never 0
    assert by_model["gpt-4o-mini"]["output_tokens"] == sum(t.usage.output_tokens or 0 for t in traces
                                                           if t.endpoint.model == "gpt-4o-mini")
    assert by_model["gpt-4o-mini"]["calls"] == 5
    text = CliRunner().invoke(cli, ["stats", str(db), "--by", "model"]).output
    assert "not known" in text.splitlines()[2 + 0]  # gemma3's row (first in key order)
    with TraceStore.open(db) as store:  # the wrong answers' cost: one filter away
        total, _ = store.aggregate(TraceQuery(text="score.match < 1"))
    (wrong,) = [t for t in traces if t.trace_id == "4hZVSqgqbdNBk7pFLr5RWq/1/1/0"]
    assert (total.calls, total.cost) == (1, pytest.approx(float(_library_price(wrong) or 0), rel=1e-12))


def test_states_window_and_days_of_the_samples() -> None:
    res = CliRunner().invoke(cli, ["stats", str(SAMPLES), "--json", "--by", "day"])
    out = json.loads(res.output)
    total = out["total"]
    assert (total["calls"], total["ok"], total["warning"], total["failure"]) == (9, 3, 3, 3)
    assert sum(total["window"].values()) == total["calls"]  # every sample records input and C
    assert sum(g["calls"] for g in out["groups"]) == 9
    with TraceStore.open(SAMPLES) as store:
        rows = store.list(None, 0, -1)
        assert total["input_tokens"] == sum(r.input_tokens or 0 for r in rows)
        # over 100 % are the calls the header calls over capacity (history-16k: over by 348 by the reported input)
        assert total["window"][">100%"] == sum(1 for r in rows if r.fits is False) == 1
        assert total["window"] == {"<50%": 3, "50-80%": 2, "80-90%": 0, "90-100%": 3, ">100%": 1}
        assert total["cost_known"] == sum(1 for r in rows if r.cost is not None)
    bad = CliRunner().invoke(cli, ["stats", str(SAMPLES), "--filter", "modle == x"])
    assert bad.exit_code == 2 and "unknown field 'modle'" in bad.output


def test_window_bands_say_not_recorded_when_no_call_records_its_capacity(tmp_path: Path,
                                                                       traces: list[RequestTrace]) -> None:
    db = _db(tmp_path, traces)
    with TraceStore.open(db) as store:
        total, groups = store.aggregate(TraceQuery(), "model")
        capacities = store._conn.execute("SELECT count(capacity) FROM traces").fetchone()[0]
    assert capacities == 0 and sum(total.window) == 0  # Inspect logs record no context window: C is assumed
    res = CliRunner().invoke(cli, ["stats", str(db), "--by", "model"])
    assert res.exit_code == 0, res.output
    rows = [line for line in res.output.splitlines()[2:] if line.strip()]
    assert len(rows) == len(groups) + 1 and all(line.endswith("not recorded") for line in rows)  # never "0 0 0 0 0"


def test_json_is_one_document_written_a_group_a_line() -> None:
    res = CliRunner().invoke(cli, ["stats", str(SAMPLES), "--json", "--by", "day"])
    lines = res.output.splitlines()
    out = json.loads(res.output, parse_constant=lambda c: pytest.fail(f"not JSON: {c}"))  # no NaN / Infinity
    assert lines[0].startswith('{"by": "day", "total": {"key": null, "calls": 9,') and lines[0].endswith('"groups": [')
    assert len(lines) == 2 + len(out["groups"]) and lines[-1] == "]}"
    assert [json.loads(line.strip().rstrip(",")) for line in lines[1:-1]] == out["groups"]
    empty = CliRunner().invoke(cli, ["stats", str(SAMPLES), "--json"])  # no --by: no groups
    assert json.loads(empty.output)["groups"] == [] and empty.output.splitlines()[-1] == "]}"


def test_an_overflowed_sum_is_null_in_the_json(capsys: pytest.CaptureFixture[str]) -> None:
    from ctxviewer.cli.stats_cmd import _echo_json
    from ctxviewer.store.group_sums import Group

    huge = Group("m", 2, 10, 2, 5, 2, 0.5, 2, float("inf"), float("inf"), 2, 2, 0, 0, 0, (2, 0, 0, 0, 0))
    _echo_json("model", huge, [huge])
    out = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(f"not JSON: {c}"))
    assert out["total"]["duration_mean_ms"] is None and out["total"]["duration_max_ms"] is None  # SQLite's inf
    assert out["groups"][0]["cost"] == 0.5 and out["groups"][0]["calls"] == 2


def test_a_sum_no_call_recorded_says_not_recorded_and_a_partial_one_is_a_lower_bound() -> None:
    res = CliRunner().invoke(cli, ["stats", str(SAMPLES), "--by", "session"])
    assert res.exit_code == 0, res.output
    rows = {line.split()[0]: line for line in res.output.splitlines()[2:]}
    # sess-e2047d's one call (policy-missing) reports no output tokens and so has no cost
    assert rows["sess-e2047d"].split()[:6] == ["sess-e2047d", "1", "1,309", "not", "recorded", "not"]
    assert "≥ 1,840 (1 not recorded)" in rows["total"] and "≥ $0.007684 (1 not known)" in rows["total"]
    out = json.loads(CliRunner().invoke(cli, ["stats", str(SAMPLES), "--by", "session", "--json"]).output)
    lone = next(g for g in out["groups"] if g["key"] == "sess-e2047d")
    assert (lone["output_tokens"], lone["output_known"], lone["cost"], lone["cost_known"]) == (None, 0, None, 0)
    assert (out["total"]["output_tokens"], out["total"]["output_known"]) == (1840, 8)  # 8 of 9 calls: the sum of those


def test_session_json_times_are_written_as_list_writes_them() -> None:
    sessions = json.loads(CliRunner().invoke(cli, ["sessions", str(SAMPLES), "--json"]).output)["sessions"]
    first = next(s for s in sessions if s["session_id"] == "sess-7f3c21")
    calls = json.loads(CliRunner().invoke(cli, ["session", str(SAMPLES), "sess-7f3c21", "--json"]).output)["calls"]
    listed = {r["trace_id"]: r["created"] for r in json.loads(CliRunner().invoke(cli, ["list", str(SAMPLES), "--json"]).output)}
    assert first["first"] == listed["budget-8k"] == calls[0]["created"] == "2026-11-09T16:42:31.208Z"


def test_states_assessed_with_other_settings_are_said_to_be_stale(tmp_path: Path) -> None:
    """The new user's F7: after ``ctxviewer.toml`` gave budget-8k a 1,000-token window, ``show``
    said failure while ``stats``, ``sessions`` and ``session`` summed its stored "ok" without a word."""
    import shutil

    db = tmp_path / "samples.db"
    shutil.copyfile(SAMPLES, db)
    assert CliRunner().invoke(cli, ["stats", str(db)]).stderr == ""  # current: nothing to say
    (tmp_path / "ctxviewer.toml").write_text('[context_window.traces]\n"budget-8k" = 1000\n', encoding="utf-8")
    note = ("* {n} call(s) were assessed with other settings or an older ctxviewer: {what} are theirs as stored at "
            f"import; 'ctxviewer upgrade {db} -o NEW.db' stores them afresh\n")
    res = CliRunner().invoke(cli, ["stats", str(db), "--by", "model"])
    assert res.exit_code == 0 and res.stderr == note.format(n=9, what="the states and context-window bands above")
    res = CliRunner().invoke(cli, ["sessions", str(db)])
    assert res.exit_code == 0 and res.stderr == note.format(n=9, what="the states above")
    res = CliRunner().invoke(cli, ["session", str(db), "sess-7f3c21"])
    assert res.exit_code == 0 and res.stderr == note.format(n=3, what="the states above")
    with TraceStore.open(db) as store:
        assert store.stale_count(TraceQuery(text="model ~ gpt"), "nothing-current") == 9
        assert store.stale_count(TraceQuery(text='trace_id == "budget-8k"'), "nothing-current") == 1
