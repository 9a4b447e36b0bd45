"""A content blob missing from ``blobs`` is damage the read names (trace, item), not a null text."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.store import StoreError, TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def _damaged(tmp_path: Path, sql: str) -> Path:
    db = tmp_path / "cor.db"
    shutil.copyfile(SAMPLES, db)
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(sql)
        conn.commit()
    return db


@pytest.mark.parametrize("sql", [
    "DELETE FROM blobs WHERE hash = (SELECT content_hash FROM items WHERE trace_id = 'budget-8k' AND item_id = 'policy')",
    "UPDATE items SET content_hash = x'00' WHERE trace_id = 'budget-8k' AND item_id = 'policy'",
    "UPDATE items SET content_hash = 'zz' WHERE trace_id = 'budget-8k' AND item_id = 'policy'",
])
def test_load_names_the_item_whose_content_blob_is_missing(tmp_path: Path, sql: str) -> None:
    db = _damaged(tmp_path, sql)
    with TraceStore.open(db) as store:
        with pytest.raises(StoreError) as err:
            store.load("budget-8k")
        assert str(err.value) == f"{db}: trace 'budget-8k' is damaged: item 'policy': content blob missing"
        with pytest.raises(StoreError):
            store.items("budget-8k")
        assert store.load("policy-missing").trace_id == "policy-missing"  # traces without that blob still load


def test_a_missing_request_blob_is_named(tmp_path: Path) -> None:
    db = _damaged(tmp_path, "UPDATE details SET request_hash = x'00' WHERE trace_id = 'budget-8k'")
    with TraceStore.open(db) as store, pytest.raises(StoreError) as err:
        store.load("budget-8k")
    assert str(err.value) == f"{db}: trace 'budget-8k' is damaged: request content blob missing"


def test_show_and_check_do_not_pass_a_missing_blob(tmp_path: Path) -> None:
    db = _damaged(tmp_path, "UPDATE items SET content_hash = x'00' WHERE trace_id = 'budget-8k' AND item_id = 'policy'")
    for args in (["show", str(db), "budget-8k", "--json", "--content"], ["check", str(db), "budget-8k"]):
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 2, args
        assert "trace 'budget-8k' is damaged: item 'policy': content blob missing" in res.stderr
        assert "ok" not in res.stdout.split()
