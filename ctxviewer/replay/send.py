"""One request to a configured endpoint, over httpx, with one clear message per failure kind.

:func:`post` sends the body bytes exactly as given (``Content-Type: application/json``) with the
kind's headers -- ``Authorization: Bearer KEY`` for the OpenAI kinds, ``x-api-key: KEY`` and
``anthropic-version: 2023-06-01`` for Anthropic Messages -- and returns the parsed JSON answer.
Failures raise :class:`SendFailure` with a :attr:`~SendFailure.kind`:

* ``refused`` -- nothing listens at the URL (connection refused, unknown host);
* ``unauthorized`` -- 401 or 403: the key in the variable is wrong or lacks access;
* ``rate_limited`` -- 429 still after the retries, or a Retry-After longer than
  :attr:`~ctxviewer.replay.endpoints.EndpointConfig.max_retry_wait_s` (a 429 with a Retry-After
  within the bound is waited out and retried, at most :data:`RETRIES` times; without one, 1 s);
* ``timeout`` -- no answer within ``timeout_s``;
* ``bad_answer`` -- a 2xx answer that is not a JSON object;
* ``http_error`` -- any other status (the provider's error message quoted, one line);
* ``cancelled`` -- the caller's cancel flag was set (checked before each try and every 0.1 s of a
  Retry-After wait);
* ``no_client`` -- httpx (the ``replay`` extra) is not installed.

The key is never part of a message, a log line or an exception (httpx's own exceptions are
replaced). httpx is imported here only, when a request is sent (the ``replay`` extra). No Qt here.
"""

from __future__ import annotations

import email.utils
import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

from ctxviewer.replay.endpoints import EndpointConfig
from ctxviewer.util.visible import one_line

RETRIES = 2
"""How many times a 429 is retried after waiting its Retry-After."""
ANTHROPIC_VERSION = "2023-06-01"
"""The ``anthropic-version`` header sent to Anthropic Messages endpoints."""


class SendFailure(Exception):
    """A request that did not give an answer; :attr:`kind` is one of the module docstring's."""

    def __init__(self, kind: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status


@dataclass(frozen=True)
class Answer:
    """A 2xx answer: its status, the JSON object, the raw bytes and the wall time in ms."""

    status: int
    body: dict[str, Any]
    raw: bytes
    elapsed_ms: float


def headers(ep: EndpointConfig, key: str | None) -> dict[str, str]:
    """The request headers for ``ep`` (module docstring); no auth header when ``key`` is ``None``."""
    out = {"Content-Type": "application/json", "Accept": "application/json"}
    if ep.kind == "anthropic-messages":
        out["anthropic-version"] = ANTHROPIC_VERSION
        if key is not None:
            out["x-api-key"] = key
    elif key is not None:
        out["Authorization"] = f"Bearer {key}"
    return out


def retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait: delta-seconds or an HTTP-date (RFC 9110
    §10.2.3); ``None`` when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


def _error_text(raw: bytes) -> str:
    try:
        doc = json.loads(raw)
    except ValueError:
        return one_line(raw[:200].decode("utf-8", "replace"))
    err = doc.get("error") if isinstance(doc, dict) else None
    msg = err.get("message") if isinstance(err, dict) else err if isinstance(err, str) else None
    return one_line(str(msg if msg is not None else doc))[:200]


def _waiter(cancelled: Callable[[], bool]) -> Callable[[float], None]:
    def wait(seconds: float) -> None:
        end = time.monotonic() + seconds
        while not cancelled() and time.monotonic() < end:
            time.sleep(min(0.1, max(0.0, end - time.monotonic())))
    return wait


def post(ep: EndpointConfig, body: bytes, key: str | None, *, transport: Any = None,
         sleep: Callable[[float], None] | None = None, cancelled: Callable[[], bool] = lambda: False) -> Answer:
    """POST ``body`` to ``ep.url`` and return the :class:`Answer`. Raises :class:`SendFailure`
    (module docstring). ``transport`` is an httpx transport (tests); ``sleep`` waits a Retry-After
    (default: in 0.1 s steps, stopping early when ``cancelled``); ``cancelled`` is polled before
    each try."""
    try:
        import httpx  # the replay extra; only a send needs it
    except ImportError:
        raise SendFailure("no_client", "sending needs httpx: pip install 'ctxviewer[replay]'") from None
    sleep = sleep or _waiter(cancelled)

    timeout = httpx.Timeout(ep.timeout_s)
    with httpx.Client(timeout=timeout, transport=transport, follow_redirects=False, trust_env=False) as client:
        for attempt in range(RETRIES + 1):
            if cancelled():
                raise SendFailure("cancelled", f"endpoint {ep.name}: cancelled before the answer")
            start = time.perf_counter()
            try:
                resp = client.post(ep.url, content=body, headers=headers(ep, key))
            except httpx.TimeoutException:
                raise SendFailure("timeout", f"endpoint {ep.name}: no answer from {ep.url} within "
                                  f"{ep.timeout_s:g} s (timeout_s)") from None
            except httpx.ConnectError as exc:
                raise SendFailure("refused", f"endpoint {ep.name}: cannot connect to {ep.url}: "
                                  f"{one_line(str(exc)) or 'connection refused'}") from None
            except httpx.HTTPError as exc:
                raise SendFailure("http_error", f"endpoint {ep.name}: {type(exc).__name__} talking to {ep.url}") from None
            elapsed = (time.perf_counter() - start) * 1000
            if resp.status_code == 429:
                wait = retry_after(resp.headers.get("retry-after"))
                if attempt == RETRIES or (wait is not None and wait > ep.max_retry_wait_s):
                    asked = f"; it asks to retry after {wait:g} s" if wait is not None else ""
                    why = (f", more than max_retry_wait_s = {ep.max_retry_wait_s:g} s" if wait is not None
                           and wait > ep.max_retry_wait_s else f" after {RETRIES} retries")
                    raise SendFailure("rate_limited", f"endpoint {ep.name}: rate limited (429){asked}{why}", 429)
                sleep(1.0 if wait is None else wait)
                continue
            if resp.status_code in (401, 403):
                raise SendFailure("unauthorized", f"endpoint {ep.name}: {resp.status_code} "
                                  f"{'unauthorized' if resp.status_code == 401 else 'forbidden'}: the key in "
                                  f"{ep.api_key_env or '(no api_key_env)'} was refused ({_error_text(resp.content)})",
                                  resp.status_code)
            if not 200 <= resp.status_code < 300:
                raise SendFailure("http_error", f"endpoint {ep.name}: HTTP {resp.status_code}: "
                                  f"{_error_text(resp.content)}", resp.status_code)
            try:
                doc = json.loads(resp.content)
            except ValueError:
                doc = None
            if not isinstance(doc, dict):
                raise SendFailure("bad_answer", f"endpoint {ep.name}: the answer is not a JSON object "
                                  f"({len(resp.content):,} bytes, starts {_error_text(resp.content[:60])!r})",
                                  resp.status_code)
            return Answer(resp.status_code, doc, resp.content, elapsed)
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises
