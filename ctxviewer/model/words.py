"""How a recorded value reads on every surface: ``8,000`` tokens, a UTC time, a priority, and
``"not recorded"`` for what the trace did not record (never ``0`` or an empty cell).

No Qt here; used by :mod:`ctxviewer.present.columns`, :mod:`ctxviewer.assess.trace_header` and the
diff's cells.
"""

from __future__ import annotations

from datetime import datetime, timezone

__all__ = ["NOT_RECORDED", "fmt_int", "fmt_omitted", "fmt_priority", "fmt_text", "fmt_time", "omitted_phrase"]

NOT_RECORDED = "not recorded"
"""What the viewer shows for a field the source did not record (``None``); also
:data:`ctxviewer.model.trace.NOT_RECORDED` (defined here so the words need no trace model)."""


def fmt_int(value: int | None) -> str:
    """``8000`` -> ``"8,000"``; ``None`` -> ``"not recorded"`` (never ``"0"``)."""
    return NOT_RECORDED if value is None else f"{value:,}"


def fmt_time(value: datetime | None) -> str:
    """A timestamp as UTC ``"2025-03-04 09:15:02"``; naive datetimes are taken as UTC;
    ``None`` -> ``"not recorded"``."""
    if value is None:
        return NOT_RECORDED
    if value.tzinfo is not None:
        value = value.astimezone(timezone.utc)
    # not strftime: it imports ``time`` on each call, which through PySide's import hook costs
    # about 0.1 ms a cell -- a tenth of a trace-list page's formatting
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d} {value.hour:02d}:{value.minute:02d}:{value.second:02d}"


def fmt_priority(value: float | None) -> str:
    """A trimming priority: integers without a decimal point (``3``), others with up to 3
    significant decimals (``0.85``); ``None`` -> ``"not recorded"``."""
    if value is None:
        return NOT_RECORDED
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.3g}"


def fmt_text(value: str | None) -> str:
    """A string, or ``"not recorded"`` for ``None`` / empty."""
    return value if value else NOT_RECORDED


def fmt_omitted(count: int | None, recorded: bool | None) -> str:
    """An omitted-item count: ``"3"``; ``None`` -> ``"not recorded"``. When the trace's format
    cannot record omissions (``recorded`` is False: ``RequestTrace.omissions_recorded``, OTel,
    Langfuse) a count of 0 is ``"not recorded"`` and a count the trace does record (a reranker's
    drops) a lower bound, ``"≥3"``: never an invented ``"0"``. The trace list's Retained / omitted
    cell and the item table's counter both say this."""
    if count is None or (recorded is False and not count):
        return NOT_RECORDED
    return f"≥{count:,}" if recorded is False else f"{count:,}"


def omitted_phrase(count: int | None, recorded: bool | None) -> str:
    """:func:`fmt_omitted` as a phrase for a counter: ``"3 omitted"``, ``"≥3 omitted"``, or
    ``"omitted not recorded"``."""
    words = fmt_omitted(count, recorded)
    return f"omitted {words}" if words == NOT_RECORDED else f"{words} omitted"
