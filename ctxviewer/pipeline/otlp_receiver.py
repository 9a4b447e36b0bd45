"""The live OTLP receiver: OTLP/HTTP on 127.0.0.1, writing spans into a database as they arrive
(``ctxviewer serve``, File › Listen for Traces…).

Protocol (the OTLP specification, section OTLP/HTTP): ``POST /v1/traces`` and
``POST /v1/logs`` with a binary protobuf (``application/x-protobuf``) or JSON
(``application/json``) body, ``Content-Encoding: gzip`` or none
(:mod:`ctxviewer.importers.common.spans.wire`). Answers:

* ``200`` with an ``Export*ServiceResponse`` in the request's encoding, empty, or with
  ``partial_success`` counting the spans that could not be read (the others are written) -- only
  once the batch is committed (:class:`~ctxviewer.pipeline.live_writer.LiveWriter`), so a batch answered 200
  survives a kill of the receiver;
* ``503`` with ``Retry-After`` (seconds) when the writer's queue is full, the store refused the
  write, or the commit took longer than :data:`ANSWER_WAIT_S` (the spec's retryable throttling
  answer; nothing is dropped: the client sends the batch again);
* ``400`` for a body that is not such a request, ``413`` over :data:`MAX_BODY_BYTES`, ``415`` for
  another content type or encoding, ``404`` for another path, ``405`` for another method
  (not retryable).

Binds 127.0.0.1 only: nothing from another machine reaches it. The server is the standard
library's ``http.server`` (one thread per request). No Qt here.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

from ctxviewer.importers.common.spans.wire import (
    BadRequest,
    Signal,
    TooLarge,
    UnsupportedMediaType,
    decompressed,
    media_type,
    request_dict,
    response_body,
)
from ctxviewer.importers.contract import ImportProblem
from ctxviewer.pipeline.live_writer import QUEUE_BATCHES, LiveCounts, LiveWriter

HOST = "127.0.0.1"
"""The only address the receiver binds (never 0.0.0.0)."""
DEFAULT_PORT = 4318
"""The OTLP/HTTP default port (what ``OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318`` sends to)."""
PATHS: dict[str, Signal] = {"/v1/traces": "traces", "/v1/logs": "logs"}
"""The OTLP/HTTP paths served and the signal each takes."""
RETRY_AFTER_S = 1
"""Seconds a refused client is asked to wait (the ``Retry-After`` header)."""
ANSWER_WAIT_S = 30.0
"""Seconds a request waits for its batch's commit before it is answered 503 (it is still written)."""
MAX_BODY_BYTES = 64 * 1024 * 1024
"""Largest request body accepted (bytes, as sent); a larger one is answered 413."""


class Receiver:
    """OTLP/HTTP on ``127.0.0.1:port`` (``0``: a free port, then read :attr:`port`) into the database
    ``path``. :meth:`start` opens the database and listens (raises
    :class:`~ctxviewer.store.StoreError` for a database that cannot be written and ``OSError`` for
    a port in use); :meth:`stop` stops listening, writes what is queued and closes the database.
    ``on_problem`` and ``on_written`` as for :class:`~ctxviewer.pipeline.live_writer.LiveWriter`."""

    def __init__(self, path: str | Path, port: int = DEFAULT_PORT, *, queue_batches: int = QUEUE_BATCHES,
                 on_problem: Callable[[ImportProblem], None] | None = None,
                 on_written: Callable[[LiveCounts], None] | None = None) -> None:
        self.writer = LiveWriter(path, queue_batches=queue_batches, on_problem=on_problem, on_written=on_written)
        self._port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def counts(self) -> LiveCounts:
        """The writer's counts (accepted, refused, written, spans, traces)."""
        return self.writer.counts

    @property
    def port(self) -> int:
        """The port listened on (the one chosen when started with ``0``)."""
        return self._server.server_address[1] if self._server is not None else self._port

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``: the ``OTEL_EXPORTER_OTLP_ENDPOINT`` to give an application."""
        return f"http://{HOST}:{self.port}"

    def start(self) -> None:
        """Open the database, bind the port and serve in a background thread."""
        self.writer.start()
        try:
            server = ThreadingHTTPServer((HOST, self._port), _handler(self.writer))
        except BaseException:
            self.writer.stop()
            raise
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="ctxviewer-otlp-http", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop listening, then write every batch already queued and close the database. Idempotent."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.writer.stop()


def _handler(writer: LiveWriter) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "ctxviewer-otlp"

        def log_message(self, format: str, *args: object) -> None:
            pass  # one line per request on stderr would drown the status line

        def do_POST(self) -> None:
            signal = PATHS.get(self.path.split("?", 1)[0])
            length = int(self.headers.get("Content-Length") or 0)
            if signal is None:
                self._answer(404, f"no such OTLP path {self.path!r} (use /v1/traces or /v1/logs)", length)
                return
            if length > MAX_BODY_BYTES:
                self._answer(413, f"body of {length:,} bytes is over {MAX_BODY_BYTES:,}", length)
                return
            body = self.rfile.read(length)
            ctype = self.headers.get("Content-Type")
            try:
                doc = request_dict(decompressed(body, self.headers.get("Content-Encoding")), ctype, signal)
            except UnsupportedMediaType as exc:
                self._answer(415, str(exc))
                return
            except TooLarge as exc:
                self._answer(413, str(exc))
                return
            except BadRequest as exc:
                self._answer(400, str(exc))
                return
            batch = writer.offer(signal, doc)
            if batch is None:
                self._answer(503, "the receiver's queue is full; retry later", retry=True)
                return
            if not batch.done.wait(ANSWER_WAIT_S):
                self._answer(503, "the write is taking long; retry later", retry=True)
                return
            if batch.error is not None:
                self._answer(503, batch.error, retry=True)
                return
            out = response_body(ctype, signal, len(batch.rejected), "; ".join(batch.rejected[:3]))
            self.send_response(200)
            self.send_header("Content-Type", media_type(ctype))
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def do_GET(self) -> None:
            self._answer(405, "OTLP/HTTP takes POST")

        def _answer(self, code: int, message: str, unread: int = 0, *, retry: bool = False) -> None:
            if unread:
                self.close_connection = True  # the body was not read: the connection cannot be reused
            data = message.encode("utf-8")
            self.send_response(code)
            if retry:
                self.send_header("Retry-After", str(RETRY_AFTER_S))
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler
