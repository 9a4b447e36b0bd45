"""``TraceStore.stop_when``: a statement already running stops once the worker's cancel flag turns
true (the statistics window's Cancel), raising ``StoreError`` that says it was interrupted."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from ctxviewer.store import StoreError, TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def test_a_cancelled_aggregate_raises_interrupted() -> None:
    with TraceStore.open(SAMPLES) as store:
        store.stop_when(lambda: True, every=1)
        with pytest.raises(StoreError, match=r"samples\.db: cannot aggregate traces: interrupted$"):
            store.aggregate(None, "model")
        store.stop_when(lambda: False)
        total, groups = store.aggregate(None, "model")  # the same connection answers again
        assert total.calls == 9 and sum(g.calls for g in groups) == 9


def test_a_running_statement_stops_when_the_flag_turns() -> None:
    flag = threading.Event()
    caught: list[str] = []
    with TraceStore.open(SAMPLES) as store:
        store.stop_when(flag.is_set, every=1000)

        def run() -> None:
            try:
                store._conn.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                                    "SELECT count(*) FROM c").fetchall()
            except sqlite3.OperationalError as exc:
                caught.append(str(exc))

        t = threading.Thread(target=run)
        t.start()
        t.join(0.2)
        assert t.is_alive()  # endless until the flag turns
        flag.set()
        t.join(10)
        assert not t.is_alive() and caught == ["interrupted"]
