"""Non-ASCII runs found chunk by chunk are the engine's ``[^\\x00-\\x7f]+`` matches (issue 26 item 6)."""

from __future__ import annotations

import random
import re

from ctxviewer.assess.scanner import non_ascii
from ctxviewer.assess.scanner.case_fold import fold

_RUN = re.compile("[^\x00-\x7f]+")


def _reference(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    return [m.span() for m in _RUN.finditer(text, start, len(text) if end is None else end)]


def test_runs_are_the_engines_matches_also_across_chunk_edges() -> None:
    c = non_ascii.CHUNK
    text = "a" * (c - 2) + "éé|ßß" + "b" * (2 * c) + "中" * (c + 3) + "x"
    assert non_ascii.runs(text) == [(c - 2, c), (c + 1, c + 3), (3 * c + 3, 4 * c + 6)] == _reference(text)
    assert non_ascii.runs("plain ASCII") == []
    assert non_ascii.runs("") == []
    assert non_ascii.runs(text, c - 1, c + 2) == [(c - 1, c), (c + 1, c + 2)] == _reference(text, c - 1, c + 2)


def test_random_texts_get_the_same_runs_and_the_same_folding() -> None:
    rng = random.Random(26)
    alphabet = "ab K\n\t\x0c" + "Σé中\u0130\u212a\u017f\u00a0\u2003\u200b"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) if rng.random() < 0.05 else "e" for _ in range(rng.randint(0, 5000)))
        assert non_ascii.runs(text) == _reference(text)
        assert fold(text) == _fold_whole(text)


def _fold_whole(text: str) -> str:
    """:func:`fold` as it was, one substitution over the whole lower-cased text."""
    from ctxviewer.assess.scanner import case_fold

    if text.isascii():
        return text.lower().translate(case_fold._ASCII_CANON)
    low = text.replace("\u0130", "i").lower()
    for ch in case_fold._ASCII_SPACES:
        low = low.replace(ch, " ")
    return case_fold._NEEDS_CANON.sub(case_fold._canon_of, low)
