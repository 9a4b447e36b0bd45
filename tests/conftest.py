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
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

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

