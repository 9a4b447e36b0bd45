"""The README stays true: every CLI command is documented, and CI runs the README's test command."""

from __future__ import annotations

from pathlib import Path

from ctxviewer.cli import cli

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_command_is_documented() -> None:
    for name in cli.commands:
        if name == "open":
            assert "`ctxviewer open [DB]`" in README
        else:
            assert f"`ctxviewer {name} " in README, f"README does not document 'ctxviewer {name}'"


def test_every_command_help_ends_with_an_example() -> None:
    for name, cmd in cli.commands.items():
        assert "Example" in (cmd.help or ""), name


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_cmd = next(
        line.strip() for line in README.splitlines() if "pytest" in line and line.startswith("    ")
    )
    assert test_cmd in ci


def test_readme_opens_the_sample_database_that_exists() -> None:
    assert ".venv/bin/ctxviewer sample_traces/samples.db" in README
    assert (ROOT / "sample_traces" / "samples.db").is_file()
