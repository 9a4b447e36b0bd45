"""The sessions view in words: one line per session (its calls, first and last send time, states,
tokens, cost) and one per call of a session in send order (time, trace id, model, state, tokens,
cost, duration, worst finding) -- what ``ctxviewer sessions`` / ``ctxviewer session`` print and the
window's Sessions dialog shows. Rows are :class:`ctxviewer.store.sessions.SessionSummary` and
:class:`ctxviewer.store.TraceRow` (read by attribute: this layer never imports the store).
Unrecorded values read "not recorded", a cost the price library does not know "not known" (a sum
over calls some of whose price is not known reads ``≥``); trace text is shown on one line with its
invisible characters as markers. No Qt here.
"""

from __future__ import annotations

from typing import Any

from ctxviewer.model.trace import NOT_RECORDED
from ctxviewer.model.words import fmt_int, fmt_time
from ctxviewer.tokens.cost import NOT_KNOWN, fmt_cost
from ctxviewer.util.visible import one_line

SESSION_HEADERS = ("session", "calls", "first call", "last call", "ok/warn/fail", "counted input", "output", "cost", "models")
"""Columns of a session row (``input``: counted input tokens, ``output``: reported output tokens,
``cost``: US dollars)."""
CALL_HEADERS = ("#", "sent", "trace", "model", "state", "counted input", "output", "cost", "ms", "worst finding")
"""Columns of a call row (``#``: the call's place in the session, 1 first; ``ms``: its span's duration)."""


def session_cost(s: Any) -> str:
    """The session's cost: ``"$0.001772"``; ``"≥ $0.0012 (2 not known)"`` when some calls' price
    is not known; ``"not known"`` when none is."""
    if not s.cost_known or s.cost is None:
        return NOT_KNOWN
    text = fmt_cost(s.cost)
    return text if s.cost_known == s.calls else f"≥ {text} ({s.calls - s.cost_known:,} {NOT_KNOWN})"


def session_cells(s: Any) -> list[str]:
    """The :data:`SESSION_HEADERS` cells of session ``s``."""
    return [one_line(s.session_id), f"{s.calls:,}", fmt_time(s.first), fmt_time(s.last),
            f"{s.ok:,}/{s.warning:,}/{s.failure:,}", fmt_int(s.input_tokens), fmt_int(s.output_tokens),
            session_cost(s), f"{s.models:,}"]


def call_cells(n: int, row: Any) -> list[str]:
    """The :data:`CALL_HEADERS` cells of a session's call ``row``, ``n`` its place (1 first)."""
    ms = NOT_RECORDED if row.duration_ms is None else f"{row.duration_ms:,.0f}"
    return [str(n), fmt_time(row.created), one_line(row.trace_id), one_line(row.model) if row.model else NOT_RECORDED,
            row.state or NOT_RECORDED, fmt_int(row.input_tokens), fmt_int(row.output_tokens), fmt_cost(row.cost), ms,
            one_line(row.worst_rule) if row.worst_rule else ""]


def diff_hint(db: str, session_id: str, n: int) -> str:
    """The command that prints call ``n``'s diff against the call before it (the sessions view's
    per-call diff)."""
    from shlex import quote

    return f"ctxviewer session {quote(db)} {quote(session_id)} --diff {n}"
