"""Table 3.1 row 1, "correct policy omitted": the policy is missing, unavailable, its version is
not pinned, or it is not the version expected for the application.

Rule ids (first evidence "Policy loader and version pin"):

* ``policy.unavailable`` (failure) -- ``policy.available`` is False: the required version could not
  be loaded; the request should be rejected whatever its token count (chapter 3.3: "if the
  required policy version is unavailable, reject the request").
* ``policy.missing`` -- no policy item was sent. ``failure`` when a policy was required: the trace
  names a policy id, or ``ctxviewer.toml`` expects a policy for the application. Otherwise an
  application that sends no system instructions is told so as ``info`` (there is no "correct
  policy" to omit, so the row's repair -- reject when the required version is unavailable -- is
  not attached), and a trace whose content was not captured (``ctxviewer.content`` ``"not
  captured"``: OpenTelemetry content capture is opt-in) gives no finding: what was sent is not
  recorded, which the header says as "content not captured". A request that continues a
  conversation the provider holds (:func:`~ctxviewer.assess.checks.server_state.server_held_state`:
  ``previous_response_id``, a provider conversation id) is a ``warning`` when a policy is required
  and ``info`` otherwise: a system message in its earlier turns would count, but an earlier
  request's ``instructions`` are not carried over (OpenAI Responses), and the trace does not say
  which was used. A standalone tool span
  (:func:`~ctxviewer.assess.checks.server_state.is_tool_span`) is no model request: no finding.
* ``policy.version_not_pinned`` (warning) -- the recorded version is a floating one (``latest``,
  ``current``, ``default``, ``*``, ``head``, ``main``): the policy can change under the same name.
  A version that was not recorded (``None``) is unknown, not unpinned, and gives no finding.
* ``policy.unexpected_version`` (failure) -- the version differs from the one configured for the
  application (:class:`~ctxviewer.assess.config.CheckConfig`, ``ctxviewer.toml`` or
  ``--expected-policy``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from ctxviewer.assess.checks._common import table_finding
from ctxviewer.assess.checks.server_state import is_tool_span, server_held_state
from ctxviewer.assess.config import active
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import Kind, RequestTrace, Status

FLOATING_VERSIONS = frozenset({"latest", "current", "default", "*", "head", "main", "newest", "stable"})
"""Version strings that name no fixed version (the policy can change under the same name)."""


def captured_messages(trace: RequestTrace) -> bool:
    """Whether the trace holds its input messages: neither "content not captured" (OpenTelemetry
    content capture is opt-in) nor the input messages cut by the exporter (``ctxviewer.truncated``)."""
    return (trace.attributes.get("ctxviewer.content") != "not captured"
            and "gen_ai.input.messages" not in (trace.attributes.get("ctxviewer.truncated") or ()))


class PolicyCheck:
    """Table 3.1 row 1 (see the module docstring)."""

    id = "policy"
    title = "correct policy omitted (Table 3.1 row 1)"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The ``policy.*`` findings for ``trace``."""
        pol = trace.policy
        policy_items = [i for i in trace.items if i.kind is Kind.POLICY]
        sent = [i for i in policy_items if i.status is Status.RETAINED]
        if pol.available is False:
            version = pol.version or "not recorded"
            yield table_finding(
                "policy.unavailable", Severity.FAILURE,
                f"required policy version {version} unavailable: the request should be rejected",
                Evidence(item_ids=tuple(i.id for i in policy_items), fields=("policy.available", "policy.version")),
                1,
            )
            return
        if not sent and is_tool_span(trace):  # a tool's execution, not a model request: nothing to send
            pass
        elif not sent and captured_messages(trace) and (state := server_held_state(trace)) is not None:
            # the earlier turns the provider holds may carry a system message; an earlier request's
            # ``instructions`` are not carried over (OpenAI Responses): not known either way
            wanted = active().expected_policies(trace.service)
            name = pol.id or ", ".join(sorted(wanted))
            words = (f"no policy (system instructions) in this request, which continues a conversation the provider "
                     f"holds ({state}): a system message in its earlier turns would count, but an earlier request's "
                     "instructions are not carried over; which was used is not recorded")
            f = table_finding(
                "policy.missing", Severity.WARNING if name else Severity.INFO,
                f"policy {name} is required; {words}" if name else words,
                Evidence(item_ids=tuple(i.id for i in policy_items), fields=("policy.id",) if name else ()), 1,
            )
            yield f if name else replace(f, repair=None)  # none required: the row's repair has no object
        elif not sent:
            wanted = active().expected_policies(trace.service)
            required = pol.id is not None or bool(wanted)
            captured = captured_messages(trace)
            if required and not captured:  # whether it was sent is not known: said as such, not as a failure
                name = pol.id or ", ".join(sorted(wanted))
                yield table_finding(
                    "policy.missing", Severity.INFO,
                    f"policy {name} is required; whether it was sent is not known (the span's input messages were "
                    "not captured or could not be read)", Evidence(fields=("policy.id",)), 1,
                )
            elif required:
                name = pol.id or ", ".join(sorted(wanted))
                yield table_finding(
                    "policy.missing", Severity.FAILURE, f"policy {name} was required but no policy item was sent",
                    Evidence(item_ids=tuple(i.id for i in policy_items), fields=("policy.id",)), 1,
                )
            elif captured:  # none required: the row's repair (reject when the required version is missing) has no object
                yield replace(table_finding(
                    "policy.missing", Severity.INFO, "no policy (system instructions) was sent with this request",
                    Evidence(item_ids=tuple(i.id for i in policy_items)), 1,
                ), repair=None)
        if pol.version is not None and pol.version.strip().lower() in FLOATING_VERSIONS:
            yield table_finding(
                "policy.version_not_pinned", Severity.WARNING,
                f"policy {pol.id or '(id not recorded)'} is not pinned to a version ({pol.version!r} can change)",
                Evidence(fields=("policy.id", "policy.version")),
                1,
            )
            return
        expected = active().expected_version(trace.service, pol.id)
        if expected is not None and pol.version != expected:
            yield table_finding(
                "policy.unexpected_version", Severity.FAILURE,
                f"policy {pol.id} version {pol.version} was sent; {trace.service or 'this application'} "
                f"expects {expected}",
                Evidence(item_ids=tuple(i.id for i in sent), positions=tuple(i.position for i in sent if i.position),
                         fields=("policy.version",)),
                1,
            )


CHECK = PolicyCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
