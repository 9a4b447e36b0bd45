"""Where the review file is (issue 27 item 3): beside the database when its folder is writable,
else in the user data directory under a name derived from the database's absolute path, or
``--review-file``; ``report`` and ``check --format sarif`` read the verdicts from there."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.review import location
from ctxviewer.review.keys import FindingKey, ReviewVerdict
from ctxviewer.review.location import review_location
from ctxviewer.review.verdicts import ReviewFile

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
KEY = FindingKey("ticket-injection", "TCK-58213", "injection.override", 500, 528)
"""The override finding of the ticket trace in samples.db (its SARIF partialFingerprint)."""


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: Any) -> Path:
    """platformdirs' user data directory, moved into ``tmp_path``."""
    data = tmp_path / "user-data"
    monkeypatch.setattr(location.platformdirs, "user_data_dir", lambda app: str(data / app))
    return data / "ctxviewer" / "reviews"


@pytest.fixture
def share(tmp_path: Path, monkeypatch: Any) -> Iterator[Path]:
    """A read-only folder (mode 0o555) holding a copy of samples.db as ``s.db``. As root the
    kernel lets every write through, so there the writability check is told the truth by hand."""
    folder = tmp_path / "share"
    folder.mkdir()
    shutil.copy(SAMPLES, folder / "s.db")
    folder.chmod(0o555)
    if os.access(folder, os.W_OK):  # running as root
        real = location.folder_writable
        monkeypatch.setattr(location, "folder_writable", lambda f: Path(f) != folder and real(f))
    yield folder
    folder.chmod(0o755)


def test_a_writable_folder_keeps_the_file_beside_the_database(tmp_path: Path, data_dir: Path) -> None:
    loc = review_location(tmp_path / "traces.db")
    assert loc.path == tmp_path / "traces.review.sqlite"
    assert loc.describe() == f"review file: {tmp_path / 'traces.review.sqlite'} (beside the database)"


def test_a_read_only_folder_puts_the_file_in_the_user_data_directory(share: Path, data_dir: Path) -> None:
    db = share / "s.db"
    digest = hashlib.sha256(str(db).encode()).hexdigest()[:16]
    loc = review_location(db)
    assert loc.path == data_dir / f"s-{digest}.review.sqlite"
    assert loc.why == f"in the user data directory: folder {share} is not writable"
    assert not data_dir.exists()  # finding it writes nothing
    with loc.open() as rf:  # the folder is made on the first write
        rf.write(KEY, ReviewVerdict.CONFIRMED, "seen in the ticket")
    assert sorted(p.name for p in share.iterdir()) == ["s.db"]
    with review_location(db).open() as rf:
        assert {k: (r.verdict, r.note) for k, r in rf.all().items()} == {KEY: (ReviewVerdict.CONFIRMED, "seen in the ticket")}


def test_two_databases_of_one_name_get_two_files(tmp_path: Path, data_dir: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(location, "folder_writable", lambda f: False)
    a, b = review_location(tmp_path / "a" / "traces.db"), review_location(tmp_path / "b" / "traces.db")
    assert a.path.parent == b.path.parent == data_dir
    assert a.path.name.startswith("traces-") and b.path.name.startswith("traces-")
    assert a.path != b.path


def test_an_existing_file_beside_a_read_only_database_is_read(share: Path, data_dir: Path) -> None:
    share.chmod(0o755)
    with ReviewFile(share / "s.review.sqlite") as rf:  # a colleague's verdicts
        rf.write(KEY, ReviewVerdict.FALSE_POSITIVE, "")
    share.chmod(0o555)
    loc = review_location(share / "s.db")
    assert loc.path == share / "s.review.sqlite"
    assert loc.why == (f"beside the database, read-only: folder {share} is not writable; "
                       "give --review-file to save verdicts elsewhere")
    with loc.open() as rf:
        assert {k: r.verdict for k, r in rf.all().items()} == {KEY: ReviewVerdict.FALSE_POSITIVE}


def test_review_file_option_wins(tmp_path: Path) -> None:
    loc = review_location(tmp_path / "traces.db", tmp_path / "elsewhere.sqlite")
    assert (loc.path, loc.why) == (tmp_path / "elsewhere.sqlite", "given with --review-file")


def _sarif_status(args: list[str]) -> dict[str, str]:
    res = CliRunner().invoke(cli, ["check", *args, "ticket-injection", "--format", "sarif"])
    assert res.exit_code in (0, 1), res.output
    log = json.loads(res.stdout)
    return {r["partialFingerprints"]["ctxviewer/findingKey/v1"]: r["suppressions"][0]["status"]
            for r in log["runs"][0]["results"] if "suppressions" in r}


FINGERPRINT = "ticket-injection|TCK-58213|injection.override|500|528"


def test_report_and_sarif_read_the_data_directory_file(share: Path, data_dir: Path, tmp_path: Path) -> None:
    db = share / "s.db"
    with review_location(db).open() as rf:
        rf.write(KEY, ReviewVerdict.FALSE_POSITIVE, "quoted by the customer", "ana")
    assert _sarif_status([str(db)]) == {FINGERPRINT: "accepted"}
    out = tmp_path / "r.html"
    res = CliRunner().invoke(cli, ["report", str(db), "ticket-injection", "-o", str(out)])
    assert res.exit_code == 0, res.output
    html = out.read_text(encoding="utf-8")
    assert "false positive<br><span class=\"muted\">by ana · " in html and "</span><br>quoted by the customer" in html


def test_report_and_sarif_honour_review_file(tmp_path: Path) -> None:
    given = tmp_path / "mine.review.sqlite"
    with ReviewFile(given) as rf:
        rf.write(KEY, ReviewVerdict.FOLLOW_UP, "ask the owner", "ana")
    db = tmp_path / "s.db"
    shutil.copy(SAMPLES, db)
    assert _sarif_status([str(db)]) == {}  # nothing beside the copy
    assert _sarif_status([str(db), "--review-file", str(given)]) == {FINGERPRINT: "underReview"}
    out = tmp_path / "r.html"
    res = CliRunner().invoke(cli, ["report", str(db), "ticket-injection", "-o", str(out), "--review-file", str(given)])
    assert res.exit_code == 0, res.output
    html = out.read_text(encoding="utf-8")
    assert "needs follow-up<br><span class=\"muted\">by ana · " in html and "</span><br>ask the owner" in html
    assert not (tmp_path / "s.review.sqlite").exists()


def test_the_window_launch_passes_review_file_on(monkeypatch: Any, tmp_path: Path) -> None:
    import sys
    import types

    opened: list[list[str]] = []
    fake_app = types.ModuleType("ctxviewer.gui.app")  # stands in for the window (runs without Qt)
    fake_app.main = lambda argv: opened.append(argv) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ctxviewer.gui.app", fake_app)
    for args in ([str(SAMPLES), "--review-file", "r.sqlite"], ["open", str(SAMPLES), "--review-file", "r.sqlite"]):
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 0, res.output
    assert opened == [[str(SAMPLES), "--review-file", "r.sqlite"]] * 2
