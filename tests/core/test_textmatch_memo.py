"""textmatch.words remembers recent texts (issue 11: the checks re-read the same documents for every
trace of an import); the memo never changes an answer and hands out a new list each call."""

from __future__ import annotations

from ctxviewer import textmatch


def test_words_memo_gives_the_same_words_in_a_new_list_each_call(monkeypatch) -> None:
    text = "The Boots are shipping; Ann's orders ship from NW-4497710 at 179.95."
    first = textmatch.words(text)
    assert first == ["boot", "shipping", "ann", "order", "ship", "nw-4497710", "179.95"]
    first.append("mutated")
    assert textmatch.words(text) == first[:-1]  # the caller's change did not reach the memo
    assert textmatch.words(text) is not textmatch.words(text)


def test_words_memo_is_bounded_by_characters(monkeypatch) -> None:
    monkeypatch.setattr(textmatch, "MEMO_CHARS", 6400)
    monkeypatch.setattr(textmatch, "_MEMO", {})
    monkeypatch.setattr(textmatch, "_MEMO_SIZE", [0])
    texts = [f"document {n} about tents " * 4 for n in range(100)]  # 100 x ~104 characters
    assert [textmatch.words(t) for t in texts] == [textmatch._words(t) for t in texts]
    assert sum(map(len, textmatch._MEMO)) <= 6400
    assert textmatch.words("x" * 200) == ["x" * 200] and "x" * 200 not in textmatch._MEMO  # over 1/64: not kept
