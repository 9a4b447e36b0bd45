"""Where a ClickHouse trace store is: :class:`Target`, parsed from a URL, and its client.

Forms (:func:`parse_target`):

* ``clickhouse://USER@HOST:PORT/DATABASE?table=otel_traces`` -- HTTP (``clickhouses://`` or port
  8443 / 443: HTTPS). The password is read from the environment variable
  :data:`PASSWORD_ENV` (never from the URL, a command-line value or settings: a URL with a
  password is refused).
* ``chdb:///PATH/TO/DIR/DATABASE?table=otel_traces`` -- chDB, the ClickHouse engine in-process
  (tests, a local copy): the data directory ``PATH/TO/DIR``, then the database.

Query options: ``table`` (default ``otel_traces``), ``since`` (the time window: ``24h`` default,
``90m``, ``7d``, ``30s``; at most :data:`MAX_WINDOW`), ``timeout`` (``max_execution_time`` in
seconds, a positive whole number, default 30); the Langfuse store's ``kind``, ``project_id`` and
``dedup`` are accepted by name (:data:`OPTIONS`). Any other option, a server URL without a host, a
port that is not a number in 1-65535 and a malformed host (an unclosed ``[`` IPv6 literal) are
refused naming the part (:class:`~ctxviewer.store.StoreError`). No Qt here.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import SplitResult, parse_qs, unquote, urlsplit

from ctxviewer.pipeline.clickhouse.schemes import SCHEMES as SCHEMES
from ctxviewer.pipeline.clickhouse.schemes import is_clickhouse_url as is_clickhouse_url
from ctxviewer.store import StoreError

PASSWORD_ENV = "CTXVIEWER_CLICKHOUSE_PASSWORD"
"""The environment variable the password is read from (empty or unset: no password)."""
DEFAULT_WINDOW = timedelta(hours=24)
"""The time window of every query when the URL gives no ``since`` (issue: default last 24 h)."""
DEFAULT_TIMEOUT = 30
"""``max_execution_time`` of every query, seconds, when the URL gives no ``timeout``."""

MAX_WINDOW = timedelta(days=36500)
"""The longest ``since`` (100 years: spans older than that are not in a trace store)."""
OPTIONS = ("dedup", "kind", "project_id", "since", "table", "timeout")
"""The query options a store URL may carry (module docstring); any other is refused."""

_SPAN = re.compile(r"^(\d+)\s*([smhd])$")
_UNIT = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def parse_window(text: str) -> timedelta:
    """``"2h"`` -> 2 hours (units ``s``, ``m``, ``h``, ``d``). Raises ``ValueError`` naming the text
    for another form, zero, or a length over :data:`MAX_WINDOW`."""
    m = _SPAN.match(text.strip().lower())
    if m is None or int(m.group(1)) <= 0:
        raise ValueError(f"since={text!r}: expected a positive length such as 30m, 2h or 7d")
    n, unit = int(m.group(1)), _UNIT[m.group(2)]
    if n > MAX_WINDOW / timedelta(**{unit: 1}):
        raise ValueError(f"since={text!r}: longer than the most allowed, {MAX_WINDOW.days}d")
    return timedelta(**{unit: n})


def _split(url: str) -> tuple[SplitResult, int | None]:
    """``url`` split, and its port. Raises ``ValueError`` naming the bad part (a malformed host,
    a port that is not a number in 1-65535)."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # urlsplit's own words: "Invalid IPv6 URL"
        raise ValueError("malformed host: '[' without its ']' (an IPv6 address is written [::1])"
                         if "IPv6" in str(exc) else f"{exc}") from None
    raw = parts.netloc.rpartition("@")[2].rpartition("]")[2].partition(":")[2]
    try:
        port = parts.port
    except ValueError:
        port = None
    if raw and not raw.isdigit():
        raise ValueError(f"port {raw!r} is not a number")
    if raw and (port is None or not 1 <= port <= 65535):
        raise ValueError(f"port {raw} is out of range 1-65535")
    return parts, port


def _options(query: str) -> dict[str, str]:
    """The query options of a URL, the last of each name. Raises ``ValueError`` for a name not in
    :data:`OPTIONS` (listing them) and for ``table``, ``since`` or ``timeout`` without a value."""
    opts = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
    unknown = sorted(set(opts) - set(OPTIONS))
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r} (known: {', '.join(OPTIONS)})")
    for name in ("table", "since", "timeout"):
        if name in opts and not opts[name].strip():
            raise ValueError(f"{name}= has no value")
    return opts


def _timeout(text: str) -> int:
    """``timeout=`` as whole seconds. Raises ``ValueError`` unless a positive whole number."""
    if not text.strip().isdigit() or int(text) <= 0:
        raise ValueError(f"timeout={text!r}: expected a positive whole number of seconds")
    return int(text)


@dataclass(frozen=True)
class Target:
    """A parsed ClickHouse store address (module docstring)."""

    url: str
    """The URL as given (it never holds a password): the source's name in messages."""
    scheme: str
    """``clickhouse``, ``clickhouses`` or ``chdb``."""
    host: str
    """Server host; for chDB the data directory."""
    port: int | None
    """Server port (``None``: the client's default)."""
    user: str | None
    """User name (``None``: ``default``)."""
    database: str
    """Database holding the table."""
    table: str
    """The spans table (the exporter's ``otel_traces``)."""
    window: timedelta
    """How far back every query reads (``since``)."""
    timeout: int
    """``max_execution_time`` of every query, seconds."""


def parse_target(url: str) -> Target:
    """The :class:`Target` of ``url``. Raises :class:`~ctxviewer.store.StoreError` naming the URL
    for another scheme, a password in the URL, a missing database or host, a bad port or host, or a
    bad or unknown option (the message names the part)."""
    try:
        parts, port = _split(url)
    except ValueError as exc:
        raise StoreError(url, f"{exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise StoreError(url, f"not a ClickHouse URL (expected {', '.join(s + '://' for s in SCHEMES)})")
    if parts.password is not None:
        raise StoreError(f"{parts.scheme}://...", "a password in the URL is refused; "
                         f"set it in the environment variable {PASSWORD_ENV}")
    try:
        opts = _options(parts.query)
        window = parse_window(opts["since"]) if "since" in opts else DEFAULT_WINDOW
        timeout = _timeout(opts["timeout"]) if "timeout" in opts else DEFAULT_TIMEOUT
    except ValueError as exc:
        raise StoreError(url, f"{exc}") from None
    table = opts.get("table", "otel_traces")
    if scheme == "chdb":
        path = unquote(parts.netloc + parts.path).rstrip("/")
        directory, _, database = path.rpartition("/")
        if not directory or not database:
            raise StoreError(url, "expected chdb:///DATA/DIRECTORY/DATABASE?table=TABLE")
        return Target(url, scheme, directory, None, None, database, table, window, timeout)
    if not parts.hostname:
        raise StoreError(url, f"no host (expected {scheme}://HOST:PORT/DATABASE?table=TABLE)")
    database = unquote(parts.path.strip("/")) or "default"
    return Target(url, scheme, parts.hostname, port, unquote(parts.username or "") or None,
                  database, table, window, timeout)


def build_url(host: str, port: int | None, database: str, table: str, user: str | None = None, *,
              tls: bool = False, since: str | None = None) -> str:
    """The URL of a server store from its parts (the window's Connect dialog): ``clickhouses://``
    with ``tls``, else ``clickhouse://``; ``since`` (``"24h"``) added unless ``None`` / empty. Never
    holds a password (:data:`PASSWORD_ENV`). Raises ``ValueError`` for an empty host, database or
    table or a bad ``since`` (:func:`parse_window`)."""
    from urllib.parse import quote, urlencode

    if not host.strip() or not database.strip() or not table.strip():
        raise ValueError("host, database and table are needed")
    query = {"table": table.strip()}
    if since and since.strip():
        parse_window(since)
        query["since"] = since.strip()
    who = f"{quote(user.strip(), safe='')}@" if user and user.strip() else ""
    where = host.strip() + (f":{port}" if port else "")
    return f"{'clickhouses' if tls else 'clickhouse'}://{who}{where}/{quote(database.strip(), safe='')}?{urlencode(query)}"


def connect(target: Target) -> Any:
    """A clickhouse-connect client for ``target`` (chDB in-process for ``chdb``). Raises
    :class:`~ctxviewer.store.StoreError` naming the URL when the server cannot be reached or the
    client library is not installed (``pip install 'ctxviewer[clickhouse]'``)."""
    try:
        import clickhouse_connect
        _quiet_driver()
    except ImportError:
        raise StoreError(target.url, "reading ClickHouse needs clickhouse-connect "
                         "(pip install 'ctxviewer[clickhouse]')") from None
    try:
        if target.scheme == "chdb":
            return clickhouse_connect.get_client(dsn=f"chdb://{target.host}", database=target.database)
        secure = target.scheme == "clickhouses" or target.port in (443, 8443)
        return clickhouse_connect.get_client(host=target.host, port=target.port or (8443 if secure else 8123),
                                             username=target.user or "default",
                                             password=os.environ.get(PASSWORD_ENV, ""), secure=secure,
                                             database=target.database)
    except ImportError as exc:
        raise StoreError(target.url, f"{exc}") from None
    except Exception as exc:  # the driver's errors have no common base below Exception
        raise StoreError(target.url, f"cannot connect ({failure_reason(exc)})") from None


def _quiet_driver() -> None:
    """The driver logs ``Unexpected Http Driver Exception`` on every failed request; the
    :class:`~ctxviewer.store.StoreError` of :func:`connect` says the failure once, so the driver's
    records go nowhere: no stray stderr line (no handler of ours or Python's last resort)."""
    log = logging.getLogger("clickhouse_connect")
    log.propagate = False
    if not log.handlers:
        log.addHandler(logging.NullHandler())


def failure_reason(exc: BaseException) -> str:
    """The operating system's words for why a connection failed (``"Connection refused"``,
    ``"Name or service not known"``, ``"timed out"``): the first ``OSError`` in the chain of
    ``exc``'s causes (the driver wraps urllib3's, which wraps the socket's), else the first line
    of ``exc`` -- never the driver's retry text with its query id."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and (seen.strerror or str(seen)):
            return seen.strerror or str(seen)
        seen = seen.__cause__ or seen.__context__
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return first.split(" HTTPConnectionPool(")[0].split(" HTTPSConnectionPool(")[0]
