"""The what-if reproduces the recording first: with no changes it equals it (items, statuses, omission
reasons, the assessment's state and verdict), on every sample and corpus trace; each omission is
re-decided by the rule that made it, and a pin says which rule it overrides."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ctxviewer.assess.assessment import conclude
from ctxviewer.assess.budget import allocations, check_capacity
from ctxviewer.builder.whatif import OmissionRule, Scenario, filler, rule_of, run
from ctxviewer.diff.conversation import derive_for_display
from ctxviewer.model.findings import State
from ctxviewer.model.trace import Category, ContextItem, Kind, RequestTrace, Status
from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import TraceQuery, TraceStore
from tests.factories import make_trace

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def _items(t: RequestTrace) -> list[tuple[object, ...]]:
    return [(i.id, i.kind, i.status, i.position, i.omission_reason, i.priority, i.tokens, i.content) for i in t.items]


def assert_reproduces(t: RequestTrace) -> None:
    """The no-change what-if of ``t`` is the recording: the same items in the same order with the
    same statuses and reasons, and the assessment says the same state and verdict."""
    o = run(t, Scenario())
    assert o.trace is not None, (t.trace_id, o.error)
    assert _items(o.trace) == _items(t), t.trace_id
    assert o.changes == (), t.trace_id
    rec = conclude(t)
    assert (o.state, o.verdict) == (rec.state, rec.verdict), t.trace_id
    assert (o.recorded.state, o.recorded.verdict) == (rec.state, rec.verdict)
    assert o.same_as_recorded
    assert o.trace.input_tokens == t.input_tokens and o.trace.usage == t.usage
    assert o.trace.budget == t.budget and o.trace.reserved_output_tokens == t.reserved_output_tokens


@pytest.fixture(scope="module")
def samples() -> dict[str, RequestTrace]:
    with TraceStore.open(SAMPLES) as store:
        return {r.trace_id: store.load(r.trace_id) for r in store.list(TraceQuery(), 0, -1)}


def test_every_sample_trace_is_reproduced(samples: dict[str, RequestTrace]) -> None:
    assert len(samples) == 9
    for t in samples.values():
        assert_reproduces(t)
    kinds = {rule_of(i) for t in samples.values() for i in t.omitted}
    assert kinds == {OmissionRule.BUDGET, OmissionRule.WINDOW, OmissionRule.RANK, OmissionRule.POLICY}  # every recorded kind is covered


@pytest.mark.slow
def test_every_corpus_trace_is_reproduced(shared: Path, tmp_path: Path) -> None:
    files = sorted(p for p in (shared / "corpus").rglob("*")
                   if p.is_file() and p.suffix != ".md" and "spec-schemas" not in p.parts)
    checked = 0
    for n, f in enumerate(files):
        db = tmp_path / f"c{n}.db"
        if import_into(db, [f]).imported == 0:
            continue  # the lone execute_tool span: no model call
        with TraceStore.open(db) as store:
            for row in store.list(TraceQuery(), 0, -1):
                t = store.load(row.trace_id)
                for shown in {id(t): t, id(d := derive_for_display(store, t)): d}.values():  # as the window shows it
                    assert_reproduces(shown)  # with recorded (or derived) omissions or none
                checked += 1
    assert checked >= len(files) - 1 >= 40  # every file but the lone execute_tool span gave traces


def test_history_16k_is_over_capacity_by_348_as_recorded(samples: dict[str, RequestTrace]) -> None:
    t = samples["history-16k"]
    o = run(t, Scenario())
    assert o.state is State.FAILURE
    assert o.verdict.startswith("over capacity by 348 tokens by the provider-reported input: had 14,000 tokens "
                                "left, needed 14,348 (counted 14,000); before trimming: over by 1,213")
    assert o.changes == () and len(o.trace.omitted) == 11
    # the recorded omissions are the declared history and evidence budgets at work (turn-00..07 are
    # the lowest-priority history, 579 tokens over B_hist; KB-1013/14/17 634 over B_evidence)
    assert o.rules == ("budget: history <= 6,000, evidence <= 5,000, tools <= 1,600 tokens "
                       "(declared budgets, lowest priority first)",
                       "budget: input <= C 16,000 - B_out 2,000 = 14,000 tokens")
    assert o.before_trim == "before trimming: over capacity by 1,213 tokens by the count: had 14,000 tokens left, needed 15,213"
    assert check_capacity(t).over_before_trim == 1213


def test_budget_8k_over_keeps_its_budget_omissions_and_its_safety_margin(samples: dict[str, RequestTrace]) -> None:
    t = samples["budget-8k-over"]
    o = run(t, Scenario())
    for item_id in ("KB-1014", "KB-1015", "KB-1013"):  # the three the margin-blind what-if brought back
        assert o.trace.item(item_id).status is Status.OMITTED
        assert o.trace.item(item_id).omission_reason == "budget"
    assert [i.id for i in o.trace.omitted] == ["KB-1014", "KB-1015", "KB-1013", "KB-1011", "KB-1006", "KB-1012"]
    assert o.trace.input_tokens == 6000 and o.verdict == "fits, 800 tokens margin; before trimming: over by 700"
    assert "budget: input <= C 8,000 - B_out 1,200 - safety margin 800 = 6,000 tokens" in o.rules
    # Pinned, KB-1014 (354) stays and evidence is back over B_evidence: the next lowest goes, KB-1005 (55, 390)
    p = run(t, Scenario(pinned=frozenset({"KB-1014"})))
    assert p.notes == ("KB-1014 was omitted for budget; pinned, it is kept",)
    assert [(c.id, c.after) for c in p.changes] == [("KB-1014", "retained #21"), ("KB-1005", "omitted (budget:evidence)")]


def test_rank_omitted_documents_stay_omitted_and_a_priority_moves_the_cut(samples: dict[str, RequestTrace]) -> None:
    for trace_id, doc in (("refund-approval-forgotten", "KB-1009"), ("json-unsupported", "KB-1013")):
        o = run(samples[trace_id], Scenario())
        assert o.trace.item(doc).status is Status.OMITTED and o.trace.item(doc).omission_reason == "rank"
    refund = samples["refund-approval-forgotten"]
    o = run(refund, Scenario(priorities={"KB-1009": 70.0}))  # now above KB-1006 (61): the kb cut keeps 2
    assert [(c.id, c.before, c.after) for c in o.changes] == [("KB-1006", "retained #14", "omitted (rank)"),
                                                              ("KB-1009", "omitted (rank)", "retained #14")]
    assert "rank: the 2 best-ranked evidence items from kb by priority" in o.rules
    j = run(samples["json-unsupported"], Scenario(pinned=frozenset({"KB-1013"})))
    assert j.notes == ("KB-1013 was omitted by the retrieval rank cut; pinned, it is kept",)
    assert j.trace.item("KB-1013").position == 8 and j.trace.input_tokens == 2411 + 175


def test_pins_of_window_omitted_turns_keep_them_and_say_so(samples: dict[str, RequestTrace]) -> None:
    t = samples["refund-approval-forgotten"]
    assert run(t, Scenario()).state is State.WARNING  # the commitment in turn-01 / turn-03 is lost
    o = run(t, Scenario(pinned=frozenset({"turn-01", "turn-03"})))
    assert o.notes == ("turn-01 was omitted by the history window; pinned, it is kept",
                       "turn-03 was omitted by the history window; pinned, it is kept")
    assert [(c.id, c.after) for c in o.changes] == [("turn-01", "retained #5"), ("turn-03", "retained #6")]
    assert [i.id for i in o.trace.omitted] == ["turn-00", "turn-02", "KB-1009"]
    assert o.trace.input_tokens == 2886 + 134 + 60
    assert (o.state, o.verdict) == (State.OK, "fits, 3,720 tokens margin")  # the commitments are sent again
    # the window keeps the most recent six: a priority does not move it, and the note says so
    p = run(t, Scenario(priorities={"turn-01": 99.0}))
    assert p.changes == ()
    assert p.notes == ("the priority of turn-01 changes nothing: it was omitted by the history window, which "
                       "priorities do not move; pin it to keep it",)


def test_policy_omissions_stay_and_a_pin_overrides_them(samples: dict[str, RequestTrace]) -> None:
    t = samples["policy-missing"]
    o = run(t, Scenario(pinned=frozenset({"policy", "policy-fallback"})))
    assert o.notes == (
        "policy was omitted by the application's policy (unavailable: support-policy@2026-10-03 not found in the "
        "policy store); its content was not recorded, so a pin cannot send it",
        "policy-fallback was omitted by the application's policy (fallback refused: version pinned); pinned, it is kept")
    assert o.trace.item("policy").status is Status.OMITTED
    assert o.trace.item("policy-fallback").position == 1 and o.trace.input_tokens == 1309 + 52
    assert o.state is State.FAILURE  # the required version is still unavailable (Table 3.1 row 1)


def _numbered(t: RequestTrace, items: tuple[ContextItem, ...]) -> RequestTrace:
    """``t`` with ``items``, retained ones numbered 1.. in order."""
    pos, out = 0, []
    for i in items:
        pos += i.status is Status.RETAINED
        out.append(replace(i, position=pos if i.status is Status.RETAINED else None))
    return replace(t, items=tuple(out))


def test_the_table_uses_the_assessments_category_map() -> None:
    """A declared memory budget makes memory its own category in the chart; the what-if's table says the same."""
    base = make_trace()
    memory = ContextItem(kind=Kind.MEMORY, id="mem-1", content="refunds above 50 USD need approval", tokens=23,
                         priority=0.5, role="user")
    t = _numbered(replace(base, budget={**base.budget, Category.MEMORY: 100}, input_tokens=None),
                  (*base.items[:-1], memory, base.items[-1]))
    chart = {a.category: a.used for a in allocations(t)}
    assert chart[Category.MEMORY] == 23
    o = run(t, Scenario())
    assert o.category_delta[Category.MEMORY] == (23, 23)  # not counted inside history
    assert o.category_delta[Category.HIST] == (chart[Category.HIST], chart[Category.HIST])
    assert {c: b for c, (b, _) in o.category_delta.items()} == chart


def test_limits_the_recording_did_not_keep_are_not_applied_while_c_and_b_out_are_as_recorded() -> None:
    base = make_trace()
    big = ContextItem(kind=Kind.HISTORY, id="big-output", content=None, tokens=7000, priority=0.5, role="user")
    over = _numbered(replace(base, input_tokens=None, budget={}), (*base.items[:-1], big, base.items[-1]))
    recorded_input = sum(i.tokens for i in over.retained)
    assert recorded_input + 1200 > 8000  # the application did not trim to C
    o = run(over, Scenario())
    assert o.changes == () and o.trace.item("big-output").status is Status.RETAINED
    assert o.notes == (f"the recording's input of {recorded_input:,} tokens leaves less than its declared safety "
                       "margin of 800: the application did not keep it, so neither does the what-if while C and "
                       "B_out are as recorded",
                       f"the recording's input of {recorded_input:,} tokens is over its input budget of 6,800: the "
                       "application did not trim to it, so neither does the what-if while C and B_out are as recorded",
                       "1 item(s) omitted for budget stay omitted: no input budget to re-trim them by")
    assert (o.state, o.verdict) == (conclude(over).state, conclude(over).verdict)
    trimmed = run(over, Scenario(reserve=1000))  # a changed limit is applied, with the declared margin
    assert "budget: input <= C 8,000 - B_out 1,000 - safety margin 800 = 6,200 tokens" in trimmed.rules
    assert [(c.id, c.after) for c in trimmed.changes] == [("big-output", "omitted (budget)")]
    assert trimmed.trace.input_tokens is None  # not recorded, as in the recording: the items are summed
    assert check_capacity(trimmed.trace).input_tokens == recorded_input - 7000


def test_without_a_capacity_nothing_is_trimmed_for_budget() -> None:
    # no C recorded and none the catalogue knows (a model it knows gives the header's assumed C:
    # tests/whatif/test_whatif_assumed_capacity.py)
    t = replace(make_trace(), endpoint=replace(make_trace().endpoint, capacity=None, provider="ollama",
                                               model="my-local-model"))
    o = run(t, Scenario())
    assert o.changes == () and o.state is conclude(t).state
    assert o.notes[0] == "capacity not recorded: the input budget C - B_out is not applied (give a capacity to apply it)"
    budget_omitted = [i.id for i in t.omitted if rule_of(i) is OmissionRule.BUDGET]
    assert budget_omitted and all(o.trace.item(i).status is Status.OMITTED for i in budget_omitted)


def test_before_trimming_says_its_input_when_the_verdict_is_by_the_providers() -> None:
    """New user F11: 'before trimming: fits, 49,993 tokens margin' beside 'verdict: failure: over
    capacity ... by the provider-reported input' read as a contradiction; the line now says it is by
    the count, and nothing was trimmed, so the headline adds no 'before trimming: over by'."""
    from factories import make_trace

    from ctxviewer.model.trace import Endpoint, Response, Trust, Usage

    item = ContextItem(kind=Kind.USER, id="u", content="Summarise the attached report.", tokens=7,
                       status=Status.RETAINED, position=1, trust=Trust.UNTRUSTED)
    t = make_trace(endpoint=Endpoint(provider="openai", model="gpt-4o"), items=(item,), input_tokens=None, budget={},
                   usage=Usage(input_tokens=100_000, output_tokens=100), reserved_output_tokens=None,
                   safety_margin=None, response=Response(text="ok"))
    o = run(t, Scenario(capacity=50_000))
    assert o.before_trim == "before trimming: fits by the count, 49,993 tokens margin"
    # new user nu2 #5: the provider's 99,993 tokens beyond the count ride along whatever is trimmed,
    # so no re-trim at C = 50,000 can fit (it was "over capacity ... by the provider-reported input"
    # beside "no item changed")
    assert o.verdict == ("cannot be built: the provider reported 100,000 input tokens for the recorded request, "
                         "99,993 more than its count of 7: C - B_out = 50,000 tokens leaves no room for the items")
    assert "before trimming: over by" not in o.verdict


def test_the_providers_count_beyond_the_items_lowers_the_input_budget() -> None:
    """nu2 #5: at C = 160, B_out = 20 the provider's 58 tokens beyond the 37 counted leave 82 for the
    items; at 100 they leave 22, so both history turns go (37 -> 17), and the what-if's verdict
    and its trimming agree."""
    from factories import make_trace

    from ctxviewer.model.trace import Endpoint, Response, Trust, Usage

    def item(kind: Kind, iid: str, n: int, prio: float | None, role: str, pos: int) -> ContextItem:
        return ContextItem(kind=kind, id=iid, content=filler(n), tokens=n, priority=prio, role=role, position=pos,
                           status=Status.RETAINED, trust=Trust.UNTRUSTED)

    items = (item(Kind.HISTORY, "h1", 10, 0.1, "user", 1), item(Kind.HISTORY, "h2", 10, 0.2, "assistant", 2),
             item(Kind.USER, "u", 17, None, "user", 3))
    t = make_trace(endpoint=Endpoint(provider="openai", model="gpt-4o"), items=items, input_tokens=None, budget={},
                   usage=Usage(input_tokens=95, output_tokens=5), reserved_output_tokens=None, safety_margin=None,
                   response=Response(text="ok"))
    wide = run(t, Scenario(capacity=160, reserve=20))
    assert wide.rules[-1] == ("budget: the provider counts 58 tokens beyond the items (it reported 95 for 37 counted): "
                              "input <= 140 - 58 = 82 tokens")
    assert wide.changes == () and wide.verdict.startswith("fits, 103 tokens margin (by the count; 45 by the provider-reported input 95)")
    narrow = run(t, Scenario(capacity=100, reserve=20))
    # review L2: "fits" above a trim said nothing of why; the provider's count beside it does
    assert narrow.before_trim == "before trimming: fits by the count, 43 tokens margin; over by the provider's count: 95 of 80"
    assert [(c.id, c.after) for c in narrow.changes] == [("h1", "omitted (budget)"), ("h2", "omitted (budget)")]
    assert narrow.verdict.startswith("fits, 63 tokens margin;")


def test_a_gap_that_may_sit_in_a_document_is_not_held_against_the_items() -> None:
    """Review M2: the provider's 119,954 tokens beyond the count of a request holding a PDF made
    'cannot be built', though dropping the PDF turn would fit: the gap may be the document's."""
    from factories import make_trace

    from ctxviewer.model.trace import Endpoint, Response, Trust, Usage

    pdf = ContextItem(kind=Kind.HISTORY, id="h", content="Read this\n[application/pdf blob, 480,000 bytes base64]",
                      tokens=20, priority=0.1, role="user", position=1, status=Status.RETAINED, trust=Trust.UNTRUSTED)
    user = ContextItem(kind=Kind.USER, id="u", content="Summarise it.", tokens=26, position=2, status=Status.RETAINED,
                       trust=Trust.UNTRUSTED)
    t = make_trace(endpoint=Endpoint(provider="anthropic", model="claude-sonnet-4"), items=(pdf, user), input_tokens=None,
                   budget={}, usage=Usage(input_tokens=120_000, output_tokens=5), reserved_output_tokens=4096,
                   safety_margin=None, response=Response(text="ok"))
    o = run(t, Scenario(capacity=100_000))
    assert not o.verdict.startswith("cannot be built")
    assert o.notes == ("the provider counted 119,954 tokens beyond the items, which may be in the request's images or "
                       "documents (trimming one removes its share): the what-if trims by the count",)
