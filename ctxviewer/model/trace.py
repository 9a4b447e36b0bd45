"""The request trace: what one model request actually sent (chapter sections 3.1, 3.3, 3.5).

A :class:`RequestTrace` records, for one model request, the endpoint and its context capacity,
the versioned system policy, the current user request, every context item in final order
(retained and omitted), the declared token budget per category, the reserved output tokens and
safety margin, provider-reported usage, the serialized request (or a reference to an unchanged
stored copy), the response, the proposed tool calls with the application's checks on each, and
validation results on the output.

Invariants:

* Every dataclass here is frozen, mappings included (:class:`frozendict.frozendict`), so a trace is
  hashable; build a changed copy with :func:`dataclasses.replace`.
* A field the source did not record is ``None`` -- never ``0`` or ``""``. The viewer shows it as
  "not recorded" (:data:`NOT_RECORDED`).
* Token counts are in tokens of the trace's recorded encoding (``Endpoint.encoding``).
* ``RequestTrace.items`` is in final order: the order the items had in the request, with omitted
  items kept at the place they held among the candidates. Retained items carry a 1-based
  ``position`` in the request; omitted items have ``position=None`` and an ``omission_reason``.
* Item ids are stable across a request and its replay (an item-level diff aligns on them).

The enumerations the fields take (:class:`Kind`, :class:`Status`, ...) live in
:mod:`ctxviewer.model.vocabulary` and are handed on from here. No Qt here: this module is part of
the core.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping

from frozendict import deepfreeze, frozendict

from ctxviewer.model.guardrail import GuardrailResult
from ctxviewer.model.vocabulary import (
    RESULT_ROLES,
    TOOL_RESULT_LABEL,
    Category,
    Kind,
    LimitMode,
    Status,
    TokenSource,
    ToolVerdict,
    Trust,
    is_tool_result,
)
from ctxviewer.model.words import NOT_RECORDED as _NOT_RECORDED

__all__ = [  # the enumerations are handed on from ctxviewer.model.vocabulary
    "NOT_RECORDED", "Category", "ContextItem", "Endpoint", "Kind", "LimitMode", "Policy", "RequestTrace",
    "Response", "SerializedRequest", "SourceRef", "Status", "TokenProvenance", "TokenSource", "ToolCall",
    "ToolCheck", "ToolVerdict", "Trust", "Usage", "ValidationResult",
]

NOT_RECORDED = _NOT_RECORDED
"""What the viewer shows for a field the source did not record (``None``): :data:`ctxviewer.model.words.NOT_RECORDED`."""


@dataclass(frozen=True)
class TokenProvenance:
    """Where one token count came from: its :class:`TokenSource` and the encoding it is in."""

    source: TokenSource
    """Recorded by the application, reported by the provider, or counted by ctxviewer."""
    encoding: str | None = None
    """Encoding of the count (a tiktoken name, e.g. ``cl100k_base``); ``None`` if not recorded."""

    def label(self) -> str:
        """``"recorded"``, ``"reported by the provider"``, ``"counted with o200k_base"`` or
        ``"estimated with cl100k_base (not the model's tokenizer)"`` (``"... (encoding not
        recorded)"`` when the encoding is unknown)."""
        if self.source is TokenSource.REPORTED:
            text = "reported by the provider"
        elif self.source is TokenSource.COUNTED:
            return "counted with " + (self.encoding or "an unrecorded encoding")
        elif self.source is TokenSource.ESTIMATED:
            return f"estimated with {self.encoding or 'an unrecorded encoding'} (not the model's tokenizer)"
        else:
            text = "recorded"
        return text + (f" ({self.encoding})" if self.encoding else "")


@dataclass(frozen=True)
class SourceRef:
    """Where an item came from. Every field may be ``None`` (not recorded)."""

    store: str | None = None
    """Name of the store or service the item was loaded from (e.g. ``"tickets"``, ``"kb"``)."""
    document_id: str | None = None
    """Identifier of the source record in that store."""
    url: str | None = None
    """URL of the source, when it has one."""
    turn: int | None = None
    """Conversation turn number (0-based) for history items."""

    def label(self) -> str | None:
        """One-line description for tables: ``"kb:doc-17"``, ``"turn 3"``, a URL; ``None`` if empty."""
        parts: list[str] = []
        if self.store and self.document_id:
            parts.append(f"{self.store}:{self.document_id}")
        elif self.store or self.document_id:
            parts.append(str(self.store or self.document_id))
        if self.turn is not None:
            parts.append(f"turn {self.turn}")
        if self.url:
            parts.append(self.url)
        return " ".join(parts) if parts else None


@dataclass(frozen=True)
class ContextItem:
    """One candidate input of a request, in final order (chapter 3.3, ``ContextItem``)."""

    kind: Kind
    """What the item is (policy, user, history, summary, memory, evidence, tool)."""
    id: str
    """Stable identifier, unique within the trace and kept across a replay."""
    content: str | None
    """The text sent (for tools: the JSON definition); ``None`` if the log did not keep it."""
    status: Status = Status.RETAINED
    """``retained`` (sent) or ``omitted`` (trimmed or filtered before sending)."""
    tokens: int | None = None
    """Token count of ``content`` under the trace's encoding, as recorded; ``None`` if not recorded."""
    position: int | None = None
    """1-based position among the retained items of the request; ``None`` for omitted items."""
    priority: float | None = None
    """Trimming priority: higher is more important to retain (chapter 3.3); ``None`` if not recorded."""
    trust: Trust = Trust.UNTRUSTED
    """``trusted`` application policy or ``untrusted`` data (user text, documents, tool results)."""
    source: SourceRef | None = None
    """Where the item came from; ``None`` if not recorded."""
    omission_reason: str | None = None
    """Why an omitted item was left out: ``budget``, ``rank``, ``permission``, ``duplicate``, ..."""
    role: str | None = None
    """Chat role the item was sent under (``system``, ``user``, ``assistant``, ``tool``), if known."""
    tokens_provenance: TokenProvenance | None = None
    """Where ``tokens`` came from (recorded, reported, or counted with a named encoding); ``None``
    while ``tokens`` is ``None`` or when the source did not say."""

    @property
    def is_tool_definition(self) -> bool:
        """True for a tool definition: kind ``tool`` not sent under a result's role
        (:data:`~ctxviewer.model.vocabulary.RESULT_ROLES`). Its ``content`` is then counted by the
        endpoint's tool rule (:func:`ctxviewer.tokens.item_rule.content_tokens`), not as text."""
        return self.kind is Kind.TOOL and self.role not in RESULT_ROLES

    @property
    def kind_label(self) -> str:
        """The kind in words as every view shows it (item table, item title, conversation view):
        ``kind.value``, or ``"history (tool result)"`` for a history item holding a tool's result
        (:func:`~ctxviewer.model.vocabulary.is_tool_result`,
        :data:`~ctxviewer.model.vocabulary.TOOL_RESULT_LABEL`)."""
        return TOOL_RESULT_LABEL if is_tool_result(self.kind, self.role) else self.kind.value


@dataclass(frozen=True)
class Endpoint:
    """The model endpoint the request was sent to and its limits (chapter 3.1)."""

    provider: str | None = None
    """Provider name, as OTel ``gen_ai.provider.name`` (``openai``, ``anthropic``, ...)."""
    model: str | None = None
    """Requested model, as OTel ``gen_ai.request.model``."""
    capacity: int | None = None
    """Context capacity C in tokens (shared mode: input plus output)."""
    limit_mode: LimitMode | None = None
    """Shared input+output limit, or separate input and output limits."""
    max_input_tokens: int | None = None
    """Input limit in tokens (separate mode)."""
    max_output_tokens: int | None = None
    """Output limit in tokens (separate mode)."""
    encoding: str | None = None
    """Tokenizer the token counts were made with (a tiktoken encoding name, e.g. ``cl100k_base``)."""
    accounting_rule: str | None = None
    """Free-text accounting rule (e.g. "message text plus 3 tokens per message")."""


@dataclass(frozen=True)
class Policy:
    """The versioned system policy (chapter 3.3). Always part of a trace; its fields may be unknown."""

    id: str | None = None
    """Policy identifier, e.g. ``"support-policy"``."""
    version: str | None = None
    """The version that was sent (or pinned and requested, when it was unavailable)."""
    available: bool | None = None
    """False when the required policy version could not be loaded (Table 3.1 row 1)."""


@dataclass(frozen=True)
class Usage:
    """Provider-reported token usage (OTel ``gen_ai.usage.*``). All in tokens; ``None`` = not reported.

    Normalised as OTel GenAI does: ``input_tokens`` includes cached tokens, ``output_tokens``
    includes reasoning tokens.
    """

    input_tokens: int | None = None
    """``gen_ai.usage.input_tokens``."""
    output_tokens: int | None = None
    """``gen_ai.usage.output_tokens``."""
    cached_input_tokens: int | None = None
    """``gen_ai.usage.cache_read.input_tokens``."""
    cache_creation_input_tokens: int | None = None
    """``gen_ai.usage.cache_creation.input_tokens``."""
    reasoning_tokens: int | None = None
    """``gen_ai.usage.reasoning.output_tokens``."""


@dataclass(frozen=True)
class SerializedRequest:
    """The request as sent, or a reference to an unchanged stored copy (chapter 3.3, 3.5)."""

    content: str | None = None
    """The serialized request body (usually JSON); ``None`` when only a reference was kept."""
    sha256: str | None = None
    """Hex sha256 of the unchanged stored copy of the serialized body."""
    exact_replay: bool | None = None
    """Whether the request can be replayed exactly from the record."""
    redacted_fields: tuple[str, ...] = ()
    """Fields removed or protected by the logging policy (JSON paths), which may prevent replay."""


@dataclass(frozen=True)
class ToolCheck:
    """One application check on a proposed tool call (chapter 3.5, Figure 3.3)."""

    check: str
    """``allowlist``, ``argument_format``, ``identity``, ``resource`` or ``approval``."""
    passed: bool | None
    """Outcome; ``None`` if the check was not run or not recorded."""
    rule: str | None = None
    """The policy rule that decided it, e.g. ``"refunds.require_supervisor"``."""
    detail: str | None = None
    """Human-readable explanation."""


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model proposed, with the application's checks on it."""

    name: str
    """Tool name as proposed by the model."""
    arguments: str | None
    """Arguments exactly as sent by the model (a JSON string)."""
    id: str | None = None
    """Provider tool-call id (``gen_ai.tool.call.id``)."""
    checks: tuple[ToolCheck, ...] = ()
    """Application checks in the order they ran."""
    verdict: ToolVerdict | None = None
    """Final decision; ``None`` if the application did not record one."""
    decided_by: str | None = None
    """The rule that produced the verdict."""


@dataclass(frozen=True)
class Response:
    """The model's response."""

    text: str | None = None
    """Text of the first choice (concatenated text parts)."""
    finish_reason: str | None = None
    """Why generation stopped (``stop``, ``length``, ``tool_calls``, ...)."""
    model: str | None = None
    """Model that answered (``gen_ai.response.model``)."""
    id: str | None = None
    """Provider response id (``gen_ai.response.id``)."""
    reasoning: str | None = None
    """The reasoning (thinking) text of the first choice, apart from ``text`` (OTel ``reasoning``
    parts, Anthropic ``thinking`` blocks; never a signature or encrypted data); ``None`` if none
    was returned or recorded."""


@dataclass(frozen=True)
class ValidationResult:
    """One validation of the output (e.g. a cited id that does not exist; Table 3.1 row 4)."""

    check: str
    """What was validated, e.g. ``"json_schema"``, ``"cited_ids"``."""
    passed: bool
    """Whether the output passed."""
    detail: str | None = None
    """What was found, e.g. ``"cited doc-99 is not in the retained evidence"``."""


@dataclass(frozen=True)
class RequestTrace:
    """One model request as sent (chapter 3.3 "request trace"). See the module docstring."""

    trace_id: str
    """Stable identifier of this request trace."""
    created: datetime | None
    """When the request was sent, timezone-aware UTC; ``None`` if not recorded."""
    endpoint: Endpoint
    """Provider, model, capacity and limits."""
    policy: Policy
    """Policy id and version (the text is the ``policy`` item's content)."""
    user_request: str | None
    """The current user request text (also the ``user`` item)."""
    items: tuple[ContextItem, ...] = ()
    """All items in final order, retained and omitted."""
    service: str | None = None
    """Application / service name (OTel ``service.name``)."""
    session_id: str | None = None
    """Conversation or session id (OTel ``gen_ai.conversation.id``); may be redacted."""
    user_id: str | None = None
    """End-user id; may be redacted."""
    replay_of: str | None = None
    """trace_id of the request this one replays, if any."""
    budget: Mapping[Category, int] = field(default_factory=frozendict)
    """Declared token budget per category (B_sys ... B_out), only where declared."""
    reserved_output_tokens: int | None = None
    """B_out: tokens reserved for the answer."""
    input_tokens: int | None = None
    """Input tokens counted by the application for the serialized request."""
    safety_margin: int | None = None
    """Declared safety margin in tokens for template overhead and count variation."""
    usage: Usage = field(default_factory=Usage)
    """Provider-reported usage."""
    request: SerializedRequest = field(default_factory=SerializedRequest)
    """The serialized request or a reference to its stored copy."""
    response: Response | None = None
    """The model's response, if recorded."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Tool calls the model proposed, with checks."""
    validations: tuple[ValidationResult, ...] = ()
    """Validation results on the output."""
    guardrails: tuple[GuardrailResult, ...] = ()
    """Runtime guardrail evaluations recorded with the request (:mod:`ctxviewer.model.guardrail`)."""
    source_format: str | None = None
    """Importer that produced the trace (``native``, ``otel``, ...)."""
    omissions_recorded: bool = True
    """Whether the source could say which candidate items were omitted. False for formats that
    record only what was sent (OpenTelemetry GenAI spans and the other observability exports: their
    omitted counts are "not recorded", never 0); set at import from the importer's declared
    ``records_omissions`` (:meth:`ctxviewer.importers.Registry.load`)."""
    attributes: Mapping[str, Any] = field(default_factory=frozendict)
    """Other recorded fields, kept verbatim for display (e.g. request parameters). Deep-frozen:
    JSON lists become tuples and objects become :class:`frozendict.frozendict`."""

    def __post_init__(self) -> None:
        # Frozen all the way down, so a trace is hashable and cannot change after import.
        if type(self.budget) is not frozendict:
            object.__setattr__(self, "budget", frozendict(self.budget))
        attrs = self.attributes
        if not _deep_frozen(attrs):  # (dataclasses.replace copies a frozen one)
            object.__setattr__(self, "attributes", freeze(attrs))

    @property
    def retained(self) -> tuple[ContextItem, ...]:
        """The items that were sent, in final order."""
        return tuple(i for i in self.items if i.status is Status.RETAINED)

    @property
    def omitted(self) -> tuple[ContextItem, ...]:
        """The items that were left out, in their candidate order."""
        return tuple(i for i in self.items if i.status is Status.OMITTED)

    def item(self, item_id: str) -> ContextItem:
        """The item with ``item_id``. Raises ``KeyError`` if there is none."""
        for it in self.items:
            if it.id == item_id:
                return it
        raise KeyError(item_id)


_SCALARS = (str, int, float, bool, type(None))


def freeze(value: Any) -> Any:
    """``deepfreeze(value)`` (:mod:`frozendict`: every ``dict`` and ``frozendict`` a
    :class:`frozendict`, every ``list`` and ``tuple`` a tuple, all the way down), the JSON shapes
    walked here at a fraction of the library's cost (it looks each value's type up in its conversion
    maps); any other type is left to ``deepfreeze`` itself. Equal to it, type for type."""
    t = type(value)
    if t in _SCALARS:
        return value
    if t is dict or t is frozendict:
        return frozendict({k: freeze(v) for k, v in value.items()})
    if t is list or t is tuple:
        return tuple([freeze(v) for v in value])
    return deepfreeze(value)


def _deep_frozen(value: Any) -> bool:
    """True when ``value`` is already what ``deepfreeze`` makes of it: a :class:`frozendict` of
    tuples, frozendicts and JSON scalars all the way down (``deepfreeze`` would build an equal copy)."""
    t = type(value)
    if t is frozendict:
        return all(type(v) in _SCALARS or _deep_frozen(v) for v in value.values())
    if t is tuple:
        return all(type(v) in _SCALARS or _deep_frozen(v) for v in value)
    return t in _SCALARS
