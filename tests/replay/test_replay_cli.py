"""``ctxviewer replay`` against the fake server: the source database is only read, the replay goes
to --save (default DB.replays.db beside DB) and the diff summary is printed."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from replay_fakes import FakeServer

from ctxviewer.cli import cli
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("ctxviewer.replay.endpoints.user_config_path", lambda: tmp_path / "user" / "ctxviewer.toml")
    shutil.copy(SAMPLES, tmp_path / "samples.db")
    return tmp_path / "samples.db"


def _configure(db: Path, srv: FakeServer, kind: str = "openai-chat") -> None:
    """The endpoint in the user's own ctxviewer.toml (only those are sent a key)."""
    (db.parent / "user").mkdir(exist_ok=True)
    (db.parent / "user" / "ctxviewer.toml").write_text(
        f'[endpoint.fake]\nkind = "{kind}"\nbase_url = "{srv.base_url}"\napi_key_env = "FAKE_KEY"\ntimeout_s = 5\n',
        encoding="utf-8")


def test_replay_saves_beside_and_prints_the_diff(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_KEY", "sk-fake-123")
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    with FakeServer(require_key="sk-fake-123") as srv:
        _configure(db, srv)
        result = CliRunner().invoke(cli, ["replay", str(db), "budget-8k", "--endpoint", "fake"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"sending budget-8k to fake (openai-chat, {srv.base_url}/chat/completions, from {db.parent / 'user' / 'ctxviewer.toml'})"
    assert lines[1].startswith("request: stored body, ") and lines[1].endswith(" bytes")
    assert "answer: Yes: the answer." in lines
    assert "A  budget-8k" in lines
    assert "sk-fake-123" not in result.output
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # the source untouched
    saved = db.with_name("samples.replays.db")
    with TraceStore.open(saved) as s:
        rows = s.list()
        assert len(rows) == 1
        back = s.load(rows[0].trace_id)
    assert back.replay_of == "budget-8k"
    assert back.request.content.encode("utf-8") == srv.requests[0]["raw"]


def test_replay_json_and_save_target(db: Path, tmp_path: Path) -> None:
    with FakeServer() as srv:
        _configure(db, srv, "anthropic-messages")
        result = CliRunner().invoke(cli, ["replay", str(db), "ticket-injection", "--endpoint", "fake", "--json",
                                          "--save", str(tmp_path / "out.db"), "--temperature", "0"],
                                    env={"FAKE_KEY": "k"})
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["source"] == "rebuilt from the items"
    assert doc["inexact"].startswith("cannot be replayed exactly: fields messages[1].content, user redacted")
    assert doc["saved"] == str(tmp_path / "out.db")
    assert json.loads(srv.requests[0]["raw"])["temperature"] == 0


def test_a_failure_is_one_line_and_status_1(db: Path) -> None:
    with FakeServer() as srv:
        _configure(db, srv)
        srv.script("429:600")
        result = CliRunner().invoke(cli, ["replay", str(db), "budget-8k", "--endpoint", "fake"], env={"FAKE_KEY": "k"})
    assert result.exit_code == 1
    assert "Error: endpoint fake: rate limited (429); it asks to retry after 600 s, more than max_retry_wait_s = 30 s" in result.output
    assert not db.with_name("samples.replays.db").exists()


def test_the_source_is_never_the_save_target(db: Path) -> None:
    with FakeServer() as srv:
        _configure(db, srv)
        result = CliRunner().invoke(cli, ["replay", str(db), "budget-8k", "--endpoint", "fake", "--save", str(db)],
                                    env={"FAKE_KEY": "k"})
    assert result.exit_code == 2
    assert "the source database is never written" in result.output
    assert srv.requests == []  # refused before sending


def test_an_unset_key_variable_is_named(db: Path) -> None:
    with FakeServer() as srv:
        _configure(db, srv)
        result = CliRunner().invoke(cli, ["replay", str(db), "budget-8k", "--endpoint", "fake"], env={"FAKE_KEY": ""})
    assert result.exit_code == 2
    assert "the environment variable FAKE_KEY is not set" in result.output
    assert srv.requests == []


def test_an_endpoint_beside_the_database_is_never_sent_a_key(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ctxviewer.toml in a shared folder must not send the user's key to its own URL."""
    monkeypatch.setenv("FAKE_KEY", "sk-fake-123")
    with FakeServer() as srv:
        (db.parent / "ctxviewer.toml").write_text(
            f'[endpoint.fake]\nkind = "openai-chat"\nbase_url = "{srv.base_url}"\napi_key_env = "FAKE_KEY"\n',
            encoding="utf-8")
        result = CliRunner().invoke(cli, ["replay", str(db), "budget-8k", "--endpoint", "fake"])
    assert result.exit_code == 2
    assert f"endpoint fake is configured in {db.parent / 'ctxviewer.toml'}, beside the database" in result.output
    assert "sk-fake-123" not in result.output
    assert srv.requests == []
