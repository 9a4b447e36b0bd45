"""The display-filter field table: which words name a field, the column each reads and its type.

:data:`FIELDS` are the trace fields (columns of ``traces``), :data:`ITEM_FIELDS` the item fields
(columns of ``items``, written ``item.NAME`` or inside ``item(...)``); ``finding``, ``score`` and
``text`` are the fields of their own tables (:data:`FINDING`, :data:`SCORE`, :data:`TEXT`).
:data:`INDEXED_COLUMNS` says which columns an index answers alone. A new field is a row here (and
its column in :mod:`ctxviewer.store.migrations`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    """A filterable field: its name in the grammar and the column it reads."""

    name: str
    """Name in filter text (``capacity``)."""
    column: str
    """Column of ``traces`` (trace fields) or ``items`` (item fields)."""
    kind: str
    """``text``, ``int``, ``float`` or ``bool``."""
    doc: str
    """What it means, with its unit."""
    few: bool = False
    """Few distinct values (model, provider, ...): ``~`` first finds the matching values by an
    index hop per distinct value, then looks those up in the column's index."""
    choices: tuple[str, ...] = ()
    """The only values the field holds (``state``: ok, warning, failure); any other value in
    ``==``, ``!=``, ``in`` or an ordering is an error at its position. Empty: any value."""
    time: bool = False
    """An ISO-8601 UTC time (``created``): a value compared with it must be a date or time
    prefix that exists (``2026-11-02``, ``2026-11-02T09:14``), else an error at its position."""
    aliases: tuple[tuple[str, str], ...] = ()
    """Other words for a stored value, ``(word, stored)``, compared case-insensitively
    (``status == "never ended"`` means ``status == unfinished``)."""


FIELDS: dict[str, Field] = {f.name: f for f in (
    Field("id", "trace_id", "text", "trace id"),
    Field("created", "created", "text", "send time, ISO-8601 UTC (2026-11-02T09:14:05.120Z)", time=True),
    Field("service", "service", "text", "application / service name", few=True),
    Field("provider", "provider", "text", "endpoint provider (openai, ...)", few=True),
    Field("model", "model", "text", "requested model", few=True),
    Field("capacity", "capacity", "int", "recorded context capacity C, tokens"),
    Field("input", "input_tokens", "int", "counted input tokens"),
    Field("reserved", "reserved_output_tokens", "int", "reserved output tokens B_out"),
    Field("retained", "retained_count", "int", "items sent"),
    Field("omitted", "omitted_count", "int", "items left out"),
    Field("margin", "margin", "int", "eq. 3.1 margin, tokens"),
    Field("fits", "fits", "bool", "eq. 3.1 holds (yes / no)"),
    Field("state", "state", "text", "ok, warning or failure", few=True, choices=("ok", "warning", "failure")),
    Field("worst", "worst_rule", "text", "rule id of the worst finding", few=True),
    Field("conversation", "session_id", "text", "conversation id (gen_ai.conversation.id)"),
    Field("status", "span_status", "text", "span status: ok, error, unset or unfinished (never ended)", few=True,
          aliases=(("never ended", "unfinished"), ("never_ended", "unfinished")),
          choices=("ok", "error", "unset", "unfinished")),  # OTel's three codes and a span never ended
    Field("agent", "agent", "text", "agent name (gen_ai.agent.name)", few=True),
    Field("operation", "operation", "text", "operation name (gen_ai.operation.name: chat, execute_tool, ...)",
          few=True),
    Field("replay_of", "replay_of", "text", "trace id this trace replays"),
    Field("format", "source_format", "text", "importer that produced the trace", few=True),
    Field("cost", "cost", "float", "cost, US dollars, from the recorded usage (genai-prices); a cost not known has none"),
    Field("output", "output_tokens", "int", "reported output tokens"),
    Field("duration", "duration_ms", "float", "span duration, ms"),
)}
"""Trace fields by name (columns of ``traces``)."""

FINDING = Field("finding", "rule", "text", "rule id of any finding of the trace (trace_findings)")
"""The ``finding`` field: any finding's rule id, or its family (the part before the first dot)."""

SCORE = Field("score", "value", "text", "a recorded score's value (trace_scores); score.NAME: the score named NAME")
"""The ``score`` field: any recorded score's value; ``score.NAME`` the score named NAME
(:mod:`ctxviewer.store.score_rows`). A number compares the score's numeric meaning, text its value."""

TEXT = Field("text", "text", "text", "item content, full-text: every word as a word prefix")
"""The ``text`` field: item content through the full-text index (``~`` / ``!~`` only)."""

ITEM_FIELDS: dict[str, Field] = {f.name: f for f in (
    Field("id", "item_id", "text", "item id"),
    Field("kind", "kind", "text", "policy, user, history, summary, memory, evidence or tool",
          choices=("policy", "user", "history", "summary", "memory", "evidence", "tool")),
    Field("status", "status", "text", "retained or omitted", choices=("retained", "omitted")),
    Field("trust", "trust", "text", "trusted or untrusted", choices=("trusted", "untrusted")),
    Field("role", "role", "text", "chat role it was sent under"),
    Field("tokens", "tokens", "int", "token count of the content"),
    Field("priority", "priority", "float", "trimming priority"),
    Field("position", "position", "int", "1-based position among retained items"),
    Field("reason", "omission_reason", "text", "why it was omitted (budget, rank, ...)"),
)}
"""Item fields by name (columns of ``items``), written ``item.NAME`` or inside ``item(...)``."""

QUICK_COLUMNS: tuple[str, ...] = ("trace_id", "model", "service", "provider")
"""Columns a lone word (or quoted text) is looked for in, as a case-insensitive substring."""

INDEXED_COLUMNS = frozenset({"trace_id", "created", "model", "input_tokens", "replay_of", "state", "capacity",
                             "omitted_count", "provider", "service", "session_id", "worst_rule",
                             "span_status", "agent", "operation", "cost"})
"""``traces`` columns with an index whose leading column they are (schema 1 to 5, ``cost`` schema 8)."""


STATUS_COUNTS = {"omitted": "omitted_count", "retained": "retained_count"}
"""Item status -> the ``traces`` column counting that trace's items of the status."""
