"""The fast builder is exact: the fixed-cut lemma holds against real encodes, junction sums equal
real encodes, and trim() equals the textbook loop on random candidate sets (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxviewer.builder import Candidate, ChatRule, RequiredOverBudgetError, TextRule, textbook_trim, trim
from ctxviewer.builder.junctions import EDGE_CHARS, JunctionCounter, fixed_cut, last_fixed_cut
from ctxviewer.model.trace import Category, Kind
from ctxviewer.tokens.counting import count_tokens, encode, get_encoding

# Characters that make BPE pieces merge across a join: letters, digits, spaces, newlines,
# apostrophes (contractions), punctuation runs, accents, CJK, emoji; and the ones a fixed cut must
# be careful about: every ASCII non-letter after a letter, combining marks (o200k letter classes),
# case-folding letters (long s, Kelvin sign), titlecase and modifier letters, non-ASCII spaces and
# digits, NUL and DEL, surrogate code points, characters some Unicode versions call whitespace.
ALPHABET = ("ab Zé中😀0123 \n\n\r\t'sllvd.,!?-_/<>|"
            "\"`~{}[]()@#$%^&*+=:;\\\x00\x7f\x0b\x0cEeRrTtMm\u0301\u017f\u212a\u01c5\u02b0\u00a0\u2028\u0663"
            "\ud83d\ude00\udfff\u180e\u200b\x1c\x85\u3000")  # surrogates, paired or lone (tiktoken makes a lone one U+FFFD)
SHORT = st.text(alphabet=ALPHABET, max_size=40) | st.sampled_from(
    ["hello world", "   ", "\n\n", "'s", "don't", "123456", "<|endoftext|>", "", "  \n  x", "I'LL", "we're",
     "it's\n", "e\u0301 ", "<evidence id=\"e1\">\n", "\n</evidence>\n", "x" * 9]
) | st.text(alphabet=" \n\t", min_size=1, max_size=30)
# Long texts have enough pre-tokenizer pieces for a head, a body and a tail (the fast paths).
LONG = st.lists(SHORT, min_size=4, max_size=10).map(" ".join)
TEXTS = SHORT | LONG
ENCODINGS = st.sampled_from(["cl100k_base", "o200k_base"])
COUNTERS = {e: JunctionCounter(e) for e in ("cl100k_base", "o200k_base")}
GUARDED = {e: JunctionCounter(e) for e in ("cl100k_base", "o200k_base")}
for _jc in GUARDED.values():
    _jc.fixed_cuts = False  # the guarded-pieces path, as for an encoding without the fixed-cut proof
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base", "o200k_harmony"])
def test_shipped_encodings_take_the_fixed_cut_path(encoding: str) -> None:
    """A tiktoken whose pattern text changed would silently fall back to the slower path."""
    assert JunctionCounter(encoding).fixed_cuts


@SETTINGS
@given(st.lists(TEXTS, min_size=1, max_size=6).map("".join), st.sampled_from(["cl100k_base", "o200k_base", "o200k_harmony"]))
def test_a_fixed_cut_splits_pieces_and_tokens_exactly(text: str, encoding: str) -> None:
    """The lemma the fixed-cut path rests on, checked at every cut against tiktoken's own encode."""
    jc = COUNTERS.get(encoding) or JunctionCounter(encoding)
    enc = get_encoding(encoding)
    pieces, ids = jc.pat.findall(text), enc.encode_ordinary(text)
    cut = fixed_cut(text)
    while cut is not None:
        assert jc.pat.findall(text[:cut]) + jc.pat.findall(text[cut:]) == pieces
        assert enc.encode_ordinary(text[:cut]) + enc.encode_ordinary(text[cut:]) == ids
        cut = fixed_cut(text, cut)


def test_fixed_cuts_are_letter_then_ascii_non_letter() -> None:
    assert fixed_cut("it's a test") == 4  # not after "t" (then ') nor "i"
    assert fixed_cut("don't") is None
    assert fixed_cut("caf\u00e9!x") is None  # é is not ASCII, and no space follows
    assert fixed_cut("caf\u00e9 x") == 4  # any non-whitespace character, then a space
    assert fixed_cut("\u4e2d\u6587 x") == 2 and fixed_cut("12 x") == 2 and fixed_cut("!! x") == 2
    assert fixed_cut("\u200b x") is None and fixed_cut("\u180e x") is None and fixed_cut("\x1c x") is None
    assert fixed_cut("\n y") is None and fixed_cut("\u00a0 y") is None and fixed_cut("\t\t y") is None
    assert fixed_cut("ab1") == 2 and fixed_cut("ab\n") == 2 and fixed_cut("Ab<") == 2
    assert last_fixed_cut("<history id=\"7\">\ntext here\n</history>\n") == 36
    assert last_fixed_cut("no cut at the end: \u4e2d\u6587", 19) is None


@pytest.mark.slow
@SETTINGS
@given(st.lists(TEXTS, max_size=12), ENCODINGS)
def test_junction_sum_equals_a_real_encode(texts: list[str], encoding: str) -> None:
    assert COUNTERS[encoding].count(texts) == len(encode("".join(texts), encoding))
    assert GUARDED[encoding].count(texts) == len(encode("".join(texts), encoding))


@pytest.mark.slow
@SETTINGS
@given(st.lists(TEXTS, min_size=1, max_size=12), ENCODINGS, st.data())
def test_tally_stays_exact_through_removals(texts: list[str], encoding: str, data: st.DataObject) -> None:
    rule = TextRule(encoding, template=lambda c: c.text)
    rule.junctions.fixed_cuts = data.draw(st.booleans())
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


@pytest.mark.slow
@SETTINGS
@given(candidate_sets(), st.integers(0, 400), CAPS, st.sampled_from(["raw", "default"]), ENCODINGS)
def test_builder_equals_textbook_loop_text_rule(cands: list[Candidate], budget: int,
                                                caps: dict[Category, int], template: str, encoding: str) -> None:
    rule = TextRule(encoding, template=lambda c: c.text) if template == "raw" else TextRule(encoding)
    fast, slow = _both(cands, rule, budget, caps)
    assert fast == slow


@pytest.mark.slow
@SETTINGS
@given(candidate_sets(), st.integers(0, 300), CAPS, st.sampled_from(["gpt-4o", "gpt-4", "unknown-model"]))
def test_builder_equals_textbook_loop_chat_rule(cands: list[Candidate], budget: int,
                                                caps: dict[Category, int], model: str) -> None:
    fast, slow = _both(cands, ChatRule(model), budget, caps)
    assert fast == slow


@pytest.mark.slow
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
    texts = ["The quick brown fox jumps over the lazy dog. " * 3, "  and then", "It's 12345 o'clock!!\n\n" * 2,
             "12345,67890;" * 3, "\u4e2d\u6587\u3002" * 10, "x" * (EDGE_CHARS + 5) + " and so on, with more words",
             "\u4e2d\u6587 " * 10, "\u4e2d" * 300 + " "]
    assert jc.count(texts) == len(encode("".join(texts), "cl100k_base"))
    segs = [jc.segment(t) for t in texts]
    assert [s.long for s in segs] == [True] * 8
    # fixed cuts: head up to the first cut, tail from the last; no guards
    assert (segs[0].head, segs[0].tail, segs[0].x_after_head) == ("The", " ", "")
    assert (segs[1].head, segs[1].tail) == ("  and", " then")
    assert (segs[2].head, segs[2].tail) == ("It's", "!!\n\n")
    # no cut (no ASCII letter before ASCII, no space) or none near the start: guarded pieces
    assert (segs[3].head, segs[3].x_after_head) == ("12345,", "678")
    assert (segs[4].head, segs[4].x_after_head) == ("\u4e2d\u6587" + "\u3002\u4e2d\u6587" * 2, "\u3002\u4e2d\u6587")
    assert segs[5].x_after_head != ""
    # CJK words and spaces: cuts after each word; one 300-character word: a cut only at its end,
    # taken although far from the start, as the guarded scan finds it short (2 pieces)
    assert (segs[6].head, segs[6].tail, segs[7].head, segs[7].tail) == ("\u4e2d\u6587", " ", "\u4e2d" * 300, " ")
    assert [s.tokens - s.body for s in segs[:3]] == [len(encode("The")) + len(encode(" ")),
                                                    len(encode("  and")) + len(encode(" then")),
                                                    len(encode("It's")) + len(encode("!!\n\n"))]
    assert jc.full_encodes == 0


def test_templated_junctions_are_encoded_once() -> None:
    """The default template makes every junction the same few characters (``>\\n<kind``)."""
    rule = TextRule("cl100k_base")
    cands = [Candidate(Kind.EVIDENCE, f"e{k}", f"Record {k} says the budget was {k * 10} tokens.") for k in range(50)]
    assert rule.count(cands) == rule.tally(cands).total
    assert set(rule.junctions.window_texts) == {("<evidence", 0, 0), (">\n<evidence", 0, 0), (">\n", 0, 0)}


def test_chat_rule_tells_a_tool_definition_from_a_tool_result_with_the_same_text() -> None:
    """Counted once per role and text -- but a tool result is a message even when its text is a
    function definition, and a re-trim from cached counts equals the textbook count."""
    fn = '{"name": "get_current_weather", "description": "Get the weather", "parameters": {}}'
    rule = ChatRule("gpt-4o")
    result = Candidate(Kind.TOOL, "t1", fn, tool_call_id="c1")
    definition = Candidate(Kind.TOOL, "d1", fn)
    call = Candidate(Kind.HISTORY, "a1", "", role="assistant", tool_call_ids=("c1",))
    for cands in ([call, result], [definition], [call, result, definition], [definition, call, result]):
        assert rule.tally(cands).total == rule.count(cands) == ChatRule("gpt-4o").count(cands)
    assert rule.entry(definition)[2] and not rule.entry(result)[2]
    assert rule.cost(result) == 21 and rule.cost(definition) == 6  # JSON text vs "name:description"
    assert ChatRule("gpt-4o").tally([call, result, definition]).total == 57  # was 72 or 42 (shared count)


class _Counting:
    """Stands in for a tiktoken Encoding or a compiled pattern, counting calls."""

    def __init__(self, inner: object, method: str) -> None:
        self.inner, self.method, self.calls = inner, method, 0

    def __getattr__(self, name: str) -> object:
        attr = getattr(self.inner, name)
        if name != self.method:
            return attr

        def counted(*a: object, **k: object) -> object:
            self.calls += 1
            return attr(*a, **k)  # type: ignore[operator]
        return counted


def test_a_cold_trim_encodes_each_item_once_and_scans_none() -> None:
    """The cold path's cost: one encode per item plus one per distinct junction text, and no
    pre-tokenizer scan (the fixed cuts replace it); the result equals the textbook loop."""
    words = ["token", "budget", "the", "context", "window", "retained", "omitted", "evidence", "it's", "42", "records"]
    cands = [Candidate(Kind.POLICY, "policy", "Answer from the records only.")]
    cands += [Candidate(Kind.EVIDENCE if k % 2 else Kind.HISTORY, f"i{k}",
                        " ".join(words[(k * 7 + j) % len(words)] for j in range(30)), priority=k % 5)
              for k in range(60)]
    cands.append(Candidate(Kind.USER, "user", "Which records answer my question?"))
    rule = TextRule("cl100k_base")
    enc, pat = _Counting(rule.junctions.enc, "encode_ordinary"), _Counting(rule.junctions.pat, "findall")
    rule.junctions.enc, rule.junctions.pat = enc, pat  # type: ignore[assignment]
    budget = TextRule("cl100k_base").count(cands) // 2
    fast = trim(cands, rule, budget)
    assert pat.calls == 0
    assert enc.calls == len(cands) + len(rule.junctions.window_texts)
    assert sorted(t for t, _, _ in rule.junctions.window_texts) == [  # the template's junctions
        "<policy", ">\n", ">\n<evidence", ">\n<history", ">\n<user"]
    assert fast == textbook_trim(cands, TextRule("cl100k_base"), budget)


@pytest.mark.parametrize("texts", [
    ["ab\ud800 cd efg hij", "x y"],  # a lone surrogate in a head
    ["\ud83d\ude00ab cd efg", "hij \ud800"],  # a surrogate pair written as two code points
    ["one two \ud83d", "\ude00 three four"],  # a pair split between two items
    ["a b \udfff", "\udfff c d"],
])
@pytest.mark.parametrize("fixed_cuts", [True, False])
def test_surrogates_count_as_tiktoken_counts_them(texts: list[str], fixed_cuts: bool) -> None:
    jc = JunctionCounter("o200k_base")
    jc.fixed_cuts = fixed_cuts
    assert jc.count(texts) == len(get_encoding("o200k_base").encode_ordinary("".join(texts)))


@pytest.mark.parametrize("model", ["gpt-4o", "claude-sonnet-4-5"])
@pytest.mark.parametrize("schema_key", ["parameters", "input_schema"])
def test_chat_rule_tally_equals_its_count_for_every_definition_shape(model: str, schema_key: str) -> None:
    """Review R6: the tally ignored ``input_schema`` and count() counted the definition re-wrapped
    as ``{"type":"function","function":...}`` (tally 200, count() 218 on the corpus Anthropic trace)."""
    import json

    from ctxviewer.tokens.request_accounting import count_request

    schema = {"type": "object", "properties": {"city": {"type": "string", "description": "The city."},
                                               "unit": {"type": "string", "enum": ["c", "f"]}}}
    fn = {"name": "get_weather", "description": "Get the weather.", schema_key: schema}
    text = json.dumps(fn, separators=(",", ":"))
    cands = [Candidate(Kind.USER, "u", "Weather in Paris?"), Candidate(Kind.TOOL, "get_weather", text),
             Candidate(Kind.TOOL, "r", '{"name":"Paris","temp":21}', role="tool")]
    rule = ChatRule(model)
    body = rule.serialize(cands)
    assert body["tools"] == [fn]  # the definition as stored; the role-"tool" item stays a message
    assert [m["role"] for m in body["messages"]] == ["user", "tool"]
    assert rule.tally(cands).total == rule.count(cands) == count_request(body, model).total
    with_lines = rule.cost(cands[1])
    if model == "gpt-4o":  # by the definition's lines, whichever key holds the schema
        assert with_lines == sum(count_tokens(t, "o200k_base") for t in (
            "get_weather:Get the weather", "city:string:The city", "c", "f", "unit:string:"))
    else:  # "json": the definition's JSON as stored
        assert with_lines == count_tokens(text, rule.encoding)
