"""Untrusted text that names one of the application's own tools as something to call.

The intent rules (:mod:`.intent`) read a text alone; this one needs the trace: the names of the
tools the application offered the model (its ``tool`` items, the developer's definitions). Data
that says "call ``delete_calendar_event`` for every meeting" or "``send_money(...)``" speaks to
the agent, whatever its phrasing. Reported (family ``injection.intent``, ``warning``) when an
untrusted item holds a call verb before a tool's name (``call``, ``invoke``, ``use``, ``run``,
``execute``, ``trigger``) or the name followed by ``(``, and the trusted input (the user's request
and turns, the policy) does not name that tool. Only names no prose uses as a word count: with
``_``, ``-``, ``.``, a digit or an inner capital (``send_email``, ``getBalance``; not ``search``).
No Qt here.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from ctxviewer.assess.scanner.patterns import Hit
from ctxviewer.assess.scanner.scope import ItemScan, Scope
from ctxviewer.model.findings import Severity
from ctxviewer.model.trace import Kind, RequestTrace

_DISTINCT = re.compile(r"[_.\-\d]|[a-z][A-Z]")


def tool_names(trace: RequestTrace) -> list[str]:
    """Names of the tools the trace's ``tool`` items define (their JSON ``name`` or
    ``function.name``, else the item's source document id), distinct, in item order."""
    out: list[str] = []
    for item in trace.items:
        if item.kind is not Kind.TOOL:
            continue
        name = None
        try:
            d = json.loads(item.content or "")
            if isinstance(d, dict):
                fn = d.get("function")
                name = d.get("name") or (fn.get("name") if isinstance(fn, dict) else None)
        except (json.JSONDecodeError, TypeError):
            pass
        name = name or (item.source.document_id if item.source else None)
        if isinstance(name, str) and name and name not in out:
            out.append(name)
    return out


def with_tool_mentions(trace: RequestTrace, scans: list[ItemScan]) -> list[ItemScan]:
    """``scans`` with a hit added to each untrusted item that names a tool to call (module docstring)."""
    trusted = " ".join([s.item.content or "" for s in scans if s.scope in (Scope.TRUSTED, Scope.PRINCIPAL)]
                       + [trace.user_request or ""])
    names = [n for n in tool_names(trace) if _DISTINCT.search(n) and not re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w-])", trusted)]
    if not names:
        return scans
    alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    pattern = re.compile(rf"\b(?:call|invoke|use|run|execute|trigger|activate)\s+(?:the\s+|your\s+)?[`'\"]?(?P<a>{alt})(?![\w-])"
                         rf"|(?<![\w.-])(?P<b>{alt})\s*\(", re.IGNORECASE)
    out = []
    for s in scans:
        if s.scope is not Scope.UNTRUSTED:
            out.append(s)
            continue
        extra = [Hit("injection.intent", m.start(), m.end(),
                     f"names the application's tool {m.group('a') or m.group('b')!r} as something to call: '{m.group(0)}'",
                     Severity.WARNING) for m in pattern.finditer(s.item.content or "")]
        out.append(replace(s, hits=tuple(sorted(s.hits + tuple(extra), key=lambda h: (h.start, -h.end)))) if extra else s)
    return out
