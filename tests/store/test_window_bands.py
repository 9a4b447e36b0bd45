"""``stats`` bands a call's context-window use as the header decides eq. 3.1 (schema 14's
``window_used`` / ``window_capacity``): input + B_out against C, by the provider's count when it
decided, against an assumed C; not the counted input against the recorded C, which put a call the
header calls over capacity in "<50%" and a call with an assumed C in no band at all (new-user
findings #10 and nu3 #16; review: a call over by 200 tokens was in 80-90%)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner
from factories import make_rich_trace, make_trace

from ctxviewer.assess.context import RULES
from ctxviewer.cli import cli
from ctxviewer.model.trace import Usage
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore, migrations
from ctxviewer.store.group_sums import WINDOW_BANDS

BANDS = [b[0] for b in WINDOW_BANDS]


def _bands(*counts: int) -> dict[str, int]:
    return dict(zip(BANDS, counts))


def _db(tmp_path: Path) -> Path:
    base = make_trace()
    assert sum(i.tokens for i in base.retained) == 199 and base.reserved_output_tokens == 1200
    rich = make_rich_trace()
    traces = [
        replace(base, trace_id="plain"),  # 199 + 1,200 of 8,000: 17.5 %
        # counted 199 (fits by the count), reported 7,000 + B_out 1,200 over C 8,000: the header says over by 200
        replace(base, trace_id="reported-over", usage=Usage(input_tokens=7000)),
        # no C recorded: the header checks eq. 3.1 against the model catalogue's window (assumed)
        replace(base, trace_id="assumed-c", endpoint=replace(base.endpoint, capacity=None)),
        # C filled exactly: fits, margin 0 -- in 90-100%, not over
        replace(base, trace_id="exactly-c", input_tokens=6800),  # the application counted 6,800
        # separate limits, the input over its limit of 6,800 and no output limit recorded: over
        replace(rich, trace_id="separate-over", session_id="sess-2f9c",
                endpoint=replace(rich.endpoint, max_output_tokens=None), input_tokens=9000),
    ]
    path = tmp_path / "bands.db"
    with TraceStore.create(path) as store:
        store.add(with_facts(traces))
    return path


def test_the_bands_follow_the_header(tmp_path: Path) -> None:
    path = _db(tmp_path)
    with TraceStore.open(path) as store:
        rows = {r.trace_id: r for r in store.list(limit=-1)}
        total, _ = store.aggregate(None, None)
    assert (rows["plain"].window_used, rows["plain"].window_capacity, rows["plain"].margin) == (1399, 8000, 6601)
    over = rows["reported-over"]
    assert (over.input_tokens, over.fits, over.margin, over.state) == (199, False, -200, "failure")
    assert (over.window_used, over.window_capacity) == (8200, 8000)  # over by 200: >100%, as the header says
    assumed = rows["assumed-c"]
    assert assumed.capacity is None and (assumed.window_used, assumed.window_capacity) == (1399, 128_000)
    exact = rows["exactly-c"]
    assert (exact.fits, exact.margin, exact.window_used) == (True, 0, 8000)
    separate = rows["separate-over"]
    assert (separate.fits, separate.margin, separate.state) == (False, -2200, "failure")  # was ok: "not decided"
    assert (separate.window_used, separate.window_capacity) == (9000, 6800)
    assert dict(zip(BANDS, total.window)) == _bands(2, 0, 0, 1, 2)


def test_stats_by_session_says_the_same(tmp_path: Path) -> None:
    path = _db(tmp_path)
    res = CliRunner().invoke(cli, ["stats", str(path), "--by", "session", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    (session,) = [g for g in doc["groups"] if g["key"] == "sess-2f9c"]
    assert session["window"] == _bands(2, 0, 0, 1, 2)


def test_a_reassessed_row_moves_its_session_band(tmp_path: Path) -> None:
    """Rewriting the facts (``upgrade``'s back-fill) marks the session: the rollup re-sums it."""
    path = _db(tmp_path)
    with TraceStore.create(path) as store:
        with store._conn:  # what an older release stored: no window columns
            store._conn.execute("UPDATE traces SET window_used = NULL, window_capacity = NULL")
        assert store.aggregate(None, "session")[1][0].window == (0, 0, 0, 0, 0)
        store.write_facts(f for _t, f in with_facts([replace(make_trace(), trace_id="plain")]))
        assert store.aggregate(None, "session")[1][0].window == (1, 0, 0, 0, 0)


def _schema13_copy(fresh: Path, old: Path) -> None:
    """``fresh`` as schema 13 wrote it: no window columns, schema 12's aggregate indexes and
    update trigger, facts of the previous rule set."""
    shutil.copy(fresh, old)
    with sqlite3.connect(old) as c:
        for name in ("idx_traces_aggregate", "idx_traces_aggregate_day", "idx_traces_aggregate_session"):
            c.execute(f"DROP INDEX {name}")
        c.execute("DROP TRIGGER session_rollup_update")
        for col in ("window_used", "window_capacity"):
            c.execute(f"ALTER TABLE traces DROP COLUMN {col}")
        c.execute(migrations.AGGREGATE_INDEX_V12)
        c.execute(migrations.AGGREGATE_DAY_INDEX_V12)
        c.execute(migrations.AGGREGATE_SESSION_INDEX)
        c.execute("CREATE TRIGGER session_rollup_update AFTER UPDATE OF session_id, input_tokens, output_tokens, "
                  "cost, duration_ms, state, span_status, capacity ON traces BEGIN SELECT 1; END")
        c.execute("UPDATE traces SET facts_context = replace(facts_context, ?, 'ctxviewer-rules/8')", (RULES,))
        c.execute("DELETE FROM _sqlite_migrations WHERE name = 'm024_window_use'")
        c.execute("PRAGMA user_version = 13")


def test_upgrading_a_schema_13_database_fills_the_bands(tmp_path: Path) -> None:
    """Review finding 1: ``upgrade`` ran the schema step but did not re-assess, so every band of the
    copy was empty and every row stale."""
    fresh, old, new = _db(tmp_path), tmp_path / "v13.db", tmp_path / "v14.db"
    _schema13_copy(fresh, old)
    runner = CliRunner()
    res = runner.invoke(cli, ["upgrade", str(old), "-o", str(new)])
    assert res.exit_code == 0, res.output
    assert "re-assessing every trace" in res.stderr
    stats = [json.loads(runner.invoke(cli, ["stats", str(db), "--by", "session", "--json"]).stdout) for db in (fresh, new)]
    assert stats[0] == stats[1] and stats[1]["total"]["window"] == _bands(2, 0, 0, 1, 2)
    listed = runner.invoke(cli, ["list", str(new), "--all"])
    assert listed.exit_code == 0 and "*" not in listed.stdout  # no row stale
