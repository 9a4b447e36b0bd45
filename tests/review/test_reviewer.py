"""Verdicts record the reviewer and the time (issue 27 item 3): the name from ``[review] reviewer``
in ``ctxviewer.toml`` or the OS user, the time in UTC; shown in SARIF and the HTML report; a
review file of schema 1 is read as it is and migrated on the first write, its verdicts kept."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.review import reviewer as reviewer_mod
from ctxviewer.review import verdicts
from ctxviewer.review.keys import FindingKey, Review, ReviewVerdict
from ctxviewer.review.reviewer import reviewer_for
from ctxviewer.review.verdicts import ReviewFile, review_path

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
KEY = FindingKey("ticket-injection", "TCK-58213", "injection.override", 500, 528)
AT = datetime(2026, 12, 3, 5, 50, 7, tzinfo=timezone.utc)


@pytest.fixture
def clock(monkeypatch: Any) -> datetime:
    """Every review is written at :data:`AT`."""
    monkeypatch.setattr(verdicts, "utc_now", lambda: AT)
    return AT


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: Any) -> Path:
    """The user's config directory, in ``tmp_path`` (``ctxviewer.toml`` goes in it)."""
    home = tmp_path / "config"
    monkeypatch.setattr(reviewer_mod.platformdirs, "user_config_dir", lambda app: str(home / app))
    (home / "ctxviewer").mkdir(parents=True)
    return home / "ctxviewer"


def test_the_user_setting_then_the_database_setting_then_the_os_user(tmp_path: Path, config_home: Path,
                                                                     monkeypatch: Any) -> None:
    monkeypatch.setattr(reviewer_mod.getpass, "getuser", lambda: "os-user")
    db = tmp_path / "share" / "s.db"
    db.parent.mkdir()
    r = reviewer_for(db)
    assert (r.name, r.source) == ("os-user", "the OS user")
    assert r.describe() == "reviewer: os-user (the OS user)"
    (db.parent / "ctxviewer.toml").write_text('[review]\nreviewer = "Team Lead"\n', encoding="utf-8")
    r = reviewer_for(db)
    assert (r.name, r.source) == ("Team Lead", f"[review] reviewer in {db.parent / 'ctxviewer.toml'}")
    (config_home / "ctxviewer.toml").write_text('[review]\nreviewer = "Ana Ruiz"\n', encoding="utf-8")
    assert reviewer_for(db).name == "Ana Ruiz"  # one person's own setting wins over a shared file


def test_a_broken_setting_is_skipped_and_named(tmp_path: Path, config_home: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(reviewer_mod.getpass, "getuser", lambda: "os-user")
    (config_home / "ctxviewer.toml").write_text("[review]\nreviewer = 7\n", encoding="utf-8")
    r = reviewer_for(tmp_path / "s.db")
    assert r.name == "os-user"
    assert r.source == f"the OS user; {config_home / 'ctxviewer.toml'} skipped: [review] reviewer must be a non-empty string"


def test_no_name_at_all_is_not_recorded(tmp_path: Path, config_home: Path, monkeypatch: Any) -> None:
    def no_user() -> str:
        raise OSError("No username set in the environment")

    monkeypatch.setattr(reviewer_mod.getpass, "getuser", no_user)
    r = reviewer_for(tmp_path / "s.db")
    assert r.name is None
    assert r.describe() == "reviewer: not recorded (no [review] reviewer in ctxviewer.toml and no OS user name)"


def test_the_time_is_utc_iso_8601() -> None:
    assert Review(None, "", datetime(2026, 12, 3, 6, 50, 7, tzinfo=timezone(__import__("datetime").timedelta(hours=1))),
                  "ana").by == "by ana · 2026-12-03T05:50:07Z"
    assert Review(None, "", None).by == "reviewer not recorded · time not recorded"


def _schema_1_file(path: Path) -> None:
    """A review file as ctxviewer wrote it before reviewers were recorded."""
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript("""
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE reviews (
                trace_id TEXT NOT NULL, item_id TEXT NOT NULL, rule TEXT NOT NULL,
                span_start INTEGER NOT NULL, span_end INTEGER NOT NULL,
                verdict TEXT CHECK (verdict IN ('confirmed', 'false_positive', 'follow_up')),
                note TEXT NOT NULL DEFAULT '', reviewed_at TEXT NOT NULL,
                PRIMARY KEY (trace_id, item_id, rule, span_start, span_end));
            INSERT INTO meta VALUES ('schema_version', '1');
            INSERT INTO reviews VALUES ('ticket-injection', 'TCK-58213', 'injection.hidden', 639, 680,
                                        'false_positive', 'old note', '2026-11-30T10:00:00+00:00');
        """)


def test_a_schema_1_file_is_read_then_migrated_keeping_its_verdicts(tmp_path: Path, clock: datetime) -> None:
    path = tmp_path / "s.review.sqlite"
    _schema_1_file(path)
    before = path.read_bytes()
    old = FindingKey("ticket-injection", "TCK-58213", "injection.hidden", 639, 680)
    with ReviewFile(path) as rf:
        assert rf.all() == {old: Review(ReviewVerdict.FALSE_POSITIVE, "old note",
                                        datetime(2026, 11, 30, 10, tzinfo=timezone.utc), None)}
    assert path.read_bytes() == before  # reading never writes
    with ReviewFile(path) as rf:
        assert rf.write(KEY, ReviewVerdict.CONFIRMED, "", "Ana Ruiz") == Review(ReviewVerdict.CONFIRMED, "", AT, "Ana Ruiz")
        assert {k: (r.verdict, r.reviewer) for k, r in rf.all().items()} == {
            old: (ReviewVerdict.FALSE_POSITIVE, None), KEY: (ReviewVerdict.CONFIRMED, "Ana Ruiz")}
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("2",)


def test_a_new_file_is_schema_2(tmp_path: Path, clock: datetime) -> None:
    path = tmp_path / "s.review.sqlite"
    with ReviewFile(path) as rf:
        rf.write(KEY, ReviewVerdict.FOLLOW_UP, "n", "ana")
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("2",)
        assert conn.execute("SELECT reviewer, reviewed_at FROM reviews").fetchall() == [("ana", "2026-12-03T05:50:07+00:00")]


def test_sarif_and_the_report_show_reviewer_and_time(tmp_path: Path, clock: datetime) -> None:
    db = tmp_path / "s.db"
    shutil.copy(SAMPLES, db)
    hidden = FindingKey("ticket-injection", "TCK-58213", "injection.hidden", 639, 680)
    _schema_1_file(review_path(db))  # one verdict from before reviewers were recorded
    with ReviewFile(review_path(db)) as rf:
        rf.write(KEY, ReviewVerdict.CONFIRMED, "told the model to refund", "Ana Ruiz")
    res = CliRunner().invoke(cli, ["check", str(db), "ticket-injection", "--format", "sarif"])
    sups = {r["partialFingerprints"]["ctxviewer/findingKey/v1"]: r["suppressions"]
            for r in json.loads(res.stdout)["runs"][0]["results"] if "suppressions" in r}
    assert sups == {
        "ticket-injection|TCK-58213|injection.override|500|528": [{
            "kind": "external", "status": "rejected", "justification": "confirmed injection: told the model to refund",
            "properties": {"reviewer": "Ana Ruiz", "reviewedAt": "2026-12-03T05:50:07Z"}}],
        "|".join((hidden.trace_id, hidden.item_id, hidden.rule, "639", "680")): [{
            "kind": "external", "status": "accepted", "justification": "false positive: old note",
            "properties": {"reviewedAt": "2026-11-30T10:00:00Z"}}],  # reviewer not recorded: no member
    }
    out = tmp_path / "r.html"
    assert CliRunner().invoke(cli, ["report", str(db), "ticket-injection", "-o", str(out)]).exit_code == 0
    html = out.read_text(encoding="utf-8")
    assert ('confirmed injection<br><span class="muted">by Ana Ruiz · 2026-12-03T05:50:07Z</span>'
            "<br>told the model to refund") in html
    assert ('false positive<br><span class="muted">reviewer not recorded · 2026-11-30T10:00:00Z</span>'
            "<br>old note") in html
