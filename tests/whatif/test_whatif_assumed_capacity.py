"""The what-if uses the C the trace header checks eq. 3.1 against: when the trace records no C and
the model catalogue knows the model, the header says "capacity 128,000 tokens assumed (model
catalogue: ...)" and the what-if re-trims by that same C, worded the same; a C the user gives the
what-if comes first. (Before, the what-if read only a recorded C and said "capacity not recorded".)"""

from __future__ import annotations

from ctxviewer.assess.assessment import assess
from ctxviewer.builder.whatif import Scenario, run
from ctxviewer.model.trace import ContextItem, Endpoint, Kind, Policy, RequestTrace, Status
from ctxviewer.tokens.catalogue import package_version

ASSUMED = f"assumed (model catalogue: genai-prices {package_version()}, gpt-4o-mini)"


def _trace() -> RequestTrace:
    """The chapter's 8,000-token request (800 + 1,200 + 3,000 + 600 + 400, B_out 1,200, margin
    800) sent to gpt-4o-mini with no C recorded."""
    def it(kind: Kind, i: str, n: int, priority: float) -> ContextItem:
        return ContextItem(kind, i, "x", Status.RETAINED, tokens=n, priority=priority)
    items = (it(Kind.POLICY, "p", 800, 1.0), it(Kind.HISTORY, "h", 1200, 0.5), it(Kind.EVIDENCE, "e", 3000, 0.2),
             it(Kind.TOOL, "t", 600, 0.9), it(Kind.USER, "u", 400, 1.0))
    return RequestTrace(trace_id="assumed-c", created=None, policy=Policy(id="p"), user_request="u", items=items,
                        endpoint=Endpoint(provider="openai", model="gpt-4o-mini-2024-07-18"),
                        reserved_output_tokens=1200, safety_margin=800)


def test_the_what_if_checks_the_assumed_capacity_the_header_checks() -> None:
    t = _trace()
    header = assess(t).capacity
    assert (header.capacity, header.capacity_source) == (128_000, ASSUMED)
    o = run(t, Scenario())
    assert o.rules[-1] == f"budget: input <= C 128,000 {ASSUMED} - B_out 1,200 - safety margin 800 = 126,000 tokens"
    assert not any("capacity not recorded" in n for n in o.notes)
    assert o.trace is not None and [i.id for i in o.trace.omitted] == []
    assert o.verdict == assess(t).verdict == "fits, 120,800 tokens margin (capacity assumed)"
    assert o.trace.endpoint.capacity is None  # still assumed on the what-if's trace, not turned into "recorded"


def test_a_capacity_the_user_gives_the_what_if_comes_first() -> None:
    o = run(_trace(), Scenario(capacity=7000))
    assert o.rules[-1] == "budget: input <= C 7,000 - B_out 1,200 - safety margin 800 = 5,000 tokens"
    assert o.trace is not None and [i.id for i in o.trace.omitted] == ["e"]  # lowest priority first
    assert o.trace.endpoint.capacity == 7000
