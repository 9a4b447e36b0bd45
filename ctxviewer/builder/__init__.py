"""Building and re-trimming requests: the chapter 3.3 rules as a library, and the what-if that
re-trims a recorded trace.

    from ctxviewer.builder import Builder, Candidate
    from ctxviewer.model.trace import Kind

    b = Builder("gpt-4o", capacity=8000, reserved_output_tokens=1200)
    result = b.build([Candidate(Kind.POLICY, "policy", policy_text),
                      Candidate(Kind.EVIDENCE, "doc-1", passage, priority=0.8),
                      Candidate(Kind.USER, "question", question)], policy_version="v3")
    send(result.request)                      # the chat body
    save_traces("traces.db", [result.trace])  # the selection record, as ctxviewer shows it
                                              # (ctxviewer.pipeline.stored_facts: assessed, then stored)

What lives here: :mod:`.api` (:class:`Builder`, :class:`BuildResult`), :mod:`.candidates` (what
may go into a request), :mod:`.trim` (the trimming rules), :mod:`.rules` and :mod:`.junctions`
(how a request is serialized and counted), :mod:`.whatif` (re-trimming a recorded trace under
other limits, pins and priorities; with no changes it reproduces the recording) and
:mod:`.whatif_rules` (the rules a recording's omission reasons name -- budget, history window,
rank cut, the application's policy -- decided again for a what-if) and :mod:`.kept_with` (why a
what-if keeps an unpinned item: a pinned tool call's result).

May import: :mod:`ctxviewer.assess` (eq. 3.1), :mod:`ctxviewer.tokens`, :mod:`ctxviewer.model`,
:mod:`ctxviewer.util`. No Qt here.

A new trimming rule goes into :mod:`.trim`; a new serialization (an endpoint's chat template)
into :mod:`.rules`.
"""

from ctxviewer.builder.api import Builder, BuildResult, input_budget
from ctxviewer.builder.candidates import BuildError, Candidate, RequiredOverBudgetError
from ctxviewer.builder.rules import ChatRule, TextRule
from ctxviewer.builder.trim import Trim, textbook_trim, trim

__all__ = [
    "BuildError",
    "BuildResult",
    "Builder",
    "Candidate",
    "ChatRule",
    "RequiredOverBudgetError",
    "TextRule",
    "Trim",
    "input_budget",
    "textbook_trim",
    "trim",
]
