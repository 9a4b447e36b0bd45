"""``ctxviewer tokens``: text and JSON reports of a raw request's tokens."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ctxviewer.cli import cli

WEATHER = Path(__file__).resolve().parents[1] / "data" / "requests" / "weather_tool.json"


def test_json_keys_and_values() -> None:
    res = CliRunner().invoke(cli, ["tokens", str(WEATHER), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert {"total", "framing", "tools", "encoding", "assumed", "items"} <= set(out)
    assert (out["total"], out["framing"], out["tools"], out["encoding"], out["assumed"]) == (
        101, 11, 68, "o200k_base", False)
    assert [(i["role"], i["content"], i["framing"]) for i in out["items"]] == [("system", 14, 4), ("user", 8, 4)]


def test_model_option_and_text_report() -> None:
    res = CliRunner().invoke(cli, ["tokens", str(WEATHER), "--model", "gpt-4"])
    assert res.exit_code == 0, res.output
    assert "105 input tokens on gpt-4 (cl100k_base;" in res.output
    assert "total: 105 = content 23 + framing 11 + tools 71" in res.output


def test_unknown_model_says_assumed(tmp_path: Path) -> None:
    req = tmp_path / "r.json"
    req.write_text(json.dumps({"model": "corp-gateway-7", "messages": [{"role": "user", "content": "hello"}]}))
    res = CliRunner().invoke(cli, ["tokens", str(req)])
    assert res.exit_code == 0
    assert res.output.splitlines()[0].endswith(
        "8 input tokens on corp-gateway-7 (no profile for 'corp-gateway-7'; o200k_base assumed)")
    assert res.output.count("assumed") == 1  # said once, not in the label, the reason and a note


def test_bad_file_and_encoding_are_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    res = CliRunner().invoke(cli, ["tokens", str(bad)])
    assert res.exit_code == 2 and "bad.json: not a JSON request" in res.output
    res = CliRunner().invoke(cli, ["tokens", str(WEATHER), "--encoding", "p50k_base"])
    assert res.exit_code == 2 and "encoding 'p50k_base' is not available offline" in res.output


def test_a_request_without_messages_says_so_instead_of_an_empty_table(tmp_path: Path) -> None:
    # newuser s3 #14: the empty table's header row did not line up
    req = tmp_path / "t1.json"
    req.write_text('{"messages": []}')
    res = CliRunner().invoke(cli, ["tokens", str(req)])
    assert res.exit_code == 0, res.output
    assert res.stdout == (f"{req}: 3 input tokens on an unnamed model (model not recorded; o200k_base assumed)\n"
                          "items: none (the request has no messages)\n"
                          "framing: 3 tokens (per message, roles, names; reply priming 3)\n"
                          "total: 3 = content 0 + framing 3 + tools 0\n")


SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def test_a_file_that_is_not_utf8_text_is_named_for_what_it_is(tmp_path: Path) -> None:
    """New user (wt-nu): a trace database or a binary file gave the codec's words ("'utf-8' codec
    can't decode byte 0xaf in position 31: invalid start byte")."""
    res = CliRunner().invoke(cli, ["tokens", str(SAMPLES)])
    assert (res.exit_code, res.stdout, res.stderr) == (
        2, "", f"Error: {SAMPLES}: not a JSON request: an SQLite database (a trace database? `ctxviewer show DB "
               "TRACE_ID` counts a stored trace)\n")
    binary = tmp_path / "b.bin"
    binary.write_bytes(b"{\"a\xff\"}")
    res = CliRunner().invoke(cli, ["tokens", str(binary)])
    assert (res.exit_code, res.stderr) == (2, f"Error: {binary}: not a JSON request: not UTF-8 text (invalid start "
                                              "byte at byte 3)\n")


def test_a_request_with_a_utf8_byte_order_mark_is_read(tmp_path: Path) -> None:
    """A BOM (Windows editors write one) was 'Unexpected UTF-8 BOM (decode using utf-8-sig)'."""
    req = tmp_path / "bom.json"
    req.write_bytes(b"\xef\xbb\xbf" + json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}).encode())
    res = CliRunner().invoke(cli, ["tokens", str(req), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["total"] == 8
