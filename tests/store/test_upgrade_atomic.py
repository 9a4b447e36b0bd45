"""The upgraded copy appears only when complete (a temporary file renamed into place), and a new
database's schema is built once even when two imports start together."""

from __future__ import annotations

import os
import signal
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import SCHEMA_VERSION, StoreError, TraceStore, upgrade_copy

DATA = Path(__file__).resolve().parents[1] / "data" / "store"
SAMPLE_JSONL = Path(__file__).resolve().parents[2] / "sample_traces" / "traces.jsonl"


def _old(tmp_path: Path) -> Path:
    old = tmp_path / "src" / "old.db"
    old.parent.mkdir()
    old.write_bytes((DATA / "schema-1.db").read_bytes())
    return old


def test_sigterm_during_an_upgrade_leaves_no_target_and_no_temporary_file(tmp_path: Path) -> None:
    old = _old(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    seen: list[str] = []

    def progress(line: str) -> None:
        seen.append(line)
        if line.startswith("schema step 3 "):
            os.kill(os.getpid(), signal.SIGTERM)

    before = old.read_bytes()
    with pytest.raises(SystemExit) as exit_:
        upgrade_copy(old, out / "new.db", progress=progress)
    assert exit_.value.code == 128 + signal.SIGTERM
    assert seen[-1].startswith("schema step 3 ")
    assert list(out.iterdir()) == []  # neither new.db nor the temporary copy or its journal
    assert old.read_bytes() == before
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handler is put back


def test_a_failing_back_fill_leaves_no_target_and_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The back-fill of facts runs on the copy before its rename: when it fails, nothing is left."""
    from ctxviewer.pipeline.backfill import upgrade_with_facts

    old = _old(tmp_path)
    out = tmp_path / "out"
    out.mkdir()

    def boom(self: TraceStore, facts: object) -> int:
        raise StoreError(self.path, "cannot reassess traces: disk full (simulated)")

    monkeypatch.setattr(TraceStore, "write_facts", boom)
    with pytest.raises(StoreError) as err:
        upgrade_with_facts(old, out / "new.db")
    assert err.value.problem == "cannot reassess traces: disk full (simulated)"
    assert list(out.iterdir()) == []


def test_the_completed_copy_is_renamed_into_place(tmp_path: Path) -> None:
    old = _old(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    result = upgrade_copy(old, out / "new.db")
    assert (result.from_version, result.to_version, result.traces) == (1, SCHEMA_VERSION, 2)
    assert [p.name for p in out.iterdir()] == ["new.db"]
    with closing(sqlite3.connect(out / "new.db")) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


def test_an_interrupted_schema_build_commits_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The steps and ``user_version`` commit together: a failure in a late step leaves no table."""
    from ctxviewer.store import migrations

    def boom(db: object) -> None:
        raise sqlite3.OperationalError("interrupted (simulated)")

    fns = list(migrations._STEP_FNS)
    monkeypatch.setattr(migrations, "_MIGRATIONS", [])
    monkeypatch.setattr(migrations, "_STEP_FNS", fns[:-1] + [boom])
    db = tmp_path / "new.db"
    with pytest.raises(StoreError):
        TraceStore.create(db)
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (0,)
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == []


def _import_after(barrier: object, db: str, path: str, results: object) -> None:
    barrier.wait()  # type: ignore[attr-defined]
    try:
        report = import_into(db, [path], waiting=lambda _m: None)
        results.put(("ok", report.imported))  # type: ignore[attr-defined]
    except BaseException as exc:
        results.put(("error", str(exc)))  # type: ignore[attr-defined]


@pytest.mark.parametrize("attempt", range(3))
def test_two_imports_started_together_into_a_new_database_both_land(tmp_path: Path, attempt: int) -> None:
    """Two processes released together import into the same new file: the schema is built once
    (the second waits on the first's ``BEGIN IMMEDIATE``), both imports land, no error."""
    import multiprocessing

    from ctxviewer.importers import REGISTRY

    REGISTRY.get("native")  # loaded before the fork, as each CLI process has it loaded
    ctx = multiprocessing.get_context("fork")
    db = tmp_path / "race.db"
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_import_after, args=(barrier, str(db), str(SAMPLE_JSONL), results))
             for _ in range(2)]
    for p in procs:
        p.start()
    got = sorted(results.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(30)
    assert got == [("ok", 9), ("ok", 9)]
    with TraceStore.open(db) as store:
        assert store.count() == 9  # the same ids: the second import replaced the first's rows
