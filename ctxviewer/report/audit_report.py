"""The audit report: one self-contained HTML file for a ticket or an audit record.

For each trace: its state, the eq. 3.1 verdict and numbers, the budget chart as an embedded SVG
image (a ``data:`` URI, :func:`ctxviewer.report.budget_svg.budget_svg`), and its findings (all checks)
with severity, rule, Table 3.1 row, message, the reviewer's verdict, name, time (UTC) and note, and the flagged
span shown literally: escaped, invisible characters made visible
(:func:`ctxviewer.util.visible.reveal`), with up to 80 characters of context either side.

Self-contained by construction: no script at all, no external style, font or image; a
Content-Security-Policy ``default-src 'none'`` forbids the browser to fetch anything. All text
from traces is revealed (:mod:`ctxviewer.util.visible`: control and invisible characters as markers,
one-line fields such as the trace id with line breaks as markers too) and then goes through
:func:`html.escape`.
"""

from __future__ import annotations

import base64
from datetime import datetime, timezone
from html import escape
from typing import Iterable, Mapping

from ctxviewer import __version__
from ctxviewer.assess.assessment import Assessment, assess
from ctxviewer.assess.context import AssessContext
from ctxviewer.model.findings import Finding
from ctxviewer.model.trace import RequestTrace
from ctxviewer.report.budget_svg import budget_svg
from ctxviewer.review.keys import FindingKey, Review, key_of
from ctxviewer.util.visible import one_line, reveal

CONTEXT = 80
"""Characters of context shown either side of a flagged span."""

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;color:#111827;margin:24px;max-width:1100px}
h1{font-size:20px}h2{font-size:17px;margin-top:32px;border-top:1px solid #e5e7eb;padding-top:12px}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #e5e7eb;padding:4px 6px;vertical-align:top;text-align:left}
th{background:#f9fafb}.sev-critical,.sev-failure{color:#b91c1c;font-weight:600}.sev-warning{color:#92400e}
.span{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:12px;background:#f9fafb;margin:4px 0;padding:4px}
mark{background:#fde68a}.muted{color:#6b7280}
"""


def _line(text: str) -> str:
    """One line of trace text for HTML: line breaks and invisible/control characters shown as
    markers (:func:`ctxviewer.util.visible.one_line`), then HTML-escaped."""
    return escape(one_line(text))


def _text(text: str) -> str:
    """Trace text for HTML that may span lines: invisible/control characters shown as markers
    (:func:`ctxviewer.util.visible.reveal`, line feeds kept), then HTML-escaped."""
    return escape(reveal(text).text)


def _span_html(trace: RequestTrace, f: Finding) -> str:
    parts = []
    for s in f.evidence.spans:
        try:
            content = trace.item(s.item_id).content
        except KeyError:
            content = None
        if content is None:
            continue
        a, b = max(0, s.start - CONTEXT), min(len(content), s.end + CONTEXT)
        before, hit, after = (reveal(t, keep_newlines=True).text for t in
                              (content[a:s.start], content[s.start:s.end], content[s.end:b]))
        parts.append(f'<div class="span"><span class="muted">{_line(s.item_id)} [{s.start}:{s.end}]</span>\n'
                     f'{"…" if a else ""}{escape(before)}<mark>{escape(hit)}</mark>{escape(after)}{"…" if b < len(content) else ""}</div>')
    return "".join(parts)


def _review_html(review: Review | None) -> str:
    if review is None or (review.verdict is None and not review.note):
        return '<span class="muted">unreviewed</span>'
    verdict = review.verdict.label if review.verdict else "no verdict"
    return (escape(verdict) + f'<br><span class="muted">{_line(review.by)}</span>'
            + (f"<br>{_text(review.note)}" if review.note else ""))


def _trace_html(trace: RequestTrace, a: Assessment, reviews: Mapping[FindingKey, Review]) -> str:
    svg = base64.b64encode(budget_svg(a.figure).encode("utf-8")).decode("ascii")
    rows = []
    for f in a.findings:
        row = f"Table 3.1 row {f.table_row}" if f.table_row else ""
        calls = ", ".join(f.evidence.tool_call_ids)
        rows.append(
            f'<tr><td class="sev-{f.severity.value}">{f.severity.value}</td><td>{_line(f.rule)}<br>'
            f'<span class="muted">{escape(row)}</span></td><td>{_text(f.message)}'
            f'{"<br><span class=muted>tool call " + _line(calls) + "</span>" if calls else ""}{_span_html(trace, f)}</td>'
            f"<td>{_review_html(reviews.get(key_of(trace.trace_id, f)))}</td></tr>")
    table = ("<table><tr><th>severity</th><th>rule</th><th>finding and flagged text</th><th>reviewer</th></tr>"
             + "".join(rows) + "</table>") if rows else '<p class="muted">no findings</p>'
    return (f'<section><h2>{_line(trace.trace_id)} — {a.state.value}</h2>'
            f"<p>{_text(a.verdict)}<br><span class=muted>{_text(a.numbers)}</span></p>"
            f'<img alt="budget chart of {_line(trace.trace_id)}" src="data:image/svg+xml;base64,{svg}">'
            f"{table}</section>")


def render_report(traces: Iterable[RequestTrace], reviews: Mapping[FindingKey, Review] | None = None,
                  title: str = "ctxviewer audit report", generated: datetime | None = None,
                  context: AssessContext | None = None) -> str:
    """The HTML document (a ``str``) for ``traces`` (read as every surface reads them: dropped
    messages derived) with the reviewer's ``reviews``, each assessed in ``context`` (the
    database's, :func:`ctxviewer.assess.context.context_for_db`)."""
    reviews = reviews or {}
    generated = generated or datetime.now(timezone.utc).replace(microsecond=0)
    sections, total, reviewed = [], 0, 0
    for trace in traces:
        a = assess(trace, context)
        total += len(a.findings)
        reviewed += sum(1 for f in a.findings if (r := reviews.get(key_of(trace.trace_id, f))) and r.verdict)
        sections.append(_trace_html(trace, a, reviews))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
            f"<title>{_line(title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{_line(title)}</h1><p class=muted>{len(sections)} trace(s), {total} finding(s), "
            f"{reviewed} of {total} reviewed · generated {generated.isoformat()} by ctxviewer {__version__}. "
            "A trace without injection findings means no instruction-like text was found, not that it is safe.</p>"
            + "".join(sections) + "</body></html>\n")
