"""A fresh clone without ``../shared`` skips the corpus tests instead of failing them (README,
"Tests"; the new user's run of the README's test command elsewhere failed 26 of them)."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
BUILDS_SHARED_PATH = re.compile(r'/ "shared"')
"""A module that builds a path into ``../shared`` itself (instead of the ``shared`` fixture)."""
GUARDS = ("needs_corpus", "skipif(", "pytest.skip(", ".is_dir()", ".exists()")
"""What lets such a module skip when the folder is absent."""


def unguarded(texts: dict[str, str]) -> list[str]:
    """The names of ``texts`` (module name -> source) that build a ``../shared`` path and hold no guard."""
    return sorted(name for name, text in texts.items()
                  if BUILDS_SHARED_PATH.search(text) and not any(g in text for g in GUARDS))


def test_every_module_reading_shared_skips_without_it() -> None:
    texts = {str(p.relative_to(TESTS)): p.read_text(encoding="utf-8") for p in TESTS.rglob("test_*.py")}
    assert unguarded(texts) == []
    assert unguarded({"a.py": 'X = ROOT / "shared" / "corpus"', "b.py": 'X = ROOT / "shared"\npytestmark = needs_corpus',
                      "c.py": "def test(shared): ..."}) == ["a.py"]
