"""Start-up (issue 11): a CLI command and a read-only open import neither numpy, sqlite-utils, Qt,
pyqtgraph, pygments nor tiktoken; each runs in a fresh interpreter so nothing else has imported them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"
HEAVY = ("numpy", "sqlite_utils", "PySide6", "pyqtgraph", "pygments", "tiktoken")


def _modules_after(code: str) -> dict[str, object]:
    probe = (
        "import sys, json, io, contextlib\n"
        f"{code}\n"
        f"print('@@' + json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("@@"))
    return dict(json.loads(line[2:]))


def test_show_json_imports_no_heavy_module() -> None:
    loaded = _modules_after(
        "from ctxviewer.cli import main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    try:\n"
        f"        main(['show', {str(SAMPLES)!r}, 'budget-8k', '--json'])\n"
        "    except SystemExit as exc:\n"
        "        assert not exc.code, exc.code\n"
        "assert json.loads(buf.getvalue())['trace_id'] == 'budget-8k'\n"
    )
    assert loaded == {m: False for m in HEAVY}


def test_list_json_imports_no_heavy_module() -> None:
    loaded = _modules_after(
        "from ctxviewer.cli import main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    try:\n"
        f"        main(['list', {str(SAMPLES)!r}, '--json'])\n"
        "    except SystemExit as exc:\n"
        "        assert not exc.code, exc.code\n"
        "assert len(json.loads(buf.getvalue())) == 9\n"
    )
    assert loaded == {m: False for m in HEAVY}


def test_read_only_open_list_and_load_need_only_sqlite3() -> None:
    loaded = _modules_after(
        "from ctxviewer.store import TraceStore\n"
        f"st = TraceStore.open({str(SAMPLES)!r})\n"
        "keys = st.row_keys()\n"
        "assert len(keys) == 9 and st.rows_by_key(keys[:2])[0].trace_id\n"
        "assert st.load('budget-8k').items\n"
    )
    assert loaded == {m: False for m in HEAVY}


def test_commands_load_lazily_but_all_are_listed() -> None:
    from ctxviewer.cli import cli

    assert {"tokens", "whatif", "scan", "report", "diff", "check", "upgrade", "export", "show", "list"} <= set(cli.commands)
    assert cli.commands["upgrade"].name == "upgrade"


def test_show_json_loads_no_importer() -> None:
    """Whether a trace's omissions were recorded is a field of the trace, set at import: ``show``
    imports no importer module (yaml, the OTel mapping, ...) and no text-table module; the
    registry still answers for each format."""
    probe = (
        "import sys, io, contextlib, json\n"
        "from ctxviewer.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main(['show', {str(SAMPLES)!r}, 'budget-8k', '--json'])\n"
        "    except SystemExit as exc:\n"
        "        assert not exc.code, exc.code\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('ctxviewer.importers'))\n"
        "from ctxviewer.importers import omissions_recorded\n"
        "print('@@' + json.dumps({'loaded': loaded, 'other': [m for m in ('yaml', 'tabulate', 'jsonschema', 'lark') if m in sys.modules],\n"
        "    'recorded': [omissions_recorded(f) for f in ('native', 'otel', 'langfuse', None, 'no-such-format')]}))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(next(x for x in out.stdout.splitlines() if x.startswith("@@"))[2:])
    assert got["loaded"] == []
    assert got["other"] == []
    assert got["recorded"] == [True, False, False, True, True]


def test_show_json_loads_no_diff_module_but_the_conversation() -> None:
    """``show`` derives messages dropped between calls (``diff.conversation``, whose thread rule is
    ``diff.threads``); the rest of
    ``ctxviewer.diff`` (alignment, word diff, results) is imported on first use, not by show."""
    probe = (
        "import sys, io, contextlib, json\n"
        "from ctxviewer.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main(['show', {str(SAMPLES)!r}, 'budget-8k', '--json'])\n"
        "    except SystemExit as exc:\n"
        "        assert not exc.code, exc.code\n"
        "print('@@' + json.dumps(sorted(m for m in sys.modules if m.startswith('ctxviewer.diff'))))\n"
        "from ctxviewer.diff import diff_traces, word_diff\n"
        "assert diff_traces.__module__ == 'ctxviewer.diff.request' and word_diff.__module__ == 'ctxviewer.diff.words'\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(next(x for x in out.stdout.splitlines() if x.startswith("@@"))[2:])
    assert got == ["ctxviewer.diff", "ctxviewer.diff.conversation", "ctxviewer.diff.identity", "ctxviewer.diff.threads"]
