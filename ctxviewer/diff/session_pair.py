"""A session's call and the call before it, the pair the sessions view diffs ("the per-call diff"):
:func:`call_pair` reads session ``session_id``'s calls in send order
(:meth:`ctxviewer.store.TraceStore.session_calls`) and loads call ``n`` and call ``n - 1`` as
recorded (no derived omissions), for :func:`ctxviewer.diff.diff_traces`. ``ctxviewer session
--diff N`` and the window's Sessions dialog both call it. No Qt here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxviewer.model.trace import RequestTrace

if TYPE_CHECKING:
    from ctxviewer.store import TraceStore


def call_pair(store: TraceStore, session_id: str, n: int) -> tuple[RequestTrace, RequestTrace]:
    """``(call n - 1, call n)`` of session ``session_id`` (``n`` counted from 1, in send order).

    Raises ``ValueError`` naming the session and how many calls it has when ``n`` is not 2 ..
    that count (the first call has no call before it) or the session has no calls; ``KeyError``
    when a call's trace is no longer in the store; :class:`~ctxviewer.store.StoreError` when the
    store cannot be read."""
    calls = store.session_calls(session_id)
    if not calls:
        raise ValueError(f"no call has session id {session_id!r}")
    if not 2 <= n <= len(calls):
        first = " (call 1 is the first: it has no call before it)" if n == 1 else ""
        raise ValueError(f"session {session_id!r} has {len(calls):,} call(s); --diff takes 2 to {len(calls):,}{first}"
                         if len(calls) > 1 else f"session {session_id!r} has one call: there is no call to diff it with")
    return store.load(calls[n - 2].trace_id), store.load(calls[n - 1].trace_id)
