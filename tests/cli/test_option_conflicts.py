"""Options that cannot all be honoured are usage errors (exit status 2), never silently ignored or
silently won by one of them (the new user's F-SHOW-CONTENT, F-FLAGS, F-TOKENS)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"
WEATHER = ROOT / "tests" / "data" / "requests" / "weather_tool.json"


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_show_content_without_json_is_a_usage_error() -> None:
    code, out, err = run("show", str(SAMPLES), "budget-8k", "--content")
    assert (code, out, err.splitlines()[-1]) == (2, "", "Error: --content needs --json")
    code, out, _ = run("show", str(SAMPLES), "budget-8k", "--content", "--json")
    assert code == 0 and '"text": ' in out


@pytest.mark.parametrize("fmt", ["sarif", "text"])
def test_check_json_with_another_format_is_contradictory(fmt: str) -> None:
    code, out, err = run("check", str(SAMPLES), "--json", "--format", fmt)
    assert (code, out, err.splitlines()[-1]) == (2, "", f"Error: --json is --format json: not with --format {fmt}")


def test_check_json_with_format_json_says_the_same_thing_twice() -> None:
    assert run("check", str(SAMPLES), "budget-8k", "--json", "--format", "json")[:2] == \
        run("check", str(SAMPLES), "budget-8k", "--json")[:2]


@pytest.mark.parametrize("model", ["", "   "])
def test_tokens_with_an_empty_model_name_is_refused(model: str) -> None:
    code, out, err = run("tokens", str(WEATHER), "--model", model)
    assert (code, out, err.splitlines()[-1]) == (
        2, "", "Error: Invalid value for '--model': an empty model name; give one (gpt-4o, claude-3-5-sonnet) "
               "or leave --model out")
