"""Table 3.1 row 3: the needed document in the middle, omitted by rank, or duplicated."""

from dataclasses import replace

from factories import make_trace

from ctxviewer.assess import config
from ctxviewer.assess.checks.evidence import EvidenceCheck
from ctxviewer.model.findings import Severity
from ctxviewer.model.trace import ContextItem, Kind, Response, SourceRef, Status

FILLER = [f"Article {n}: hiking boots need care; clean the leather uppers and dry them slowly, item {n}."
          for n in range(20)]
NEEDED = "Price adjustments: if an item's price drops within 14 days of purchase we refund the difference."
QUESTION = "The boots I bought are cheaper now. Can I get the price difference back?"


def long_list(needed_at: int, count: int = 20, status: Status = Status.RETAINED, reason=None):
    texts = FILLER[:count]
    texts[needed_at - 1] = NEEDED
    items = []
    pos = 1
    for n, text in enumerate(texts, 1):
        st = status if n == needed_at else Status.RETAINED
        items.append(ContextItem(kind=Kind.EVIDENCE, id=f"KB-{n:02d}", content=text, status=st,
                                 position=pos if st is Status.RETAINED else None,
                                 omission_reason=reason if st is Status.OMITTED else None,
                                 source=SourceRef(store="kb", document_id=f"KB-{n:02d}")))
        pos += st is Status.RETAINED
    user = ContextItem(kind=Kind.USER, id="user", content=QUESTION, position=pos)
    return make_trace(items=(*items, user), user_request=QUESTION,
                      response=Response(text="We don't refund price differences [KB-01]."))


def test_needed_document_in_the_middle_is_a_warning():
    [f] = EvidenceCheck().run(long_list(10))
    assert (f.rule, f.severity, f.table_row) == ("evidence.needed_in_middle", Severity.WARNING, 3)
    assert f.evidence.item_ids == ("KB-10",) and f.evidence.positions == (10,)
    assert "evidence 10 of 20 (request position 10, middle band, risk high)" in f.message
    assert f.first_evidence == "Retrieval ranking and context order"


def test_benign_at_the_edge_when_cited_or_short():
    assert list(EvidenceCheck().run(long_list(2))) == []
    assert list(EvidenceCheck().run(long_list(5, count=8))) == []  # 8 items: not a long list
    cited = long_list(10)
    cited = replace(cited, response=Response(text="Yes, within 14 days [KB-10]."))
    assert list(EvidenceCheck().run(cited)) == []


def test_needed_document_omitted_by_rank():
    [f] = EvidenceCheck().run(long_list(12, status=Status.OMITTED, reason="rank"))
    assert f.rule == "evidence.needed_omitted_by_rank" and f.evidence.item_ids == ("KB-12",)


def test_needed_document_with_near_duplicates():
    t = long_list(2)
    items = list(t.items)
    items[5] = replace(items[5], content=NEEDED)
    [f] = EvidenceCheck().run(replace(t, items=tuple(items)))
    assert f.rule == "evidence.needed_has_duplicates" and f.evidence.item_ids == ("KB-02", "KB-06")


def test_user_marked_document_is_the_needed_one():
    t = long_list(2)
    token = config.using(config.CheckConfig().with_needed({t.trace_id: ["KB-11"]}))
    try:
        [f] = EvidenceCheck().run(t)
    finally:
        config.restore(token)
    assert f.rule == "evidence.needed_in_middle" and "marked as needed by the user" in f.message
