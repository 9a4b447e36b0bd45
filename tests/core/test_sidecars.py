"""The user's files beside a trace database stay the user's (issue 27 item 3): review files and
marks are git-ignored, and the suite never opens a review file beside ``sample_traces/`` nor the
user's data directory (the autouse guard in ``tests/conftest.py``), so trying the audit on the
samples leaves the README's test command passing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import platformdirs
import pytest

from ctxviewer.assess.marks import marks_path
from ctxviewer.review.location import data_dir_path
from ctxviewer.review.verdicts import ReviewFile, review_path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"


@pytest.mark.parametrize("path", [review_path(SAMPLES), Path(f"{review_path(SAMPLES)}-journal"),
                                  Path(f"{review_path(SAMPLES)}-wal"), marks_path(SAMPLES),
                                  ROOT / "elsewhere" / "traces.review.sqlite"])
def test_sidecars_are_git_ignored(path: Path) -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    rel = path.relative_to(ROOT)
    proc = subprocess.run(["git", "check-ignore", "--no-index", "-q", str(rel)], cwd=ROOT, check=False)
    assert proc.returncode == 0, f"{rel} is not git-ignored (.gitignore)"


def test_no_test_opens_the_review_file_beside_the_samples() -> None:
    with pytest.raises(AssertionError, match="a test opened the user's review file .*samples.review.sqlite"):
        ReviewFile(review_path(SAMPLES))


def test_the_user_data_directory_is_not_the_users(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.getbasetemp()
    assert Path(platformdirs.user_data_dir("ctxviewer")).is_relative_to(base)
    assert data_dir_path(SAMPLES).is_relative_to(base)
    assert Path(platformdirs.user_config_dir("ctxviewer")).is_relative_to(base)
