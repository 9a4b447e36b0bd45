"""Build requests by the chapter 3.3 rules and record what was sent (public API).

    from ctxviewer.builder import Builder, Candidate
    from ctxviewer.model.trace import Kind

    b = Builder("gpt-4o", capacity=8000, reserved_output_tokens=1200)
    result = b.build([Candidate(Kind.POLICY, "policy", policy_text),
                      Candidate(Kind.EVIDENCE, "doc-1", passage, priority=0.8),
                      Candidate(Kind.USER, "question", question)], policy_version="v3")
    send(result.request)                      # the chat body
    save_traces("traces.db", [result.trace])  # the selection record, as ctxviewer shows it
                                              # (ctxviewer.pipeline.stored_facts: assessed, then stored)

See :mod:`.trim` for the rules, :mod:`.rules` for how a request is counted. No Qt here.
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
