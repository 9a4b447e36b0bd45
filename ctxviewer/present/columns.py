"""Columns of the trace list and the item table: what each cell says (Anki's browser-table idea).

The core decides the words in every cell; the Qt models (``ctxviewer.gui``) only serve them, and
the CLI can print the same strings. A :class:`Column` has a stable ``key``, a header ``title``, a
``format`` function from one row to a ``str``, and -- for the trace list -- the store's sort key
(a member of ``ctxviewer.store.SORTABLE``), so sorting runs as SQL, never in Python.

Invariants:

* ``format`` never raises for a well-typed row and never returns ``"0"`` for a value the source
  did not record: ``None`` is :data:`ctxviewer.model.trace.NOT_RECORDED`, or :data:`DASH` where the
  header makes the meaning obvious (an omitted item has no position).
* Numbers are grouped with thousands separators (``"8,000"``), token counts are in tokens.
* Every cell and tooltip shows invisible and control characters of trace text (bidi controls,
  zero-width and tag characters, NUL, ESC) as visible markers (:func:`ctxviewer.util.visible.one_line`),
  without changing the stored text: a right-to-left override never reorders a row.

No Qt here: this module is part of the core.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Generic, Protocol, Sequence, TypeVar

from ctxviewer.model.findings import Severity
from ctxviewer.model.span_facts import ERROR, NEVER_ENDED, UNFINISHED
from ctxviewer.model.vocabulary import Status, TokenSource
from ctxviewer.model.words import NOT_RECORDED, fmt_int, fmt_omitted, fmt_priority, fmt_text, fmt_time
from ctxviewer.present.call_cells import cost_cell, cost_tooltip
from ctxviewer.present.finding_view import SEVERITY_SYMBOL
from ctxviewer.util.visible import needs_reveal, one_line, reveal, visible_id

if TYPE_CHECKING:  # annotations only: the trace list (``ctxviewer list``) needs no trace model
    from ctxviewer.model.trace import ContextItem

DASH = "\u2014"
"""Shown where a value does not apply and the header makes that obvious (an omitted item's position)."""

R = TypeVar("R")


@dataclass(frozen=True)
class Column(Generic[R]):
    """One table column: header, cell text, and how the store sorts it."""

    key: str
    """Stable identifier, e.g. ``"trace_id"``; used in settings and tests."""
    title: str
    """Header text."""
    format: Callable[[R], str]
    """Cell text for one row. Never raises for a well-typed row."""
    sort_key: str | None = None
    """The store's sort key (``TraceQuery.sort``), or ``None`` when the column is not sortable."""
    numeric: bool = False
    """Right-align the cell (numbers)."""
    width_chars: int = 12
    """A comfortable width in average characters, so the view can size columns before data arrives."""
    tooltip: Callable[[R], str | None] | None = None
    """Optional longer text for the cell's tooltip."""
    hidden_by_default: bool = False
    """Hidden until the user shows it (header context menu): the trace list is about a third of a
    1280 px window, and the selected trace's header says these values anyway."""
    sort_value: Callable[[R], Any] | None = None
    """Item table: the value a click on the header sorts by (numbers for numeric columns, unknown
    values last); ``None`` sorts by the cell text."""

    def __post_init__(self) -> None:
        # Trace text is untrusted: every cell and tooltip of every table (GUI and CLI) shows
        # invisible and control characters as visible markers (ctxviewer.util.visible), here, once.
        object.__setattr__(self, "format", _revealed(self.format))
        if self.tooltip is not None:
            object.__setattr__(self, "tooltip", _revealed_tooltip(self.tooltip))


def _revealed(fn: Callable[[R], str]) -> Callable[[R], str]:
    if getattr(fn, "revealed", False):
        return fn

    def cell(row: R) -> str:
        text = fn(row)
        return one_line(text) if needs_reveal(text) or "\n" in text or "\t" in text else text

    cell.revealed = True  # type: ignore[attr-defined]
    return cell


def _revealed_tooltip(fn: Callable[[R], str | None]) -> Callable[[R], str | None]:
    if getattr(fn, "revealed", False):
        return fn

    def tip(row: R) -> str | None:
        text = fn(row)
        return reveal(text).text if text and needs_reveal(text) else text

    tip.revealed = True  # type: ignore[attr-defined]
    return tip


# --------------------------------------------------------------------------- trace list


class TraceRowLike(Protocol):
    """The fields of ``ctxviewer.store.TraceRow`` the trace list shows (a narrow row, no payloads)."""

    trace_id: str
    created: datetime | None
    model: str | None
    capacity: int | None
    input_tokens: int | None
    retained_count: int | None
    omitted_count: int | None
    omissions_recorded: bool | None
    state: str | None
    verdict: str | None
    session_id: str | None
    span_status: str | None
    status_message: str | None
    agent: str | None
    operation: str | None


def input_over_capacity(row: TraceRowLike) -> str:
    """``"6,000 / 8,000"`` (input tokens / context capacity C, tokens). An unrecorded side reads
    ``"not recorded"``; both unrecorded give a single ``"not recorded"``."""
    if row.input_tokens is None and row.capacity is None:
        return NOT_RECORDED
    return f"{fmt_int(row.input_tokens)} / {fmt_int(row.capacity)}"


def retained_omitted(row: TraceRowLike) -> str:
    """``"5 / 1"``: retained / omitted item counts; an unknown count reads ``"not recorded"``, as
    does the omitted count of a format that cannot record omissions (``"3 / not recorded"`` for OTel;
    read from the row's stored ``omissions_recorded`` fact), or ``"2 / ≥3"`` when the trace records some."""
    if row.retained_count is None and row.omitted_count is None:
        return NOT_RECORDED
    return f"{fmt_int(row.retained_count)} / {fmt_omitted(row.omitted_count, row.omissions_recorded)}"


def trace_state(row: TraceRowLike) -> str:
    """The stored state word (``ok``, ``warning``, ``failure``) or ``"not recorded"``."""
    return fmt_text(row.state)


STALE_MARK = "*"
"""Appended to the State cell of a row whose facts were computed in another context (an edited
``ctxviewer.toml``, new marks, an older ctxviewer): :func:`is_stale`."""


def is_stale(row: Any, current: str | None) -> bool:
    """Whether ``row``'s stored facts were computed in a context other than ``current`` (the
    database's :attr:`~ctxviewer.assess.context.AssessContext.fingerprint`; ``None``: not known,
    nothing is stale). A row that recorded no context (written before schema 7) is stale, and so is a
    row of a source that keeps no facts, not yet read (``retained_count`` ``None``: a ClickHouse
    spans table's row, :mod:`ctxviewer.pipeline.clickhouse`)."""
    if current is None:
        return False
    if getattr(row, "retained_count", 0) is None:
        return True
    return getattr(row, "state", None) is not None and getattr(row, "facts_context", None) != current


def row_texts(row: Any, current: str | None = None, columns: Sequence[Column[Any]] | None = None) -> tuple[str, ...]:
    """Every :data:`TRACE_COLUMNS` cell of ``row`` (or only those of ``columns``, in their order)
    in words (a broken value as ""), the State cell marked :data:`STALE_MARK` when the row is
    stale in the context ``current`` (:func:`is_stale`): the trace list of the window and of
    ``ctxviewer list`` alike."""
    stale = is_stale(row, current)
    texts = []
    for col in TRACE_COLUMNS if columns is None else columns:
        try:
            text = col.format(row)
        except Exception:  # a broken value shows empty; a list never raises
            text = ""
        texts.append(text + STALE_MARK if stale and col.key == "state" else text)
    return tuple(texts)


def worst_severity(row: Any) -> str:
    """The severity of the trace's worst finding, symbol and word, from the stored facts (the trace list's worst-severity column): ``"\u203c critical"``, ``"\u2716 failure"``,
    ``"\u26a0 warning"``, ``"\u2139 info"``; :data:`DASH` when the trace has no finding;
    ``"not recorded"`` when its facts were never computed (``state`` is NULL). Unlike the state,
    it tells a critical finding (a call permitted although a check failed) from a failure."""
    severity = getattr(row, "worst_severity", None)
    if not severity:
        return DASH if getattr(row, "state", None) else NOT_RECORDED
    try:
        return f"{SEVERITY_SYMBOL[Severity(severity)]} {severity}"
    except ValueError:  # a word this version does not know: shown as stored
        return str(severity)


def _worst_tooltip(row: Any) -> str | None:
    rule = getattr(row, "worst_rule", None)
    if rule:
        return f"worst finding: {rule} ({getattr(row, 'worst_severity', None) or NOT_RECORDED})"
    return "no finding" if getattr(row, "state", None) else None


def _state_tooltip(row: Any) -> str | None:
    verdict = getattr(row, "verdict", None)
    rule = getattr(row, "worst_rule", None)
    return "\n".join(p for p in (verdict, f"worst finding: {rule}" if rule else None) if p) or None


def _trace_tooltip(row: Any) -> str | None:
    parts = [f"trace {row.trace_id}"]
    provider = getattr(row, "provider", None)
    service = getattr(row, "service", None)
    replay_of = getattr(row, "replay_of", None)
    if provider:
        parts.append(f"provider {provider}")
    if service:
        parts.append(f"service {service}")
    if replay_of:
        parts.append(f"replay of {replay_of}")
    return "\n".join(parts)


def call_part(row: TraceRowLike) -> str:
    """Which call of its trace a row is: the span id of an OTel-style id ``"<trace id>:<span id>"``
    (``"39d6e9b3ddec9996"``), so the chat spans of one OTel trace are told apart; :data:`DASH` for
    an id without a span part."""
    head, sep, span = row.trace_id.rpartition(":")
    return span if sep and head and span else DASH


def span_status_cell(row: TraceRowLike) -> str:
    """The call's span status (:mod:`ctxviewer.model.span_facts`): ``"error"``, ``"never ended"``
    (stored and filtered as ``unfinished``), ``"ok"``, ``"unset"``, or ``"not recorded"``."""
    status = getattr(row, "span_status", None)
    if not status:
        return NOT_RECORDED
    return NEVER_ENDED if status == UNFINISHED else str(status)


def _span_status_tooltip(row: Any) -> str | None:
    status = getattr(row, "span_status", None)
    message = getattr(row, "status_message", None)
    if status == ERROR:
        return f"span ended in error: {message}" if message else "span ended in error (no message recorded)"
    if status == UNFINISHED:
        return ("span never ended: a start time and no end time (still running when exported, "
                "or the process stopped); filter: status == unfinished")
    if status:
        return f"span status {status}" + (f": {message}" if message else "")
    return "no span status recorded (native traces record none)"


def agent_operation(row: TraceRowLike) -> str:
    """Who made the call and what kind of call it was: ``"planner · chat"`` (agent name,
    ``gen_ai.agent.name``, and operation, ``gen_ai.operation.name``), either alone when only one is
    recorded, ``"not recorded"`` when neither is."""
    parts = [p for p in (getattr(row, "agent", None), getattr(row, "operation", None)) if p]
    return " · ".join(parts) if parts else NOT_RECORDED


def _agent_tooltip(row: Any) -> str | None:
    agent, operation = getattr(row, "agent", None), getattr(row, "operation", None)
    if not agent and not operation:
        return None
    return f"agent: {agent or NOT_RECORDED}\noperation: {operation or NOT_RECORDED}"


def _full_text(row: Any, attr: str) -> str | None:
    value = getattr(row, attr, None)
    return str(value) if value else None


TRACE_COLUMNS: tuple[Column[Any], ...] = (
    Column("created", "Time (UTC)", lambda r: fmt_time(r.created), "created", width_chars=19),
    Column("trace_id", "Trace id", lambda r: visible_id(r.trace_id), "trace_id", width_chars=22, tooltip=_trace_tooltip),
    Column("model", "Model", lambda r: fmt_text(r.model), "model", width_chars=8,
           tooltip=lambda r: _full_text(r, "model")),
    Column("input_capacity", "Input / capacity", input_over_capacity, "input_tokens", numeric=True,
           width_chars=14, hidden_by_default=True),
    Column("retained_omitted", "Retained / omitted", retained_omitted, "retained_count", numeric=True,
           width_chars=7),
    Column("state", "State", trace_state, "state", width_chars=7, tooltip=_state_tooltip),
    Column("worst", "Worst", worst_severity, None, width_chars=9, tooltip=_worst_tooltip, hidden_by_default=True),
    Column("call", "Call (span)", call_part, None, width_chars=16, tooltip=lambda r: r.trace_id,
           hidden_by_default=True),
    Column("conversation", "Conversation", lambda r: fmt_text(r.session_id), None, width_chars=12,
           tooltip=lambda r: _full_text(r, "session_id"), hidden_by_default=True),
    Column("span_status", "Span status", span_status_cell, None, width_chars=11, tooltip=_span_status_tooltip,
           hidden_by_default=True),
    Column("agent", "Agent / operation", agent_operation, None, width_chars=16, tooltip=_agent_tooltip,
           hidden_by_default=True),
    Column("cost", "Cost", cost_cell, "cost", numeric=True, width_chars=10, tooltip=cost_tooltip,
           hidden_by_default=True),
    Column("scores", "Scores", lambda r: getattr(r, "scores", None) or DASH, None, width_chars=12,
           tooltip=lambda r: _full_text(r, "scores") or "not scored (filter: score, score == C, score.NAME < 1)",
           hidden_by_default=True),
)
"""Trace-list columns: time, trace id, model, input tokens / capacity, retained / omitted, state,
the worst finding's severity, the call's span id, the conversation (``session_id``: the
filter field ``conversation``), the span status (``status``: error with its message in the
tooltip, never ended) and the agent / operation (``agent``, ``operation``) (from the facts stored
on the row; the state's tooltip gives the verdict, the worst severity's the rule). The worst-severity column is not sortable: the store has no
severity-ordered key (a sort by the stored word would be alphabetical)."""


# --------------------------------------------------------------------------- item table


def item_position(item: ContextItem) -> str:
    """1-based position in the request; an omitted item has none (:data:`DASH`)."""
    if item.position is not None:
        return str(item.position)
    return DASH if item.status is Status.OMITTED else NOT_RECORDED


def item_source(item: ContextItem) -> str:
    """The source reference's one-line label (``"kb:doc-17"``, ``"turn 3"``) or ``"not recorded"``."""
    label = item.source.label() if item.source is not None else None
    return label or NOT_RECORDED


def item_status(item: ContextItem) -> str:
    """``"retained"`` or ``"omitted"`` (the reason has its own column, :func:`item_reason`)."""
    return item.status.value


def item_reason(item: ContextItem) -> str:
    """Why an omitted item was left out (``"budget"``, ``"rank"``, ``"dropped between calls
    (derived)"``), ``"not recorded"`` when the trace does not say; :data:`DASH` for a retained item."""
    if item.status is Status.RETAINED:
        return DASH
    return item.omission_reason or NOT_RECORDED


def item_status_words(item: ContextItem) -> str:
    """Status and reason in one phrase: ``"retained"``, ``"omitted: budget"``, ``"omitted: reason
    not recorded"`` (content titles and one-line summaries)."""
    if item.status is Status.RETAINED:
        return "retained"
    return f"omitted: {item.omission_reason or 'reason ' + NOT_RECORDED}"


def item_status_tooltip(item: ContextItem) -> str | None:
    """Longer words for an omitted item's status; ``None`` for retained items."""
    if item.status is Status.RETAINED:
        return None
    reason = item.omission_reason or NOT_RECORDED
    return f"Omitted before sending. Reason: {reason}"


def item_tokens_tooltip(item: ContextItem) -> str | None:
    """Where the item's token count came from: ``"412 tokens, counted with cl100k_base"``,
    ``"412 tokens, recorded (cl100k_base)"``, ``"412 tokens, source not recorded"``,
    ``"769 tokens, estimated: 1 image by the model's image rule, the text counted with o200k_base"``
    (an item holding images: :mod:`ctxviewer.pipeline.missing_counts`); ``None`` when no count is
    recorded (:class:`~ctxviewer.model.trace.TokenProvenance`)."""
    if item.tokens is None:
        return None
    prov = item.tokens_provenance
    where = prov.label() if prov is not None else f"source {NOT_RECORDED}"
    if prov is not None and prov.source is TokenSource.ESTIMATED and item.content:
        from ctxviewer.tokens.placeholders import split_marked

        n = len(split_marked(item.content).images)
        if n:
            where = (f"estimated: {n} image{'s' if n > 1 else ''} by the model's image rule, "
                     f"the text counted with {prov.encoding or 'an unrecorded encoding'}")
    return f"{fmt_int(item.tokens)} tokens, {where}"


def _number_last(value: float | None) -> tuple[int, float]:
    """Sort value of a number that may be unknown: known numbers ascending, unknown after them."""
    return (1, 0.0) if value is None else (0, float(value))


ITEM_COLUMNS: tuple[Column[ContextItem], ...] = (
    Column("position", "Pos", item_position, numeric=True, width_chars=4,
           sort_value=lambda i: _number_last(i.position)),
    Column("kind", "Kind", lambda i: i.kind_label, width_chars=8),
    Column("id", "Id", lambda i: i.id, width_chars=12),
    Column("source", "Source", item_source, width_chars=12),
    Column("trust", "Trust", lambda i: i.trust.value, width_chars=8, hidden_by_default=True),
    Column("priority", "Priority", lambda i: fmt_priority(i.priority), numeric=True, width_chars=7,
           sort_value=lambda i: _number_last(i.priority)),
    Column("tokens", "Tokens", lambda i: fmt_int(i.tokens), numeric=True, width_chars=6,
           tooltip=item_tokens_tooltip, sort_value=lambda i: _number_last(i.tokens)),
    Column("status", "Status", item_status, width_chars=8, tooltip=item_status_tooltip),
    Column("reason", "Omission reason", item_reason, width_chars=17, tooltip=item_status_tooltip),
)
"""Item-table columns: position, kind, id, source, trust, priority, tokens, status, omission
reason. Rows come in final order (the request's); the window can sort by any column
(``sort_value``, else the text) and back to final order."""


def column(columns: tuple[Column[R], ...], key: str) -> Column[R]:
    """The column with ``key``. Raises ``KeyError``."""
    for c in columns:
        if c.key == key:
            return c
    raise KeyError(key)
