"""The ``list --json`` object of one trace-list row, from the facts stored on the row: no
assessment, no codec (``ctxviewer list`` imports only this; :mod:`ctxviewer.report.trace_report`
re-exports it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ctxviewer.model.times import format_created

if TYPE_CHECKING:
    from ctxviewer.store.query import TraceRow


def trace_row_to_dict(r: TraceRow, current: str | None = None) -> dict[str, Any]:
    """JSON form of one trace-list row (the ``list --json`` object), read from the facts stored
    on the row at import (:mod:`ctxviewer.store.facts`), never re-derived: ``trace_id``,
    ``created`` (ISO 8601 UTC, as in ``show --json``), ``service``, ``provider``, ``model``,
    ``capacity`` (the C the trace recorded), ``capacity_source`` (``recorded``, or ``not recorded``
    -- then saying whether ``margin`` was computed with an assumed C, as the verdict's "(capacity
    assumed)" says), ``input_tokens``, ``reserved_output_tokens``, ``retained``, ``omitted`` (null when
    the format cannot record omissions), ``omissions_recorded``, ``margin``, ``fits``, ``state``,
    ``verdict``, ``worst_finding`` (``{rule, severity}`` or null), ``replay_of``, ``session_id``,
    ``span_status`` (``ok`` / ``error`` / ``unset`` / ``unfinished``, :mod:`ctxviewer.model.span_facts`),
    ``status_message``, ``agent`` and ``operation`` (null when not recorded), ``cost_usd`` (US dollars
    from the recorded usage, genai-prices; null = not known), ``output_tokens``, ``duration_ms``, ``facts_context`` (the
    fingerprint of the context the facts were computed in) and ``facts_current`` (whether that is
    ``current``, the database's context now; null when ``current`` is not given)."""
    rule = r.worst_rule
    return {
        "trace_id": r.trace_id,
        "created": format_created(r.created),
        "service": r.service,
        "provider": r.provider,
        "model": r.model,
        "capacity": r.capacity,
        "capacity_source": ("recorded" if r.capacity is not None
                            else "not recorded; the margin uses an assumed C (show gives it and its source)"
                            if r.margin is not None else "not recorded"),
        "input_tokens": r.input_tokens,
        "reserved_output_tokens": r.reserved_output_tokens,
        "retained": r.retained_count,
        "omitted": None if r.omissions_recorded is False else r.omitted_count,
        "omissions_recorded": r.omissions_recorded,
        "margin": r.margin,
        "fits": r.fits,
        "state": r.state,
        "verdict": r.verdict,
        "worst_finding": None if rule is None else {"rule": rule, "severity": r.worst_severity},
        "replay_of": r.replay_of,
        "session_id": r.session_id,
        "span_status": r.span_status,
        "status_message": r.status_message,
        "facts_context": r.facts_context,
        "facts_current": None if current is None else r.facts_context == current,
        "agent": r.agent,
        "operation": r.operation,
        "cost_usd": r.cost,
        "output_tokens": r.output_tokens,
        "duration_ms": r.duration_ms,
    }
