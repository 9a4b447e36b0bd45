"""Shared test fixtures.

Tests that read the shared corpus, reference chapter or injection set use the ``shared`` fixture;
it skips with a reason when ``../shared`` is absent (CI here has it).

Without Qt (``.ci/run``'s no-Qt step: PySide6, pyqtgraph and pytest-qt uninstalled, ``tests/gui``
not collected) a test that asks for ``qapp``, ``qtbot`` or ``qtmodeltester`` skips; a test that
imports PySide6 in its body starts with ``pytest.importorskip("PySide6")``.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["CTXVIEWER_PRICE_MEMO"] = "0"  # genai-prices answered afresh in every test process (tests/core/test_price_memo.py tests the memo)
os.environ["CTXVIEWER_PREFILTER_MEMO"] = "0"  # the prefilter learnt afresh (tests/scanner/test_prefilter_memo.py tests the memo)
os.environ["CTXVIEWER_ENTRY_POINT_MEMO"] = "0"  # entry points looked up afresh (tests/plugins/test_entry_point_memo.py tests the memo)

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
QT_FIXTURES = {"qapp", "qtbot", "qtmodeltester"}
HAVE_QT = all(importlib.util.find_spec(m) is not None for m in ("PySide6", "pytestqt"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the tests that need pytest-qt's fixtures when Qt is not installed."""
    if HAVE_QT:
        return
    skip = pytest.mark.skip(reason="needs PySide6 and pytest-qt, absent in this run")
    for item in items:
        if QT_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(skip)


@pytest.fixture
def shared() -> Path:
    """Path of ``../shared``; skips the test when it is absent."""
    if not (SHARED / "corpus").is_dir():
        pytest.skip(f"../shared not present at {SHARED}: corpus tests need it")
    return SHARED



SAMPLE_TRACES = ROOT / "sample_traces"


@pytest.fixture(autouse=True)
def _control_markers_restored() -> Iterator[None]:
    """A window test that chose ⟨ESC⟩ names for its font (gui.control_glyphs) leaves the
    process-wide marker setting as it found it, so a CLI test after it still sees ␛."""
    from ctxviewer.util.visible import use_control_names

    before = use_control_names(False)
    use_control_names(before)
    yield
    use_control_names(before)


@pytest.fixture(autouse=True)
def _review_files_stay_in_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test reads or writes a user's review file (issue 27 item 3).

    * The user data and config directories (platformdirs on Linux: ``$XDG_DATA_HOME``,
      ``$XDG_CONFIG_HOME``; child processes inherit them) point into a temporary folder, so a
      review file placed in the data directory, or a reviewer name in the user's
      ``ctxviewer.toml``, never comes from or goes to the real home; the cache directory
      (``$XDG_CACHE_HOME``: a ClickHouse store's assessed rows) too.
    * Opening a review file beside ``sample_traces/`` fails the test: a verdict the user gave
      while trying the audit on the samples must not change what the suite sees (a test that
      reads ``samples.db`` with its verdicts uses a copy in ``tmp_path`` or ``--review-file``).
    """
    from ctxviewer.review.verdicts import ReviewFile

    home = tmp_path_factory.mktemp("user-dirs")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))  # a ClickHouse store's sidecar of assessed rows
    real_init = ReviewFile.__init__

    def guarded(self: ReviewFile, path: str | Path, *args: object, **kwargs: object) -> None:
        if Path(os.path.abspath(path)).parent == SAMPLE_TRACES:
            raise AssertionError(f"a test opened the user's review file {path}: use a copy of the database in "
                                 "tmp_path or --review-file")
        real_init(self, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ReviewFile, "__init__", guarded)
