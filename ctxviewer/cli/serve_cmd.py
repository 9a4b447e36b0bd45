"""``ctxviewer serve -o DB [--port 4318]``: the live OTLP receiver on 127.0.0.1.

Registered on the ``ctxviewer`` group in :mod:`ctxviewer.cli`; the receiver is
:class:`ctxviewer.pipeline.otlp_receiver.Receiver`, the one the window's File › Listen for Traces…
starts. Standard error says where it listens (a line a script can read the port from), each
distinct problem of the spans received, refused batches (back-pressure) and, when stopped (Ctrl+C
or SIGTERM), what was written.
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import threading
from types import FrameType

import click

from ctxviewer.cli.status import BadInput


@click.command("serve")
@click.option("-o", "--output", "db", required=True, type=click.Path(dir_okay=False),
              help="Trace database to create or add to.")
@click.option("--port", type=click.IntRange(0, 65535), default=4318, show_default=True,
              help="Port on 127.0.0.1 (0: any free port, printed when listening).")
@click.option("--queue", "queue_batches", type=click.IntRange(1, 100_000), default=256, show_default=True,
              help="Batches waiting to be written before more are refused with 503 and Retry-After.")
def serve_cmd(db: str, port: int, queue_batches: int) -> None:
    """Receive OpenTelemetry spans over OTLP/HTTP on 127.0.0.1 and write them into DB as they arrive.

    Point an application's OTEL_EXPORTER_OTLP_ENDPOINT at the address printed: POST /v1/traces and
    /v1/logs, protobuf or JSON, gzip or not. Each chat span becomes a trace, mapped as `import`
    maps an OTLP file; a trace is rewritten when more of its spans arrive. A batch is answered 200
    once committed; a full queue answers 503 with Retry-After (the client retries; refused batches
    are counted). Open DB in the window or with `list` meanwhile: readers are never blocked.
    Ctrl+C stops: queued batches are written first.

    \b
    Example:
        ctxviewer serve -o traces.db
        OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 python my_app.py
    """
    from ctxviewer.cli.output_path import unwritable_folder
    from ctxviewer.cli.progress import StatusLine
    from ctxviewer.cli.write import check_place
    from ctxviewer.pipeline.importing import remove_database
    from ctxviewer.pipeline.otlp_receiver import Receiver
    from ctxviewer.store import StoreError
    from ctxviewer.util.visible import one_line

    check_place(db)  # an empty name, a missing folder: usage error (2), as every -o says it
    if not os.path.lexists(db) and (unwritable := unwritable_folder(db)) is not None:
        raise click.ClickException(f"{db}: cannot write: {unwritable}")  # 1, as import -o
    said: queue.SimpleQueue[str] = queue.SimpleQueue()  # lines from the writer thread, printed here

    def problem(p: object) -> None:
        said.put(f"warning: {one_line(str(p))}")

    existed = os.path.lexists(db)
    receiver = Receiver(db, port, queue_batches=queue_batches, on_problem=problem)
    try:
        receiver.start()
    except StoreError as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:
        if not existed:
            remove_database(db)
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    stop = threading.Event()

    def on_term(_sig: int, _frame: FrameType | None) -> None:
        stop.set()

    old_term = signal.signal(signal.SIGTERM, on_term)
    click.echo(f"listening on {receiver.url} (OTLP/HTTP /v1/traces, /v1/logs) into {one_line(db)}; "
               "Ctrl+C stops", err=True)
    sys.stderr.flush()
    line = StatusLine()  # on a terminal only: what arrived so far
    told = 0
    try:
        while not stop.wait(0.5):
            c = receiver.counts
            lines = []
            while not said.empty():
                lines.append(said.get())
            if c.refused > told:
                lines.append(f"refused {c.refused - told:,} batch(es): the queue was full "
                             f"(503 Retry-After; {c.refused:,} refused in all)")
                told = c.refused
            if lines:
                line.clear()
                click.echo("\n".join(lines), err=True)
            line.show(f"{c.spans:,} spans · {c.new_trace_ids:,} traces · {c.written:,} batches written · "
                      f"{c.refused:,} refused")
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, old_term)
        line.clear()
        receiver.stop()
    while not said.empty():
        click.echo(said.get(), err=True)
    c = receiver.counts
    click.echo(f"stopped: {c.written:,} batch(es) written ({c.spans:,} spans, {c.new_trace_ids:,} trace(s)) "
               f"into {one_line(db)}; {c.refused:,} refused, {c.failed:,} failed", err=True)
