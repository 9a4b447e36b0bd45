"""Where the tests find ``../shared`` (the team's data beside the checkout, not in the repository)
and the mark for test modules that cannot run without it.

``pytestmark = needs_corpus`` at the top of a module skips its tests with the reason the README
quotes when ``../shared/corpus`` is absent (a fresh clone elsewhere), instead of failing them on
``FileNotFoundError``; a single test uses the ``shared`` fixture of ``tests/conftest.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
"""``../shared`` from the checkout's root."""
CORPUS = SHARED / "corpus"
"""The real trace exports (``FORMATS.md``, ``PROVENANCE.md``)."""

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"../shared not present at {SHARED}: corpus tests need it")
"""Skip when ``../shared/corpus`` is absent."""
