"""Scanning a whole request trace: item hits plus action linkage, as findings.

:func:`scan_trace` is what the ``injection`` check runs (:mod:`ctxviewer.assess.checks.injection`) and
what ``ctxviewer scan`` and the review queue read. Text findings of an item whose content also
supplied a tool call's arguments carry that call in ``evidence.tool_call_ids``, so the injection
in a ticket is linked to the refund it asked for. The response and the tool-call arguments are
read as sinks (:mod:`.sinks`); untrusted text naming one of the application's tools as something
to call is a hit too (:mod:`.tool_names`).
"""

from __future__ import annotations

from ctxviewer.assess.scanner.linkage import link_calls, linked_calls
from ctxviewer.assess.scanner.scope import hit_finding, scan_items
from ctxviewer.assess.scanner.sinks import sink_findings
from ctxviewer.assess.scanner.tool_names import with_tool_mentions
from ctxviewer.model.findings import Finding
from ctxviewer.model.trace import RequestTrace


def scan_trace(trace: RequestTrace) -> list[Finding]:
    """Findings for ``trace``: one per hit in an untrusted item (in item order, then by span),
    then the linkage findings, then the sink findings (:mod:`.sinks`: the response and tool-call
    arguments carrying data). Empty when no instruction-like text was found."""
    scans = with_tool_mentions(trace, scan_items(trace))
    linkage = link_calls(trace, scans)
    calls = linked_calls(linkage)
    out = [hit_finding(s.item, h, calls.get(s.item.id, ())) for s in scans for h in s.hits]
    return out + linkage + sink_findings(trace, scans)
