"""Commands that read only part of a damaged database say so (new user, wt-nu): ``stats``,
``sessions`` and ``search`` printed their sums or hits and exited 0, ``tree`` said "no run holds
X" of a run that may be in the damaged pages; a stored text that is not UTF-8 was quoted whole in
the error. Now: what could be read, then one warning naming the damage, exit status 2."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
TAIL = "the content behind them may not read back (ctxviewer check reads every trace)"


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout, res.stderr


def _corrupt_copy(tmp_path: Path, table: str = "details") -> Path:
    """samples.db with the root page of ``table`` overwritten with garbage: the list columns, the
    sessions and the full-text index read fine, SQLite's quick check names the page."""
    bad = tmp_path / "c2.db"
    shutil.copyfile(SAMPLES, bad)
    with closing(sqlite3.connect(bad)) as conn:
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
        page = conn.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(bad.read_bytes())
    data[(root - 1) * page: root * page] = b"\xff" * page
    bad.write_bytes(bytes(data))
    return bad


def _damage(db: Path) -> str:
    with TraceStore.open(db) as store:
        damage = store.damage()
    assert damage is not None and "btreeInitPage() returns error code 11" in damage
    return damage


@pytest.mark.parametrize(("args", "shown"), [
    (["stats"], "the sums above are of the rows stored at import"),
    (["stats", "--by", "model", "--json"], "the sums above are of the rows stored at import"),
    (["sessions"], "the sessions above are summed from the rows stored at import"),
    (["search", "{db}", "refund", "--limit", "0"], "the hits above come from the full-text index"),
])
def test_a_partial_read_of_a_damaged_database_prints_it_then_warns_with_status_2(
        tmp_path: Path, args: list[str], shown: str) -> None:
    bad = _corrupt_copy(tmp_path)
    argv = [args[0], str(bad), *args[1:]] if "{db}" not in args else [a.format(db=bad) for a in args]
    code, out, err = run(*argv)
    clean_code, clean_out, clean_err = run(*[str(SAMPLES) if a == str(bad) else a for a in argv])
    assert (clean_code, clean_err) == (0, "")
    assert out == clean_out  # the list columns, sessions and index are intact: what the undamaged file says
    assert (code, err) == (2, f"warning: {bad}: is damaged ({_damage(bad)}); {shown}, {TAIL}\n")


def test_a_later_page_of_search_or_sessions_does_not_check_the_file_again(tmp_path: Path) -> None:
    bad = _corrupt_copy(tmp_path)
    code, _, err = run("search", str(bad), "refund", "--after", "WzAsMCwwXQ")
    assert (code, "is damaged" in err) == (0, False)
    code, _, err = run("sessions", str(bad), "--after", "sess-a")
    assert (code, err) == (0, "")


def test_tree_on_a_damaged_database_names_the_damage_not_a_missing_run(tmp_path: Path) -> None:
    code, _, err = run("tree", str(SAMPLES), "budget-8k")
    assert (code, err) == (2, f"Error: {SAMPLES}: no run holds 'budget-8k' (a trace imported without its run, "
                              "or from a format that records none; 'ctxviewer list' names the traces)\n")
    bad = _corrupt_copy(tmp_path)
    code, _, err = run("tree", str(bad), "budget-8k")
    assert (code, err) == (2, f"Error: {bad}: is damaged ({_damage(bad)}); no run holding 'budget-8k' could be "
                              "read, it may be in the damaged pages (ctxviewer check reads every trace)\n")


def test_a_stored_text_that_is_not_utf8_is_named_as_damage_not_quoted(tmp_path: Path) -> None:
    bad = tmp_path / "u.db"
    shutil.copyfile(SAMPLES, bad)
    with closing(sqlite3.connect(bad)) as conn:  # another program (or damage) wrote bytes that are not UTF-8
        conn.execute("UPDATE blobs SET text = CAST(X'4869FF' || CAST(text AS BLOB) AS TEXT) WHERE hash = "
                     "(SELECT content_hash FROM items WHERE trace_id = 'budget-8k' ORDER BY ordinal LIMIT 1)")
        conn.commit()
    code, out, err = run("show", str(bad), "budget-8k")
    assert (code, out, err) == (2, "", f"Error: {bad}: cannot read items of trace 'budget-8k': database disk image "
                                       "is malformed (column 'text' holds bytes that are not UTF-8)\n")


def test_a_read_whose_transaction_sqlite_ended_raises_its_own_error(tmp_path: Path) -> None:
    """list's snapshot: SQLite may end the read transaction on an error inside it (an interrupt, a
    damaged page); the error of the read must surface, not COMMIT's "no transaction is active"."""
    from ctxviewer.cli.list_cmd import snapshot
    from ctxviewer.store import StoreError

    with TraceStore.open(SAMPLES) as store:
        with pytest.raises(StoreError) as err, snapshot(store):
            store._conn.execute("ROLLBACK")  # what SQLite does itself on some errors
            raise StoreError(SAMPLES, "cannot list traces: database disk image is malformed")
        assert str(err.value) == f"{SAMPLES}: cannot list traces: database disk image is malformed"
        assert not store._conn.in_transaction
        with pytest.raises(StoreError), snapshot(store):  # the transaction open: rolled back
            raise StoreError(SAMPLES, "x")
        assert not store._conn.in_transaction
        with snapshot(store):
            assert store._conn.in_transaction
        assert not store._conn.in_transaction


def test_check_names_the_trace_once(tmp_path: Path) -> None:
    """'... cannot read items of trace 'budget-8k': ... (trace 'budget-8k')' said the id twice."""
    bad = tmp_path / "u.db"
    shutil.copyfile(SAMPLES, bad)
    with closing(sqlite3.connect(bad)) as conn:
        conn.execute("UPDATE blobs SET text = CAST(X'4869FF' || CAST(text AS BLOB) AS TEXT) WHERE hash = "
                     "(SELECT content_hash FROM items WHERE trace_id = 'budget-8k' ORDER BY ordinal LIMIT 1)")
        conn.commit()
    code, out, err = run("check", str(bad), "budget-8k")
    assert (code, out, err) == (2, "", f"Error: {bad}: cannot read items of trace 'budget-8k': database disk image "
                                       "is malformed (column 'text' holds bytes that are not UTF-8)\n")
