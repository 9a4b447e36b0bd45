"""Table 3.1 row 2: an omitted turn holds a commitment no retained item carries."""

from dataclasses import replace

import pytest
from factories import make_trace

from ctxviewer.assess.checks.commitments import CommitmentCheck, commitments_in
from ctxviewer.model.findings import Severity, TextSpan
from ctxviewer.model.trace import ContextItem, Kind, SourceRef, Status


def history(item_id, text, status=Status.OMITTED, **kw):
    return ContextItem(kind=Kind.HISTORY, id=item_id, content=text, status=status, role="assistant",
                       omission_reason="window" if status is Status.OMITTED else None, **kw)


def with_items(*extra):
    t = make_trace()
    return replace(t, items=(t.items[0], *extra, *t.items[1:]))


APPROVAL = "Thanks. A refund above 150 USD needs a supervisor's approval before it can be issued."


def test_omitted_approval_not_carried_is_a_warning_with_span():
    [f] = CommitmentCheck().run(with_items(history("turn-a", APPROVAL)))
    assert (f.rule, f.severity, f.table_row) == ("commitment.forgotten", Severity.WARNING, 2)
    assert f.first_evidence == "History retrieval and summary"
    assert f.evidence.item_ids == ("turn-a",)
    assert f.evidence.spans == (TextSpan("turn-a", 8, len(APPROVAL)),)
    assert APPROVAL[8:] in f.message


def test_benign_when_a_retained_summary_carries_it():
    summary = ContextItem(kind=Kind.SUMMARY, id="sum", content="Summary: any refund above 150 USD needs a "
                          "supervisor's approval before it is issued.", position=9)
    assert list(CommitmentCheck().run(with_items(history("turn-a", APPROVAL), summary))) == []


def test_benign_when_the_turn_is_retained_or_has_no_commitment():
    assert list(CommitmentCheck().run(with_items(history("turn-a", APPROVAL, status=Status.RETAINED, position=2)))) == []
    assert list(CommitmentCheck().run(with_items(history("turn-a", "The parcel left Reno on Friday.")))) == []


@pytest.mark.parametrize(("text", "category"), [
    ("Die Erstattung braucht die Genehmigung eines Vorgesetzten.", "approval"),
    ("Je vous promets que le remboursement sera fait lundi.", "promise"),
    ("Le reembolsamos solo si devuelve el artículo sin usar.", "condition"),
    ("Wir erstatten den Betrag, sofern die Ware unbenutzt ist.", "condition"),
    ("Until then I can't confirm a date.", "condition"),
])
def test_commitment_language_in_four_languages(text, category):
    [c] = commitments_in(history("t", text))
    assert category in c.categories and c.text == text


def test_structured_records_omitted_is_a_failure_and_retained_is_benign():
    rec = ContextItem(kind=Kind.MEMORY, id="commit-7", content="refund after supervisor review",
                      status=Status.OMITTED, omission_reason="budget", source=SourceRef(store="commitments"))
    [f] = CommitmentCheck().run(with_items(rec, history("turn-a", APPROVAL)))
    assert (f.rule, f.severity, f.evidence.item_ids) == ("commitment.record_omitted", Severity.FAILURE, ("commit-7",))
    kept = replace(rec, status=Status.RETAINED, omission_reason=None, position=2)
    assert list(CommitmentCheck().run(with_items(kept, history("turn-a", APPROVAL)))) == []
