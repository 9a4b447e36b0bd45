"""Token accounting consistency: the numbers of a trace that cannot all be right.

Rule ids (not Table 3.1 rows; words in ``ctxviewer/resources/check_rules.json``):

* ``accounting.no_room_for_input`` (failure) -- C - B_out - safety margin leaves no room, or less
  than the required items (policy and user request) need.
* ``accounting.count_mismatch`` (warning) -- the application's counted input and the provider's
  reported input differ by more than the tolerance: the declared safety margin (chapter 3.3: it
  absorbs count variation), else :data:`DEFAULT_TOLERANCE` of the reported count (at least
  :data:`MIN_TOLERANCE` tokens). (ctxviewer's own recount against the report, with the endpoint
  profile's tolerance, is :func:`ctxviewer.assess.breakdown.breakdown`, shown by
  ``ctxviewer whatif`` and the what-if panel; see :mod:`ctxviewer.assess.checks.limits`.)
* ``accounting.reported_gap`` -- the trace records no count of its own, and ctxviewer's count of
  what it captured (content + framing + tool-definition overhead by the endpoint profile,
  :func:`ctxviewer.assess.breakdown.breakdown`) is further from the provider-reported input than
  the profile's tolerance. Explained, as ``info``, where the trace says why: its content was not
  captured, the exporter truncated it (:mod:`ctxviewer.assess.truncated`; eq. 3.1 then takes
  the reported input), the request held images (kept as placeholders, their tokens estimated from
  their pixel size by the endpoint profile's image rule, which the provider's own count may not
  match), the request continues a conversation the provider holds (reported above counted:
  :func:`~ctxviewer.assess.checks.server_state.server_held_state`, the earlier turns are input the
  request does not hold), or
  the model proposed tool calls while no tool definition was captured (the schemas were sent but
  not recorded), or the reported input is above the count while the trace holds tool definitions
  for an endpoint whose tool rule is ``"json"`` (:class:`ctxviewer.tokens.profiles.ToolRule`: no
  published per-definition rule; such an endpoint sends a prompt of its own with the tools, which
  the trace does not hold) by no more than :data:`TOOL_PROMPT_MAX` plus the tolerance. A
  ``warning`` when one side is more than :data:`GROSS` times the
  other (plus the tolerance) and nothing explains it: reported far above counted (something sent
  is not in the trace) or counted far above reported (the trace holds text that was not sent, or
  the usage is not this request's). A smaller gap is ``info`` with the numbers: counting a tool
  schema or a chat template differs between endpoints, and the gap is no evidence of a fault.
* ``accounting.items_over_count`` (warning) -- the retained items' tokens add up to more than the
  application's counted input plus the tolerance: framing only adds, so a count is wrong.
* ``accounting.reasoning_exceeds_output`` (warning) -- reasoning tokens > output tokens, which
  cannot be: output includes reasoning (OTel ``gen_ai.usage.reasoning.output_tokens``).

A reserve >= C and a reported input + B_out over C are eq. 3.1 overflows: ``budget.over_capacity``
(:mod:`ctxviewer.assess.checks.capacity`) reports them, which judges the reported input too, and
``no_room_for_input`` defers to it, so one overflow is one finding.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Iterable

from ctxviewer.assess import budget
from ctxviewer.assess.breakdown import Breakdown, breakdown
from ctxviewer.assess.checks._common import rule_finding
from ctxviewer.assess.checks.server_state import server_held_state
from ctxviewer.assess.plausibility import reported_input
from ctxviewer.assess.tolerance import DEFAULT_TOLERANCE, MIN_TOLERANCE, tolerance
from ctxviewer.assess.truncated import truncation
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.source_notes import SERVER_TOOLS_KEY
from ctxviewer.model.trace import LimitMode, RequestTrace
from ctxviewer.tokens.item_rule import definition_of
from ctxviewer.tokens.placeholders import split_marked
from ctxviewer.tokens.profiles import ProfileError

TOOL_PROMPT_MIN, TOOL_PROMPT_MAX = 159, 530
"""The smallest and largest tool-use system prompt an endpoint is documented to add, in tokens:
Anthropic's table "Tool use system prompt token count" (Claude 3 Sonnet ``auto`` to Claude 3
Opus ``auto``; 346 / 313 for recent models). A reported input above the count by more than the
largest (plus the tolerance) is not explained by the tool prompt."""


class AccountingCheck:
    """Token accounting consistency (see the module docstring)."""

    id = "accounting"
    title = "token accounting consistency"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The ``accounting.*`` findings for ``trace``."""
        c, out = trace.endpoint.capacity, trace.reserved_output_tokens
        shared = trace.endpoint.limit_mode is not LimitMode.SEPARATE
        margin = trace.safety_margin or 0
        cap_fields = ("endpoint.capacity", "reserved_output_tokens")
        over = budget.capacity(trace).fits is False  # budget.over_capacity says it already
        if shared and c is not None and out is not None and not over:
            room = c - out - margin
            required = sum(i.tokens or 0 for i in trace.items if i.kind.required and i.content is not None)
            if room <= 0 or room < required:
                yield rule_finding(
                    "accounting.no_room_for_input", Severity.FAILURE,
                    f"capacity {c:,} - reserved output {out:,} - safety margin {margin:,} leaves {room:,} "
                    f"tokens for input; the required items need {required:,}",
                    Evidence(fields=(*cap_fields, "safety_margin")))
        counted, reported = trace.input_tokens, reported_input(trace)
        if counted is None and reported is not None:
            yield from _reported_gap(trace)
        yield from _items_over_count(trace)
        tol = tolerance(trace)
        if counted is not None and reported is not None and tol is not None and abs(counted - reported) > tol:
            yield rule_finding(
                "accounting.count_mismatch", Severity.WARNING,
                f"counted input {counted:,} and reported input {reported:,} tokens differ by "
                f"{abs(counted - reported):,}, more than the tolerance of {tol:,}",
                Evidence(fields=("input_tokens", "usage.input_tokens")))
        r, o = trace.usage.reasoning_tokens, trace.usage.output_tokens
        if r is not None and o is not None and r > o:
            yield rule_finding(
                "accounting.reasoning_exceeds_output", Severity.WARNING,
                f"reasoning tokens {r:,} exceed output tokens {o:,} (output includes reasoning)",
                Evidence(fields=("usage.reasoning_tokens", "usage.output_tokens")))


GROSS = 3
"""A side more than this many times the other (plus the tolerance) is a warning, not a counting gap."""


def _items_over_count(trace: RequestTrace) -> Iterable[Finding]:
    """``accounting.items_over_count``: the retained items' recorded tokens add up to more than
    the application's counted input plus a tolerance (:data:`DEFAULT_TOLERANCE` of the count, at
    least :data:`MIN_TOLERANCE`, or the declared safety margin when larger: items counted one by one
    may sum a little above a count of the joined request): framing only adds to the items, so one of the
    counts is not of what was sent (eq. 3.1 checks the application's count)."""
    counted = trace.input_tokens
    tokens = [i.tokens for i in trace.retained]
    if counted is None or not tokens or any(t is None for t in tokens):
        return
    items = sum(t for t in tokens if t is not None)
    tol = max(MIN_TOLERANCE, math.ceil(DEFAULT_TOLERANCE * counted), trace.safety_margin or 0)  # a margin is no count
    if items > counted + tol:
        largest = sorted(trace.retained, key=lambda i: -(i.tokens or 0))[:3]
        yield rule_finding(
            "accounting.items_over_count", Severity.WARNING,
            f"the retained items add up to {items:,} tokens, {items - counted:,} more than the counted input "
            f"{counted:,} (tolerance {tol:,}): one of the counts is not of what was sent; eq. 3.1 checked {counted:,}",
            Evidence(item_ids=tuple(i.id for i in largest), fields=("input_tokens",)))


def _reported_gap(trace: RequestTrace) -> Iterable[Finding]:
    """``accounting.reported_gap`` (see the module docstring) for a trace without its own count."""
    try:
        bd = breakdown(trace)
    except ProfileError:  # a bad user profiles file: the what-if and `tokens` name it
        return
    r, tol, reported = bd.residual, bd.tolerance, bd.reported
    if r is None or tol is None or reported is None or abs(r) <= tol:
        return
    fields = ("items", "usage.input_tokens")
    counted = f"counted {bd.total:,} ({bd.resolution.label}{_parts(bd)})"
    if trace.attributes.get("ctxviewer.content") == "not captured":
        yield rule_finding("accounting.reported_gap", Severity.INFO,
                           f"the provider reported {bd.reported:,} input tokens, {counted}: the content was not captured",
                           Evidence(fields=fields))
    elif r > 0 and (cut := truncation(trace)).item_ids:
        yield rule_finding("accounting.reported_gap", Severity.INFO,
                           f"the provider reported {bd.reported:,} input tokens, {counted}: the exporter truncated "
                           f"{', '.join(cut.item_ids)}, so the rest of what was sent is not in the trace "
                           "(eq. 3.1 takes the reported input)",
                           Evidence(item_ids=cut.item_ids, fields=fields))
    elif images := sum(len(split_marked(i.content).images) for i in trace.retained if i.content):
        noun = "an image" if images == 1 else f"{images} images"
        yield rule_finding("accounting.reported_gap", Severity.INFO,
                           f"the provider reported {bd.reported:,} input tokens, {counted}: {abs(r):,} tokens "
                           f"apart -- the request held {noun}, kept as a placeholder and estimated from its size "
                           "by the model's image rule, which the provider's own count may not match",
                           Evidence(fields=fields))
    elif r > 0 and (state := server_held_state(trace)) is not None:  # captured whole: "capture more" has no object
        yield replace(rule_finding("accounting.reported_gap", Severity.INFO,
                                   f"the provider reported {bd.reported:,} input tokens, {counted}: {r:,} tokens above "
                                   f"the count -- the request continues a conversation the provider holds ({state}): "
                                   "the earlier turns count as input but are not in this request",
                                   Evidence(fields=fields)), repair=None)
    elif r > 0 and trace.tool_calls and not any(i.is_tool_definition for i in trace.items):
        yield rule_finding("accounting.reported_gap", Severity.INFO,
                           f"the provider reported {bd.reported:,} input tokens, {counted}: {r:,} tokens are not in "
                           "the captured items -- the model proposed tool calls, but no tool definition was captured",
                           Evidence(fields=(*fields, "tool_calls")))
    elif 0 < r <= TOOL_PROMPT_MAX + tol and bd.resolution.profile.tools.definition == "json" and \
            (defs := sum(1 for i in trace.retained if i.is_tool_definition and definition_of(i.content))):
        noun = "its tool definition" if defs == 1 else f"its {defs} tool definitions"
        yield rule_finding("accounting.reported_gap", Severity.INFO,
                           f"the provider reported {bd.reported:,} input tokens, {counted}: {r:,} tokens above the "
                           f"count -- the endpoint adds a tool-use system prompt of its own with {noun} "
                           f"(Anthropic documents {TOOL_PROMPT_MIN}-{TOOL_PROMPT_MAX} tokens by model) and renders "
                           "the definitions in a form no published rule counts; neither is in the trace",
                           Evidence(fields=fields))
    elif r > 0 and (ran := [t.get("type") for t in trace.attributes.get(SERVER_TOOLS_KEY) or [] if isinstance(t, Mapping)]):
        yield rule_finding("accounting.reported_gap", Severity.INFO,
                           f"the provider reported {bd.reported:,} input tokens, {counted}: {r:,} tokens above the "
                           f"count -- the provider ran {', '.join(dict.fromkeys(str(x) for x in ran))} itself, and "
                           "what it fed the model (search results, files) counts as input but is not in the trace",
                           Evidence(fields=(*fields, f"attributes.{SERVER_TOOLS_KEY}")))
    elif r > 0:
        gross = reported > GROSS * bd.total + tol
        yield rule_finding("accounting.reported_gap", Severity.WARNING if gross else Severity.INFO,
                           f"the provider reported {bd.reported:,} input tokens, {counted}: {r:,} tokens above the "
                           f"count (tolerance {tol:,})" + (": the trace and the usage disagree by more than 3x -- part of what "
                                                            "was sent is not in the trace, or the usage is not this "
                                                            "request's" if gross else
                                                            ": tool schemas or template framing counted differently"),
                           Evidence(fields=fields))
    else:
        gross = bd.total > GROSS * reported + tol
        yield rule_finding("accounting.reported_gap", Severity.WARNING if gross else Severity.INFO,
                           f"the provider reported {bd.reported:,} input tokens, {counted}: {-r:,} tokens below the "
                           f"count (tolerance {tol:,})" + (": the trace and the usage disagree by more than 3x -- the trace "
                                                           "holds text that was not sent, or the usage is not this "
                                                           "request's" if gross else
                                                           ": tool schemas or template framing counted differently"),
                           Evidence(fields=fields))


CHECK = AccountingCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""


def _parts(bd: Breakdown) -> str:
    """``"; 35 in the items + 36 of message framing and tool-definition overhead"`` when the count
    holds more than the items (the header's eq. 3.1 line sums the items alone: a reader must be
    able to add the two up); ``""`` when it is the items alone."""
    content = sum(bd.content.values())
    extra = bd.framing + bd.tool_overhead
    if not extra:
        return ""
    what = ("message framing and tool-definition overhead" if bd.framing and bd.tool_overhead
            else "message framing" if bd.framing else "tool-definition overhead")
    return f"; {content:,} in the items + {extra:,} of {what}"
