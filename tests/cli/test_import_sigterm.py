"""``kill PID`` during ``ctxviewer import`` into a new database (newuser s5 #7): the process used
to die at once, leaving the new database and a hot journal behind; Ctrl+C already cleaned up."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from factories import make_trace

from ctxviewer.importers.formats.native import write_jsonl

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_sigterm_during_an_import_into_a_new_file_leaves_nothing(tmp_path: Path) -> None:
    src = tmp_path / "many.jsonl"
    base = make_trace()
    write_jsonl((replace(base, trace_id=f"t-{i:05d}") for i in range(4000)), src)
    db = tmp_path / "new.db"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.Popen([sys.executable, "-m", "ctxviewer", "import", str(src), "-o", str(db)], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    journal = tmp_path / "new.db-journal"  # exists only while the import's write transaction is open
    while not journal.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    assert proc.poll() is None, "the import ended before it could be interrupted"
    proc.send_signal(signal.SIGTERM)  # inside the transaction (a fixed sleep outlived a faster import)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many.jsonl"]
    # said as Ctrl+C says it (new-user finding nu3 #17: it was silent)
    assert err.decode().splitlines()[-1] == f"terminated: nothing was written; {db} was not created"


def test_sigterm_exits_is_a_no_op_outside_the_main_thread() -> None:
    import threading

    from ctxviewer.util.interrupt import sigterm_exits

    seen: list[object] = []

    def run() -> None:
        with sigterm_exits():
            seen.append(signal.getsignal(signal.SIGTERM))

    before = signal.getsignal(signal.SIGTERM)
    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert seen == [before]
    with sigterm_exits():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before
