"""Each command loads only what it uses (issue 25 item 1): ``--help``, ``list``, ``show --json``
and ``search`` run as ``python -m ctxviewer`` in a fresh interpreter, which writes the names in
``sys.modules`` at exit; the test lists the ctxviewer modules ``--help`` loads exactly, and for
every command the heavy modules it must not load (the builder, the scanner, redaction, what-if,
tabulate, tiktoken, Qt, ...). The group's help lists the lazily registered commands by their
summaries, which must say what each command's own help says (at every width click may cut it to).
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"

PROBE = (
    "import atexit, json, runpy, sys\n"
    "out = sys.argv[1]\n"
    "atexit.register(lambda: open(out, 'w').write(json.dumps(sorted(sys.modules))))\n"
    "sys.argv = ['ctxviewer', *sys.argv[2:]]\n"
    "runpy.run_module('ctxviewer', run_name='__main__')\n"
)

NEVER = ("PySide6", "pyqtgraph", "numpy", "sqlite_utils", "tiktoken", "tabulate", "pygments", "jsonschema", "yaml",
         "ctxviewer.gui", "ctxviewer.builder", "ctxviewer.builder.whatif", "ctxviewer.report.redact",
         "ctxviewer.importers", "ctxviewer.pipeline.importing", "urllib.request")
"""Loaded by no command of this file: Qt, the builder and what-if, redaction, the importers,
tabulate, tiktoken (stored counts are read, never re-counted here), sqlite-utils (writing only)."""


def _modules(tmp_path: Path, *args: str) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    out = tmp_path / "modules.json"
    run = subprocess.run([sys.executable, "-c", PROBE, str(out), *args], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    return set(json.loads(out.read_text())), run


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if n in modules]


def test_help_loads_only_the_group(tmp_path: Path) -> None:
    modules, run = _modules(tmp_path, "--help")
    assert run.returncode == 0, run.stderr
    listed = {line.split()[0]: " ".join(line.split()[1:]) for line in run.stdout.split("Commands:")[1].splitlines()
              if line.startswith("  ") and not line.startswith("    ")}
    from ctxviewer.cli import _LAZY

    assert set(_LAZY) <= set(listed)  # every command listed, none imported
    assert listed["check"].startswith("Run every check (Table 3.1 rows, tool calls,")
    assert sorted(m for m in modules if m.startswith("ctxviewer")) == [
        "ctxviewer", "ctxviewer.cli", "ctxviewer.cli.format_help", "ctxviewer.cli.group", "ctxviewer.cli.output",
        "ctxviewer.cli.status", "ctxviewer.cli.stores"]
    assert _loaded(modules, (*NEVER, "sqlite3", "ctxviewer.store", "ctxviewer.util.visible", "wcwidth", "cattrs",
                             "frozendict", "lark")) == []


def test_list_loads_the_store_and_the_table_only(tmp_path: Path) -> None:
    modules, run = _modules(tmp_path, "list", str(SAMPLES), "--limit", "3")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[2].split()[2] == "history-16k"
    assert {"ctxviewer.store.listing", "ctxviewer.cli.list_table", "ctxviewer.cli.simple_table"} <= modules
    assert _loaded(modules, (*NEVER, "ctxviewer.assess.assessment", "ctxviewer.assess.scanner", "ctxviewer.report",
                             "ctxviewer.model.codec", "cattrs", "ctxviewer.diff", "ahocorasick", "lark",
                             "ctxviewer.tokens.catalogue", "genai_prices", "importlib.metadata")) == []  # costs are read
    # into a pipe: no terminal size (shutil and its bz2, lzma), no ctxviewer.toml to parse, no ClickHouse
    # target (and its logging) to tell a file from a store's URL, no token counting (counts are read)
    assert _loaded(modules, ("shutil", "bz2", "lzma", "tomllib", "logging", "ctxviewer.pipeline.clickhouse.target",
                             "ctxviewer.tokens.counting", "importlib.resources", "ctxviewer.model.table31",
                             "ctxviewer.store.upgrade", "ctxviewer.util.new_file")) == []  # nothing is upgraded
    # no --filter: the filter grammar and its compiler are not imported
    assert _loaded(modules, ("ctxviewer.store.filters", "ctxviewer.store.filters.compiler", "ctxviewer.tokens.placeholders")) == []
    # rows are read as rows: no trace model (about 10 ms), no run steps
    assert _loaded(modules, ("ctxviewer.model.trace", "ctxviewer.model.run")) == []


def test_list_jsonl_needs_no_table(tmp_path: Path) -> None:
    modules, run = _modules(tmp_path, "list", str(SAMPLES), "--jsonl")
    assert run.returncode == 0, run.stderr
    assert [json.loads(line)["trace_id"] for line in run.stdout.splitlines()][:2] == ["history-16k", "budget-8k"]
    assert _loaded(modules, (*NEVER, "ctxviewer.cli.list_table", "wcwidth", "ctxviewer.assess.assessment",
                             "ctxviewer.model.codec", "cattrs")) == []


def test_show_json_loads_the_assessment_but_no_builder(tmp_path: Path) -> None:
    modules, run = _modules(tmp_path, "show", str(SAMPLES), "budget-8k", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["trace_id"] == "budget-8k"
    assert {"ctxviewer.assess.assessment", "ctxviewer.report.trace_report"} <= modules  # what show says
    # the header's cost line prices the usage with genai-prices' bundled data, imported without its HTTP
    # client for price updates (ctxviewer.tokens.price_library): nothing is fetched, no client is loaded
    assert "genai_prices" in modules
    assert _loaded(modules, (*NEVER, "ctxviewer.cli.list_table", "wcwidth", "lark", "imagesize", "httpx2", "asyncio",
                             "ssl", "http.client")) == []
    assert _loaded(modules, ("tomllib", "ctxviewer.pipeline.clickhouse.target", "ctxviewer.replay", "ctxviewer.review",
                             "platformdirs", "ctxviewer.assess.scanner.start_table_build")) == []


def test_search_loads_the_index_only(tmp_path: Path) -> None:
    modules, run = _modules(tmp_path, "search", str(SAMPLES), "policy", "--limit", "1")
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("\t") == 2
    assert "ctxviewer.store.fts" in modules
    assert _loaded(modules, (*NEVER, "ctxviewer.assess.assessment", "ctxviewer.assess.scanner", "ctxviewer.report",
                             "ctxviewer.model.codec", "cattrs", "ctxviewer.cli.list_table")) == []
    # into a pipe: no live progress line (shutil, bz2, lzma), no settings file or ClickHouse target, no prices
    assert _loaded(modules, ("shutil", "bz2", "lzma", "tomllib", "logging", "ctxviewer.pipeline.clickhouse.target",
                             "ctxviewer.tokens.counting", "ctxviewer.tokens.cost", "decimal", "genai_prices",
                             "ctxviewer.present.columns", "ctxviewer.assess.checks")) == []


@pytest.mark.parametrize("limit", [20, 34, 45, 60, 74, 200])
def test_every_summary_is_what_the_command_says(limit: int) -> None:
    from ctxviewer.cli import _LAZY, _SHORT, _SUMMARIES

    lazy = dict(_LAZY)
    assert set(_SUMMARIES) == set(lazy)  # every lazily registered command has a summary
    for name, spec in lazy.items():
        module, attr = spec.split(":")
        real: click.Command = getattr(importlib.import_module(module), attr)
        stand_in = click.Command(name, short_help=_SUMMARIES[name]) if name in _SHORT else click.Command(
            name, help=_SUMMARIES[name])
        assert stand_in.get_short_help_str(limit) == real.get_short_help_str(limit), name
        assert (name in _SHORT) == bool(real.short_help), name
