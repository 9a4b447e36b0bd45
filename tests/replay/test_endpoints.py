"""[endpoint.NAME] tables of ctxviewer.toml (ctxviewer.replay.endpoints): parsed, validated with a
message per mistake, the key only ever read from its variable."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from ctxviewer.replay.endpoints import EndpointError, api_key, endpoint_named, load_endpoints, parse_file


def _toml(tmp_path: Path, text: str) -> Path:
    (tmp_path / "ctxviewer.toml").write_text(text, encoding="utf-8")
    return tmp_path / "traces.db"


@pytest.fixture(autouse=True)
def _no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("ctxviewer.replay.endpoints.user_config_path", lambda: tmp_path / "user" / "ctxviewer.toml")


def test_an_endpoint_table_is_read_with_its_defaults(tmp_path: Path) -> None:
    db = _toml(tmp_path, '[endpoint.local]\nkind = "openai-compatible"\nbase_url = "http://127.0.0.1:8000/v1/"\n'
                         '[endpoint.claude]\nkind = "anthropic-messages"\nbase_url = "https://api.anthropic.com/v1"\n'
                         'model = "claude-sonnet-4-6"\napi_key_env = "ANTHROPIC_API_KEY"\ntimeout_s = 20\n')
    eps = load_endpoints(db)
    assert sorted(eps) == ["claude", "local"]
    assert eps["local"].url == "http://127.0.0.1:8000/v1/chat/completions"
    assert (eps["local"].model, eps["local"].api_key_env, eps["local"].timeout_s) == (None, None, 60.0)
    assert eps["claude"].url == "https://api.anthropic.com/v1/messages"
    assert (eps["claude"].timeout_s, eps["claude"].max_retry_wait_s, eps["claude"].provider) == (20.0, 30.0, "anthropic")


@pytest.mark.parametrize(("table", "words"), [
    ('kind = "gemini"\nbase_url = "http://x"', "kind must be one of openai-chat, openai-responses"),
    ('kind = "openai-chat"\nbase_url = "ftp://x"\napi_key_env = "K"', "base_url must be an http:// or https:// URL"),
    ('kind = "openai-chat"\nbase_url = "https://api.openai.com/v1"', "api_key_env is required for openai-chat"),
    ('kind = "openai-chat"\nbase_url = "https://x/v1"\napi_key = "sk-live-123"',
     "api_key is refused: the key is never written in ctxviewer.toml"),
    ('kind = "openai-chat"\nbase_url = "https://x/v1"\napi_key_env = "MY KEY"', "api_key_env must be an environment variable name"),
    ('kind = "openai-chat"\nbase_url = "https://x/v1"\napi_key_env = "K"\ntimeout_s = 0', "timeout_s must be a number of seconds"),
    ('kind = "openai-chat"\nbase_url = "https://x/v1"\napi_key_env = "K"\nmodle = "gpt"', "unknown field modle"),
])
def test_each_mistake_has_its_message_naming_file_and_endpoint(tmp_path: Path, table: str, words: str) -> None:
    db = _toml(tmp_path, f"[endpoint.work]\n{table}\n")
    with pytest.raises(EndpointError) as err:
        load_endpoints(db)
    assert f"{tmp_path / 'ctxviewer.toml'}: [endpoint.work]" in str(err.value)
    assert words in str(err.value)
    assert "sk-live-123" not in str(err.value)


def test_an_unknown_name_lists_the_configured_ones(tmp_path: Path) -> None:
    db = _toml(tmp_path, '[endpoint.local]\nkind = "openai-compatible"\nbase_url = "http://127.0.0.1:1/v1"\n')
    with pytest.raises(EndpointError, match=r"no endpoint 'prod' in .* \(configured: local\)"):
        endpoint_named(db, "prod")


def test_the_users_own_file_wins_a_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _toml(tmp_path, '[endpoint.local]\nkind = "openai-compatible"\nbase_url = "http://127.0.0.1:1/v1"\n')
    user = tmp_path / "mine.toml"
    user.write_text('[endpoint.local]\nkind = "openai-compatible"\nbase_url = "http://127.0.0.1:2/v1"\n', encoding="utf-8")
    monkeypatch.setattr("ctxviewer.replay.endpoints.user_config_path", lambda: user)
    assert endpoint_named(db, "local").base_url == "http://127.0.0.1:2/v1"


def test_the_key_is_read_from_its_variable_and_never_kept(tmp_path: Path) -> None:
    user = tmp_path / "user" / "ctxviewer.toml"  # the user's own file (the fixture's user_config_path)
    user.parent.mkdir()
    user.write_text('[endpoint.oa]\nkind = "openai-chat"\nbase_url = "https://api.openai.com/v1"\napi_key_env = "OA_KEY"\n',
                    encoding="utf-8")
    ep = endpoint_named(tmp_path / "traces.db", "oa")
    assert api_key(ep, {"OA_KEY": " sk-test-1 "}) == "sk-test-1"
    assert "sk-test-1" not in repr(ep)
    with pytest.raises(EndpointError, match="the environment variable OA_KEY is not set"):
        api_key(ep, {})


def test_not_valid_toml_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "ctxviewer.toml").write_text("[endpoint.x\n", encoding="utf-8")
    with pytest.raises(EndpointError, match="ctxviewer.toml: not valid TOML"):
        parse_file(tmp_path / "ctxviewer.toml")


def test_no_endpoint_opens_no_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an endpoint configured, replay refuses before any connection is tried."""
    from click.testing import CliRunner

    from ctxviewer.cli import cli

    opened: list[object] = []
    monkeypatch.setattr(socket.socket, "connect", lambda self, addr: opened.append(addr))
    db = tmp_path / "samples.db"
    db.write_bytes((Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db").read_bytes())
    result = CliRunner().invoke(cli, ["replay", str(db), "budget-8k", "--endpoint", "openai"])
    assert result.exit_code == 2, result.output
    assert "no endpoint 'openai'" in result.output
    assert opened == []


def test_an_endpoint_beside_the_database_gets_no_key(tmp_path: Path) -> None:
    db = _toml(tmp_path, '[endpoint.oa]\nkind = "openai-chat"\nbase_url = "https://evil.example/v1"\napi_key_env = "OA_KEY"\n')
    ep = endpoint_named(db, "oa")  # listed (so the user sees it), never sent the key
    with pytest.raises(EndpointError, match=r"configured in .*ctxviewer.toml, beside the database, and names the key "
                                            r"variable OA_KEY: a key is sent only to endpoints of your own"):
        api_key(ep, {"OA_KEY": "sk-test-1"})
