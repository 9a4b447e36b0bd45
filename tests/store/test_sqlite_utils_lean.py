"""sqlite-utils is imported without its pandas and numpy probes (ctxviewer.util.held_absent), and
the probes' packages stay importable afterwards."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ctxviewer.util.held_absent import import_holding_absent

ROOT = Path(__file__).resolve().parents[2]


def _run(script: str) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    return out.stdout.strip()


def test_writing_a_database_never_imports_pandas_or_numpy(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    out = _run(f"""
        import sys
        from ctxviewer.store import TraceStore
        store = TraceStore.create({str(db)!r})
        store.add([])
        store.close()
        import sqlite_utils.db
        print(sorted(m for m in ("pandas", "numpy", "sqlite_utils") if m in sys.modules),
              sqlite_utils.db.pd, sqlite_utils.db.np)
    """)
    assert out == "['sqlite_utils'] None None"


@pytest.mark.skipif(importlib.util.find_spec("pandas") is None, reason="pandas is not installed here")
def test_pandas_is_the_real_one_after_sqlite_utils_came_in() -> None:
    out = _run("""
        from ctxviewer.util.held_absent import sqlite_utils_module
        sqlite_utils_module()
        import pandas
        print(type(pandas.DataFrame({"a": [1, 2]})).__name__, len(pandas.DataFrame({"a": [1, 2]})))
    """)
    assert out == "DataFrame 2"


def test_a_package_already_imported_is_seen_by_the_probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "probe_extra.py").write_text("X = 7\n")
    (tmp_path / "probing_mod.py").write_text(textwrap.dedent("""
        try:
            import probe_extra
            FOUND = probe_extra.X
        except ImportError:
            FOUND = None
        try:
            import probe_missing
            MISSING = "imported"
        except ImportError:
            MISSING = "absent"
    """))
    (tmp_path / "probe_missing.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    import probe_extra  # noqa: F401  # imported before: left as it is
    mod = import_holding_absent("probing_mod", ("probe_extra", "probe_missing"))
    assert (mod.FOUND, mod.MISSING) == (7, "absent")
    assert "probe_missing" not in sys.modules  # the stand-in is gone again
    import probe_missing  # the real module, importable now
    assert probe_missing.__name__ == "probe_missing"
    assert import_holding_absent("probing_mod", ()) is mod  # imported once
    for name in ("probing_mod", "probe_extra", "probe_missing"):
        sys.modules.pop(name, None)


def test_a_failing_import_takes_the_stand_ins_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "broken_mod.py").write_text("raise ImportError('broken on purpose')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match="broken on purpose"):
        import_holding_absent("broken_mod", ("held_pkg_xyz",))
    assert "held_pkg_xyz" not in sys.modules


def test_off_the_main_thread_nothing_is_held(tmp_path: Path) -> None:
    """Review 2026-12-07 (rev3 item 2): sys.modules is the whole process's, so a hold on a worker
    thread made another thread's import of pandas fail meanwhile; off the main thread it is a plain
    import (the probe finds its package), on the main thread the package is held absent."""
    (tmp_path / "held_extra.py").write_text("X = 7\n")
    for name in ("probe_a", "probe_b"):
        (tmp_path / f"{name}.py").write_text("try:\n    import held_extra\n    FOUND = held_extra.X\n"
                                           "except ImportError:\n    FOUND = None\n")
    out = _run(f"""
        import sys, threading
        sys.path.insert(0, {str(tmp_path)!r})
        from ctxviewer.util.held_absent import import_holding_absent
        seen = []
        t = threading.Thread(target=lambda: seen.append(import_holding_absent("probe_a", ("held_extra",)).FOUND))
        t.start(); t.join()
        del sys.modules["held_extra"]
        print(seen[0], import_holding_absent("probe_b", ("held_extra",)).FOUND)
    """)
    assert out == "7 None"
