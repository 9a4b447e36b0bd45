"""``stats`` bands a call's context-window use as the header decides eq. 3.1 (schema 14's
``window_input`` / ``window_capacity``): the provider-reported input when it decided, an assumed C;
not the counted input against the recorded C, which put a call the header calls over capacity in
"<50%" and a call with an assumed C in no band at all (new-user finding #10)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.model.trace import Usage
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore
from ctxviewer.store.group_sums import WINDOW_BANDS
from tests.factories import make_trace

BANDS = [b[0] for b in WINDOW_BANDS]


def _db(tmp_path: Path) -> Path:
    counted = sum(i.tokens for i in make_trace().retained)
    assert counted == 199
    base = make_trace()
    traces = [
        replace(base, trace_id="plain"),  # 199 of 8,000: under 50 %
        # counted 199 (fits by the count), reported 7,500 + B_out 1,200 over C 8,000: the header says over
        replace(base, trace_id="reported-over", usage=Usage(input_tokens=7500)),
        # no C recorded: the header checks eq. 3.1 against the model catalogue's window (assumed)
        replace(base, trace_id="assumed-c", endpoint=replace(base.endpoint, capacity=None)),
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
    assert (rows["plain"].window_input, rows["plain"].window_capacity) == (199, 8000)
    over = rows["reported-over"]
    assert (over.input_tokens, over.fits, over.margin) == (199, False, 8000 - 7500 - 1200)
    assert (over.window_input, over.window_capacity) == (7500, 8000)  # 93.75 %: the band of the reported input
    assumed = rows["assumed-c"]
    assert assumed.capacity is None and assumed.window_input == 199
    assert assumed.window_capacity == 128_000  # gpt-4o-mini's window in the model catalogue (assumed)
    assert dict(zip(BANDS, total.window)) == {"<50%": 2, "50-80%": 0, "80-90%": 0, "90-100%": 1, ">100%": 0}


def test_stats_by_session_says_the_same(tmp_path: Path) -> None:
    path = _db(tmp_path)
    res = CliRunner().invoke(cli, ["stats", str(path), "--by", "session", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    (session,) = [g for g in doc["groups"] if g["key"] == "sess-2f9c"]
    assert session["window"] == {"<50%": 2, "50-80%": 0, "80-90%": 0, "90-100%": 1, ">100%": 0}


def test_a_reassessed_row_moves_its_session_band(tmp_path: Path) -> None:
    """Rewriting the facts (``upgrade``'s back-fill) marks the session: the rollup re-sums it."""
    path = _db(tmp_path)
    with TraceStore.create(path) as store:
        with store._conn:  # what an older release stored: no window columns
            store._conn.execute("UPDATE traces SET window_input = NULL, window_capacity = NULL")
        assert store.aggregate(None, "session")[1][0].window == (0, 0, 0, 0, 0)
        store.write_facts(f for _t, f in with_facts([replace(make_trace(), trace_id="plain")]))
        assert store.aggregate(None, "session")[1][0].window == (1, 0, 0, 0, 0)
