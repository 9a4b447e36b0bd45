"""The README stays true: every CLI command is documented, and CI runs the README's test command."""

from __future__ import annotations

import re
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


def test_readme_builder_example_runs_in_nine_lines(tmp_path: Path, monkeypatch, capsys) -> None:
    import re

    from ctxviewer.store import TraceStore

    section = README.split("## Building requests from your application", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]
    assert len([line for line in code.splitlines() if line.strip()]) == 9
    monkeypatch.chdir(tmp_path)
    scope: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), scope)
    assert capsys.readouterr().out == "37 []\n"
    result = scope["result"]
    with TraceStore.open(tmp_path / "traces.db") as store:
        back = store.load(result.trace.trace_id)  # type: ignore[attr-defined]
    assert [i.id for i in back.retained] == ["policy", "ORD-1", "question"]
    assert (back.input_tokens, back.reserved_output_tokens, back.policy.version) == (37, 1200, "v3")


def test_the_command_list_does_not_cut_a_summary_at_eq() -> None:
    from click.testing import CliRunner

    out = CliRunner().invoke(cli, ["--help"], terminal_width=80).stdout
    # the column is as wide as the longest command name (position-test), so the summary may wrap
    assert re.search(r"\n  show +Show one trace: eq\. 3\.1 verdict, allocations and items in\s+order\.\n", out)
    assert "Show one trace: eq.\n" not in out


def test_the_readme_says_how_to_run_bare_ctxviewer_and_what_shared_is() -> None:
    assert "`. .venv/bin/activate`" in README and "`.venv/bin/ctxviewer`" in README
    assert "`../shared` is the team's shared data directory beside this checkout" in README
    assert "The whole suite (about 3,110 tests) took" in README
    assert 'pytest -q -m "not slow"' in README
