"""The fast builder is exact: junction sums equal real encodes, and trim() equals the textbook loop
on random candidate sets (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxviewer.builder import Candidate, ChatRule, RequiredOverBudgetError, TextRule, textbook_trim, trim
from ctxviewer.builder.junctions import JunctionCounter
from ctxviewer.model import Category, Kind
from ctxviewer.tokens import encode

# Characters that make BPE pieces merge across a join: letters, digits, spaces, newlines,
# apostrophes (contractions), punctuation runs, accents, CJK, emoji.
ALPHABET = "ab Zé中😀0123 \n\n\r\t'sllvd.,!?-_/<>|"
SHORT = st.text(alphabet=ALPHABET, max_size=40) | st.sampled_from(
    ["hello world", "   ", "\n\n", "'s", "don't", "123456", "<|endoftext|>", "", "  \n  x"]
)
# Long texts have enough pre-tokenizer pieces for a head, a body and a tail (the fast path).
LONG = st.lists(SHORT, min_size=4, max_size=10).map(" ".join)
TEXTS = SHORT | LONG
ENCODINGS = st.sampled_from(["cl100k_base", "o200k_base"])
COUNTERS = {e: JunctionCounter(e) for e in ("cl100k_base", "o200k_base")}
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.lists(TEXTS, max_size=12), ENCODINGS)
def test_junction_sum_equals_a_real_encode(texts: list[str], encoding: str) -> None:
    assert COUNTERS[encoding].count(texts) == len(encode("".join(texts), encoding))


@SETTINGS
@given(st.lists(TEXTS, min_size=1, max_size=12), ENCODINGS, st.data())
def test_tally_stays_exact_through_removals(texts: list[str], encoding: str, data: st.DataObject) -> None:
    rule = TextRule(encoding, template=lambda c: c.text)
    cands = [Candidate(Kind.HISTORY, f"i{k}", t) for k, t in enumerate(texts)]
    tally = rule.tally(cands)
    kept = list(range(len(cands)))
    assert tally.total == len(encode("".join(texts), encoding))
    for _ in range(len(cands)):
        victim = data.draw(st.sampled_from(kept))
        kept.remove(victim)
        tally.remove(victim)
        assert tally.total == len(encode("".join(texts[i] for i in kept), encoding))


KINDS = st.sampled_from([Kind.HISTORY, Kind.EVIDENCE, Kind.MEMORY, Kind.SUMMARY, Kind.TOOL])


@st.composite
def candidate_sets(draw: st.DrawFn) -> list[Candidate]:
    n = draw(st.integers(0, 14))
    cands = [Candidate(Kind.POLICY, "policy", draw(TEXTS))]
    open_calls: list[str] = []
    for k in range(n):
        kind = draw(KINDS)
        text = draw(TEXTS)
        prio = draw(st.sampled_from([0.0, 0.5, 1.0, 2.0]))  # few values: many ties
        if kind is Kind.HISTORY and draw(st.booleans()):
            cands.append(Candidate(kind, f"a{k}", text, prio, role="assistant", tool_call_ids=(f"c{k}",)))
            open_calls.append(f"c{k}")
        elif kind is Kind.TOOL and open_calls:
            cands.append(Candidate(kind, f"t{k}", text, prio, tool_call_id=draw(st.sampled_from(open_calls))))
        else:
            cands.append(Candidate(kind, f"i{k}", text, prio, pinned=draw(st.integers(0, 9)) == 0))
    cands.append(Candidate(Kind.USER, "user", draw(TEXTS)))
    return cands


CAPS = st.dictionaries(st.sampled_from([Category.HIST, Category.EVIDENCE, Category.TOOLS]),
                       st.integers(0, 40), max_size=2)


def _both(cands: list[Candidate], rule: object, budget: int, caps: dict[Category, int]) -> tuple[object, object]:
    out = []
    for fn in (trim, textbook_trim):
        try:
            out.append(fn(cands, rule, budget, caps))  # type: ignore[arg-type]
        except RequiredOverBudgetError as exc:
            out.append(("over", exc.overrun))
    return out[0], out[1]


@SETTINGS
@given(candidate_sets(), st.integers(0, 400), CAPS, st.sampled_from(["raw", "default"]), ENCODINGS)
def test_builder_equals_textbook_loop_text_rule(cands: list[Candidate], budget: int,
                                                caps: dict[Category, int], template: str, encoding: str) -> None:
    rule = TextRule(encoding, template=lambda c: c.text) if template == "raw" else TextRule(encoding)
    fast, slow = _both(cands, rule, budget, caps)
    assert fast == slow


@SETTINGS
@given(candidate_sets(), st.integers(0, 300), CAPS, st.sampled_from(["gpt-4o", "gpt-4", "unknown-model"]))
def test_builder_equals_textbook_loop_chat_rule(cands: list[Candidate], budget: int,
                                                caps: dict[Category, int], model: str) -> None:
    fast, slow = _both(cands, ChatRule(model), budget, caps)
    assert fast == slow


@SETTINGS
@given(candidate_sets(), st.integers(0, 400))
def test_no_orphan_tool_result_and_required_kept(cands: list[Candidate], budget: int) -> None:
    try:
        t = trim(cands, ChatRule("gpt-4o"), budget)
    except RequiredOverBudgetError:
        return
    kept_calls = {cid for c, k in zip(cands, t.kept) if k for cid in c.tool_call_ids}
    for c, k in zip(cands, t.kept):
        if c.required:
            assert k
        if k and c.tool_call_id is not None:
            assert c.tool_call_id in kept_calls


def test_long_segments_take_the_fast_path() -> None:
    jc = JunctionCounter("cl100k_base")
    texts = ["The quick brown fox jumps over the lazy dog. " * 3, "  and then", "It's 12345 o'clock!!\n\n" * 2]
    assert jc.count(texts) == len(encode("".join(texts), "cl100k_base"))
    assert [jc.segment(t).long for t in texts] == [True, False, True]
    assert jc.full_encodes == 0
