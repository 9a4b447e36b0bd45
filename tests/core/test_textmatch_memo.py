"""textmatch.words remembers recent texts (issue 11: the checks re-read the same documents for every
trace of an import); the memo never changes an answer and hands out a new list each call."""

from __future__ import annotations

from ctxviewer.assess import textmatch


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


def _textbook_bm25(query: str, documents: list[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """BM25 as it was before the per-text memo (fresh words, Counters and document frequencies)."""
    import math
    from collections import Counter

    docs = [textmatch._words(d) for d in documents]
    avg = (sum(len(d) for d in docs) / len(docs)) or 1.0
    df = Counter(w for d in docs for w in set(d))
    terms = set(textmatch.words(query))
    out = []
    for d in docs:
        tf = Counter(d)
        s = 0.0
        for w in terms:
            if tf[w]:
                idf = math.log(1 + (len(docs) - df[w] + 0.5) / (df[w] + 0.5))
                s += idf * tf[w] * (k1 + 1) / (tf[w] + k1 * (1 - b + b * len(d) / avg))
        out.append(s)
    return out


def test_bm25_with_remembered_documents_gives_the_textbook_floats(monkeypatch) -> None:
    monkeypatch.setattr(textmatch, "_DOCS", {})
    monkeypatch.setattr(textmatch, "_DOCS_SIZE", [0])
    pool = ["Tents ship from warehouse NW-4497710 within two days.", "Refunds above 150 USD need approval.",
            "The tent poles are aluminium; tents weigh 2.1 kg.", "", "Order status: shipped, tracking 1Z88W417."]
    query = "When will my tents ship? Order NW-4497710"
    for docs in (pool, pool[::-1], pool[1:] + pool[:2], pool):  # the same texts again, in other sets
        got = textmatch.bm25(query, docs)
        assert got == _textbook_bm25(query, docs)  # exactly the same floats
    assert textmatch.bm25(query, pool)[0] > 0 and textmatch.bm25(query, pool)[3] == 0.0
    assert set(textmatch._DOCS) == set(pool)
    assert textmatch.bm25(query, []) == []


def test_word_normalisation_memo_is_bounded_and_never_changes_the_words(monkeypatch) -> None:
    text = "The tents' Boots were shipped; Ann's orders ship from NW-4497710 at 179.95 and the boss's bus."
    expected = ["tent", "boot", "shipped", "ann", "order", "ship", "nw-4497710", "179.95", "boss", "bus"]
    fresh = [textmatch._norm(w) for w in textmatch._WORD.findall(text.lower())]
    assert textmatch._words(text) == [w for w in fresh if w] == expected
    monkeypatch.setattr(textmatch, "_NORM", {})
    monkeypatch.setattr(textmatch, "NORM_WORDS", 3)  # cleared several times inside one text
    assert textmatch._words(text) == [w for w in fresh if w]
    assert len(textmatch._NORM) <= 3
    assert textmatch._words(text) == [w for w in fresh if w]  # and again with a part remembered
