"""The README's tables are true to the code: the command table has a row for every click command
naming each of its options (and each value of a choice option), and the import-formats table
lists every importer of the registry, which ``import --help`` lists too (issue 27 item 7)."""

from __future__ import annotations

import re
from pathlib import Path

import click
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.importers.registry import REGISTRY

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _first_cells(section: str) -> list[str]:
    return [line.split(" | ", 1)[0] for line in section.splitlines() if line.startswith("| `")]


def _command_rows() -> dict[str, str]:
    """Command name -> the first cell of its row in the command table (``open`` is the window's row)."""
    rows: dict[str, str] = {}
    for cell in _first_cells(_section("Command line")):
        for name in re.findall(r"`ctxviewer (\w[\w-]*)", cell):
            rows.setdefault(name, cell)
        if cell.startswith("| `ctxviewer [DB]`"):
            rows.setdefault("open", cell)
    return rows


def missing_from_command_table() -> list[str]:
    """What the README's command table lacks, one line each: ``"no row for 'ctxviewer serve'"``,
    ``"row 'ctxviewer export' lacks --redact"``, ``"row 'ctxviewer export' lacks --format value native"``."""
    rows = _command_rows()
    missing = []
    for name in sorted(cli.commands):
        cmd = cli.commands[name]
        row = rows.get(name)
        if row is None:
            missing.append(f"no row for 'ctxviewer {name}' (add `| \\`ctxviewer {name} ...\\` | what it does |`)")
            continue
        for param in cmd.params:
            if not isinstance(param, click.Option) or param.hidden or param.name == "help":
                continue
            flag = max(param.opts, key=len)
            if not any(re.search(re.escape(opt) + r"(?![\w-])", row) for opt in param.opts + param.secondary_opts):
                missing.append(f"row 'ctxviewer {name}' lacks {flag}")
                continue
            if isinstance(param.type, click.Choice):
                for value in param.type.choices:
                    if not re.search(rf"(?<![\w-]){re.escape(str(value))}(?![\w-])", row):
                        missing.append(f"row 'ctxviewer {name}' lacks {flag} value {value}")
    return missing


def test_the_command_table_names_every_command_and_option() -> None:
    missing = missing_from_command_table()
    assert not missing, "README.md command table (## Command line):\n  " + "\n  ".join(missing)


def test_the_check_reports_a_missing_row_and_option_by_name(monkeypatch) -> None:
    @click.command("frobnicate")
    @click.option("--widgets", type=int)
    def frob(widgets: int) -> None:
        """Example: none."""

    monkeypatch.setitem(cli.commands, "frobnicate", frob)
    assert any(m.startswith("no row for 'ctxviewer frobnicate'") for m in missing_from_command_table())
    monkeypatch.setattr(cli.commands["export"], "params",
                        [*cli.commands["export"].params, click.Option(["--gizmo"])])
    assert "row 'ctxviewer export' lacks --gizmo" in missing_from_command_table()


def test_the_import_formats_table_lists_every_importer() -> None:
    listed = {n for cell in _first_cells(_section("Import formats")) for n in re.findall(r"`([\w-]+)`", cell)}
    missing = [n for n in REGISTRY.names() if n not in listed]
    assert not missing, f"README.md ## Import formats has no row naming --format {', '.join(missing)}"
    assert listed - {"--format"} <= set(REGISTRY.names()), "README lists a format the registry does not have"


def test_import_help_lists_every_format() -> None:
    out = CliRunner().invoke(cli, ["import", "--help"], terminal_width=200).stdout
    flat = " ".join(out.split())
    assert "One of: " + ", ".join(REGISTRY.names()) + "." in flat
    assert REGISTRY.names()[:3] == ["native", "openinference", "otel"]


def test_readme_commands_need_no_sudo_and_say_how_to_run_without_a_display() -> None:
    assert not re.search(r"(?m)^\s+sudo ", README)
    section = _section("Without a display")
    assert "QT_QPA_PLATFORM=offscreen" in section
    # every command but the two that draw the window (open; screenshot, named on its own) is listed
    named = set(re.findall(r"`([a-z-]+)`", section.split("never open one")[0]))
    assert named == set(cli.list_commands(click.Context(cli))) - {"open", "screenshot"}
