"""Issue 12, readers and writers together: viewing never writes; an import lets readers read; a
second import waits with a clear message; a cancelled import changes no byte; a writer killed with
SIGKILL mid-import leaves the database consistent with all or none of that import."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest
from factories import make_trace

from ctxviewer.importers.formats.native import write_jsonl
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.importing import import_into
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import StoreError, TraceStore

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"


def _state(path: Path) -> tuple[str, int, list[str]]:
    """(sha256 of the bytes, mtime in ns, files in the folder)."""
    return (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns, sorted(os.listdir(path.parent)))


def _traces(n: int, prefix: str = "t") -> list[RequestTrace]:
    base = make_trace()
    return [replace(base, trace_id=f"{prefix}{i}", items=tuple(replace(it, content=f"{it.content} #{prefix}{i}", tokens=None)
                                                               for it in base.items)) for i in range(n)]


def _copy_samples(tmp_path: Path) -> Path:
    db = tmp_path / "view" / "samples.db"
    db.parent.mkdir()
    shutil.copy(SAMPLES, db)
    os.utime(db, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    return db


def test_viewing_never_changes_bytes_or_mtime_and_leaves_no_sidecar(tmp_path: Path) -> None:
    db = _copy_samples(tmp_path)
    before = _state(db)
    with TraceStore.open(db) as store:
        for row in store.list(limit=-1):
            store.load(row.trace_id)
            for item in store.items(row.trace_id):
                if item.content:
                    store.token_count(item.content, "o200k_base")  # a cache miss: kept in memory only
    assert _state(db) == before == (before[0], 1_000_000_000_000_000_000, ["samples.db"])


def test_a_wal_database_opens_read_only_without_sidecars(tmp_path: Path) -> None:
    db = _copy_samples(tmp_path)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    n = conn.execute("SELECT count(*) FROM traces").fetchone()[0]
    conn.close()
    assert not Path(f"{db}-wal").exists()  # a clean close checkpoints and removes it
    before = _state(db)
    with TraceStore.open(db) as store:
        assert store.count() == n > 0
    assert _state(db) == before and before[2] == ["samples.db"]


class _Paused:
    """A trace generator that stops after ``first`` traces until released."""

    def __init__(self, traces: list[RequestTrace], first: int) -> None:
        self.traces, self.first = traces, first
        self.reached, self.release = threading.Event(), threading.Event()

    def __iter__(self) -> Iterator[RequestTrace]:
        for i, t in enumerate(self.traces):
            if i == self.first:
                self.reached.set()
                assert self.release.wait(30)
            yield t


def test_readers_read_while_an_import_writes_and_a_second_import_waits(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with TraceStore.create(db) as store:
        store.add(with_facts(_traces(3, "old")))
    gen = _Paused(with_facts(_traces(40, "new")), first=20)
    writer = TraceStore.create(db)
    thread = threading.Thread(target=writer.add, args=(gen,))
    thread.start()
    try:
        assert gen.reached.wait(30)
        with TraceStore.open(db) as reader:  # the viewer and `ctxviewer list` while the import writes
            assert sorted(r.trace_id for r in reader.list(limit=-1)) == ["old0", "old1", "old2"]
            assert reader.load("old1").trace_id == "old1"
        told: list[str] = []
        # nothing to upgrade, so opening for writing is no "database is locked"
        with TraceStore.create(db) as second, pytest.raises(
                StoreError, match=r"another program is writing to this database \(an import, or any holder of its write lock\); waited 0.3 s"):
            second.add(with_facts(_traces(1, "second")), waiting=told.append, write_wait_s=0.3)
        assert told == [f"another program is writing to {db}; waiting up to 0.3 s"]
    finally:
        gen.release.set()
        thread.join(30)
        writer.close()
    with TraceStore.open(db) as reader:
        assert reader.count() == 43


def test_a_second_import_waits_for_the_first_and_then_writes(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with TraceStore.create(db) as store:
        store.add(with_facts(_traces(1, "old")))
    gen = _Paused(with_facts(_traces(10, "a")), first=5)
    writer = TraceStore.create(db)
    thread = threading.Thread(target=writer.add, args=(gen,))
    thread.start()
    assert gen.reached.wait(30)
    threading.Timer(0.5, gen.release.set).start()
    told: list[str] = []
    with TraceStore.create(db) as second:
        assert second.add(with_facts(_traces(2, "b")), waiting=told.append, write_wait_s=30) == 2
    thread.join(30)
    writer.close()
    assert len(told) == 1
    with TraceStore.open(db) as reader:
        assert reader.count() == 13


def test_a_cancelled_import_changes_no_byte_of_an_existing_database_and_leaves_no_new_file(tmp_path: Path) -> None:
    src = tmp_path / "in" / "t.jsonl"
    src.parent.mkdir()
    write_jsonl(_traces(5, "c"), src)  # contents not yet counted: the import makes count-cache rows
    db = tmp_path / "t.db"
    with TraceStore.create(db) as store:
        store.add(with_facts(_traces(2, "old")))
    os.utime(db, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    before = _state(db)
    polls = iter(range(1000))
    report = import_into(db, [src], cancelled=lambda: next(polls) >= 2)
    assert report.cancelled and report.imported == 0
    assert _state(db) == before
    new = tmp_path / "new.db"
    report = import_into(new, [src], cancelled=lambda: True)
    assert report.cancelled and report.removed_database and not new.exists()
    assert sorted(os.listdir(tmp_path)) == ["in", "t.db"]


KILL_SCRIPT = """
import sys, time
sys.path.insert(0, {tests!r})
from dataclasses import replace
from factories import make_trace
from ctxviewer.store import TraceStore
from ctxviewer.pipeline.stored_facts import with_facts
base = make_trace()
def gen():
    for i in range(100000):
        if i == 50:
            print("writing", flush=True)
        yield replace(base, trace_id=f"k{{i}}")
        time.sleep(0.001)
with TraceStore.create({db!r}) as store:
    store.add(with_facts(gen()))
"""


@pytest.mark.slow
def test_a_writer_killed_mid_import_leaves_all_or_none(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with TraceStore.create(db) as store:
        store.add(with_facts(_traces(3, "old")))
    script = KILL_SCRIPT.format(tests=str(ROOT / "tests"), db=str(db))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
        time.sleep(0.3)
        assert Path(f"{db}-journal").exists()  # mid-transaction
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
    assert proc.returncode == -signal.SIGKILL
    with TraceStore.create(db) as store:  # the writable open rolls the hot journal back
        assert sorted(r.trace_id for r in store.list(limit=-1)) == ["old0", "old1", "old2"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with TraceStore.open(db) as reader:
        assert reader.count() == 3


def test_a_cancel_during_a_huge_item_stops_inside_it_and_writes_nothing(tmp_path: Path) -> None:
    from ctxviewer.util import interrupt

    base = make_trace()
    big = replace(base, trace_id="big", items=(replace(base.items[0], content="a" * 3_000_000, tokens=None),))
    src = tmp_path / "big.jsonl"
    write_jsonl([big], src)
    calls: list[int] = []
    real = interrupt.checkpoint

    def cancelled() -> bool:  # True from the third poll on: inside the item's token count
        calls.append(1)
        return len(calls) > 2

    report = import_into(tmp_path / "b.db", [src], cancelled=cancelled)
    assert report.cancelled and report.removed_database and not (tmp_path / "b.db").exists()
    assert real is interrupt.checkpoint
    assert 2 < len(calls) < 10  # stopped at a checkpoint inside the one record, not after it


READY = "ctxviewer-test: SIGINT handler installed, import under way"

CLI_WITH_READY_SCRIPT = """
import signal, sys, time
from ctxviewer.store import TraceStore
real = TraceStore.token_counts
def token_counts(self, *args, **kwargs):  # the import has begun counting the big item
    handler = signal.getsignal(signal.SIGINT)
    assert callable(handler), handler  # Python's (or the command's) handler, not SIG_DFL / SIG_IGN
    print({ready!r}, file=sys.stderr, flush=True)
    time.sleep(60)  # the test's SIGINT arrives here and raises inside the import
    return real(self, *args, **kwargs)
TraceStore.token_counts = token_counts
from ctxviewer.cli import cli
sys.exit(cli.main(sys.argv[1:], prog_name="ctxviewer"))
"""


@pytest.mark.slow
def test_ctrl_c_during_a_cli_import_leaves_no_new_file_and_no_changed_byte(tmp_path: Path) -> None:
    """Deterministic under load: the child says on stderr when its SIGINT handler is installed and
    the import is counting the big item's tokens; only then does the test send SIGINT. The import
    says what was kept ("interrupted: nothing was written; ...") and exits 130."""
    base = make_trace()
    big = replace(base, trace_id="big", items=(replace(base.items[0], content="word " * 2_000_000, tokens=None),))
    src = tmp_path / "big.jsonl"
    write_jsonl([big], src)
    old = tmp_path / "old.db"
    with TraceStore.create(old) as store:
        store.add(with_facts(_traces(2, "old")))
    before = _state(old)
    script = CLI_WITH_READY_SCRIPT.format(ready=READY)
    for db in (tmp_path / "new.db", old):
        proc = subprocess.Popen([sys.executable, "-c", script, "import", str(src), "-o", str(db)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        assert proc.stderr is not None
        early = []
        for line in proc.stderr:  # blocks until the child is ready (or ends)
            if line.strip() == READY:
                break
            early.append(line)
        else:
            raise AssertionError(f"the import ended before it was ready: {''.join(early)}")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, (out, err)  # 128 + SIGINT, after saying what was kept
        kept = f"{db} is as it was (the import is one transaction)" if db == old else f"{db} was not created"
        assert err.splitlines()[-1] == f"interrupted: nothing was written; {kept}", err
        assert "Traceback" not in err and "Aborted!" not in err and out == ""
    assert not (tmp_path / "new.db").exists()
    assert _state(old) == before
