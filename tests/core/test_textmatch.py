"""Word matching used by the diagnostics: words, BM25, citations, identifiers, shingles."""

from ctxviewer.assess.textmatch import bm25, cites, coverage, identifiers, jaccard, shingles, words


def test_words_drop_stop_words_and_plurals_keep_numbers_and_ids():
    assert words("The boots are 179.95 now, order NW-4497710's refunds!") == ["boot", "179.95", "order", "nw-4497710", "refund"]


def test_bm25_ranks_the_matching_document_first():
    scores = bm25("price difference refund", ["We refund the price difference within 14 days.",
                                              "Boots need waterproofing.", "Refund timing: 3 to 10 days."])
    assert scores[0] > scores[2] > scores[1] == 0.0


def test_cites_whole_identifiers_only():
    assert cites("see [KB-1001] and KB-1003", "KB-1001")
    assert not cites("see KB-10011", "KB-1001") and not cites("XKB-1001", "KB-1001")
    assert cites("passage KB-1001#p1", "KB-1001")  # a chunk id names its document


def test_identifiers_coverage_and_shingles():
    assert identifiers("order NW-4497710 and ticket TCK-58213 on November 2") == {"NW-4497710", "TCK-58213"}
    assert coverage(["a1", "b2"], {"a1"}) == 0.5 and coverage([], set()) == 1.0
    a = shingles("one two three four five")
    assert jaccard(a, a) == 1.0 and jaccard(a, shingles("six seven eight nine")) == 0.0
