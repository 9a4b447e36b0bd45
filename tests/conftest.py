"""Shared test fixtures.

Tests that read the shared corpus, reference chapter or injection set use the ``shared`` fixture;
it skips with a reason when ``../shared`` is absent (CI here has it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture
def shared() -> Path:
    """Path of ``../shared``; skips the test when it is absent."""
    if not (SHARED / "corpus").is_dir():
        pytest.skip(f"../shared not present at {SHARED}: corpus tests need it")
    return SHARED
