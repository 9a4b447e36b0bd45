"""One replay: rebuild the request of a trace, send it to a configured endpoint, and record the
answer as a new trace linked to the original.

:func:`replay` makes the :class:`~ctxviewer.replay.rebuild.RequestPlan`, reads the key from the
endpoint's variable (:func:`~ctxviewer.replay.endpoints.api_key`), POSTs the plan's bytes
(:func:`~ctxviewer.replay.send.post`) and returns a :class:`Replay` whose :attr:`~Replay.trace`
is the original's request (same items, same order) with

* ``replay_of`` = the original's id, ``created`` = now (UTC), a new ``trace_id``
  (``<original>~replay-<8 hex>`` unless given);
* ``request.content`` = the bytes actually sent, decoded (byte for byte), ``request.sha256`` their
  digest, ``exact_replay`` true (the record holds every byte sent) unless the original had
  redacted fields, which it keeps in ``redacted_fields``;
* the endpoint's provider and the model sent; the answer's response, tool calls (no application
  checks: none ran) and usage; no validations;
* attributes ``ctxviewer.replay.endpoint`` / ``.kind`` / ``.url`` / ``.source`` / ``.changed`` /
  ``.notes`` / ``.inexact`` / ``.elapsed_ms`` and ``gen_ai.request.*`` for the settings sent.

:func:`save` writes replays into a database (never the source), assessed like an import;
:func:`diff_summary` is ``ctxviewer diff``'s text for the original against its replay. No Qt here.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from ctxviewer.model.trace import RequestTrace, SerializedRequest
from ctxviewer.replay.answer import parse_answer
from ctxviewer.replay.endpoints import EndpointConfig, api_key
from ctxviewer.replay.rebuild import PARAMS, RequestPlan, plan_request
from ctxviewer.replay.send import post


@dataclass(frozen=True)
class Replay:
    """A replay's new trace with the plan it sent and the endpoint."""

    original: RequestTrace
    trace: RequestTrace
    plan: RequestPlan
    endpoint: EndpointConfig
    elapsed_ms: float


def replay_trace(original: RequestTrace, plan: RequestPlan, ep: EndpointConfig, answer_doc: dict[str, Any],
                 elapsed_ms: float, trace_id: str | None = None, extra: Mapping[str, Any] | None = None) -> RequestTrace:
    """The new trace for ``original`` sent as ``plan`` to ``ep`` that answered ``answer_doc``
    (module docstring). Raises :class:`~ctxviewer.replay.send.SendFailure` for an answer of the
    wrong shape."""
    parsed = parse_answer(ep.kind, answer_doc)
    sent = plan.doc
    attrs: dict[str, Any] = {
        "ctxviewer.replay.endpoint": ep.name, "ctxviewer.replay.kind": ep.kind, "ctxviewer.replay.url": ep.url,
        "ctxviewer.replay.source": plan.source, "ctxviewer.replay.changed": list(plan.changed),
        "ctxviewer.replay.notes": list(plan.notes), "ctxviewer.replay.elapsed_ms": round(elapsed_ms, 1),
        **({"ctxviewer.replay.inexact": plan.inexact} if plan.inexact else {}),
        **{f"gen_ai.request.{k}": sent[k] for k in PARAMS if k in sent},
        **dict(extra or {}),
    }
    req = SerializedRequest(content=plan.body.decode("utf-8"), sha256=hashlib.sha256(plan.body).hexdigest(),
                            exact_replay=not original.request.redacted_fields, redacted_fields=original.request.redacted_fields)
    return replace(
        original, trace_id=trace_id or f"{original.trace_id}~replay-{uuid.uuid4().hex[:8]}",
        created=datetime.now(timezone.utc), replay_of=original.trace_id,
        endpoint=replace(original.endpoint, provider=ep.provider, model=sent.get("model", original.endpoint.model)),
        request=req, response=parsed.response, tool_calls=parsed.tool_calls, usage=parsed.usage, validations=(),
        attributes=attrs)


def replay(original: RequestTrace, ep: EndpointConfig, *, overrides: Mapping[str, Any] | None = None,
           from_items: bool = False, environ: Mapping[str, str] | None = None, transport: Any = None,
           sleep: Callable[[float], None] | None = None, cancelled: Callable[[], bool] = lambda: False,
           trace_id: str | None = None, extra: Mapping[str, Any] | None = None, plan: RequestPlan | None = None) -> Replay:
    """Replay ``original`` on ``ep`` (module docstring). ``plan`` sends a prepared request instead
    of :func:`~ctxviewer.replay.rebuild.plan_request`'s. Raises
    :class:`~ctxviewer.replay.endpoints.EndpointError` (no key, no model) and
    :class:`~ctxviewer.replay.send.SendFailure` (each failure kind)."""
    plan = plan or plan_request(original, ep, overrides, from_items=from_items)
    key = api_key(ep, environ)
    answer = post(ep, plan.body, key, transport=transport, sleep=sleep, cancelled=cancelled)
    new = replay_trace(original, plan, ep, answer.body, answer.elapsed_ms, trace_id, extra)
    return Replay(original, new, plan, ep, answer.elapsed_ms)


def default_save_path(db: str | Path) -> Path:
    """Where replays of ``db`` go when the user names no database: ``<stem>.replays.db`` beside it."""
    p = Path(db)
    return p.with_name(f"{p.stem}.replays.db")


def save(target: str | Path, traces: Iterable[RequestTrace], source_db: str | Path | None = None) -> int:
    """Store ``traces`` in ``target`` (created when missing; assessed in its context like an import).
    Raises ``ValueError`` when ``target`` is ``source_db`` (the source is never written) and
    :class:`~ctxviewer.store.StoreError` when the store refuses."""
    from ctxviewer.assess.context import context_for_db
    from ctxviewer.pipeline.hints import create_store
    from ctxviewer.pipeline.stored_facts import with_facts

    if source_db is not None and Path(target).resolve() == Path(source_db).resolve():
        raise ValueError(f"{target}: the source database is never written; choose another file")
    traces = list(traces)
    with create_store(target) as store:
        store.add(with_facts(traces, context_for_db(target)))
    return len(traces)


def diff_summary(original: RequestTrace, new: RequestTrace) -> str:
    """``ctxviewer diff``'s readable summary of ``original`` (A) against ``new`` (B)."""
    from ctxviewer.diff.render import format_diff_text
    from ctxviewer.diff.request import diff_traces

    return format_diff_text(diff_traces(original, new))
