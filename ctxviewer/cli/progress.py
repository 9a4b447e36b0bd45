"""One line of progress on standard error while a long command works (``import``, ``check``,
``export``, ``search``): ``"importing file 1 of 1 (spans.otlp.json) · 2,300 traces · 410/s"``.

Only on a terminal: when standard error is not a TTY (a pipe, a file, a CI log, the test runner)
:class:`StatusLine` writes nothing at all, so redirected output and ``--json`` never hold a progress
line. On a terminal the line is rewritten in place (carriage return) at most every
:data:`EVERY_S` seconds, cut to the terminal's width so it never wraps, and cleared (overwritten
with spaces) before the command prints its result or an error. Paths and other text in it are
shown with invisible characters revealed (:func:`ctxviewer.util.visible.one_line`), as every
line of the CLI. :class:`Ticker` keeps the line moving while one long step (an SQLite query)
gives no count: it redraws the elapsed time from a background thread.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, Callable, TextIO

from ctxviewer.cli.cells import elide, text_width
from ctxviewer.util.visible import one_line

EVERY_S = 0.1
"""Least time between two redraws of the line (seconds); the first and a ``force``-d one are drawn
at once."""
TICK_S = 0.5
"""How often a :class:`Ticker` redraws the elapsed time (seconds)."""


def _terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # closed, or not a real stream
        return False


def rate(count: int, seconds: float) -> str:
    """``"410/s"`` (``count`` per second, thousands grouped); ``""`` before any time has passed."""
    return f"{count / seconds:,.0f}/s" if seconds > 0 else ""


class StatusLine:
    """The progress line on ``stream`` (default: standard error as the process opened it, under
    the CLI's inert wrapper, so the carriage return reaches the terminal). Draws nothing unless
    ``stream`` is a terminal (:attr:`live`). Use as a context manager: the line is cleared on
    leaving, also on an error or Ctrl+C. Thread-safe (a :class:`Ticker` draws from its thread)."""

    def __init__(self, stream: TextIO | None = None, *, enabled: bool = True) -> None:
        self.stream = stream if stream is not None else _raw_stderr()
        self.live = enabled and _terminal(self.stream)
        """Whether anything is drawn: ``enabled`` (a command passes ``not --json``) and the stream
        is a terminal."""
        self.started = time.monotonic()
        self._last = -1.0
        self._width = 0
        self._lock = threading.Lock()

    @property
    def elapsed(self) -> float:
        """Seconds since the line was made."""
        return time.monotonic() - self.started

    def show(self, text: str, *, force: bool = False) -> None:
        """Draw ``text`` in place of the line shown (at most every :data:`EVERY_S` seconds unless
        ``force``); nothing when not :attr:`live`."""
        if not self.live:
            return
        now = time.monotonic()
        with self._lock:
            if not force and self._last >= 0 and now - self._last < EVERY_S:
                return
            self._last = now
            import shutil  # a live line only (on a terminal): bz2 and lzma come with it

            room = max(shutil.get_terminal_size((100, 24)).columns - 1, 10)
            line = elide(one_line(text), room)
            width = text_width(line)
            self._write("\r" + line + " " * max(self._width - width, 0))
            self._width = width

    def clear(self) -> None:
        """Remove the line (spaces over it, cursor back at the start); nothing when none is shown."""
        with self._lock:
            if self._width:
                self._write("\r" + " " * self._width + "\r")
                self._width = 0

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a terminal gone away: progress is not worth an error
            self.live = False

    def __enter__(self) -> StatusLine:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.clear()


class Ticker:
    """While inside, redraw ``line`` with ``text(seconds)`` (seconds since the block began) every
    :data:`TICK_S` seconds from a background thread: for one long step without counts (``"searching traces.db · 3 s"``).
    Does nothing when the line is not live."""

    def __init__(self, line: StatusLine, text: Callable[[float], str]) -> None:
        self.line = line
        self.text = text
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = time.monotonic()

    def _run(self) -> None:
        while not self._stop.wait(TICK_S):
            self.line.show(self.text(time.monotonic() - self._started), force=True)

    def __enter__(self) -> Ticker:
        self._started = time.monotonic()
        if self.line.live:
            self.line.show(self.text(0.0), force=True)
            self._thread = threading.Thread(target=self._run, name="ctxviewer-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.line.clear()


class ImportProgress:
    """The import's progress line: ``"importing file 1 of 2 · 2,300 trace(s) read · 410/s"``, then
    ``"read 2 file(s), 5,000 trace(s); writing to traces.db"``; a long step inside one record
    appends what it is doing (``"counting tokens: 40 % of 52.4 million characters"``). Its methods
    are the callbacks of :func:`ctxviewer.pipeline.importing.import_into` (``progress``, ``read``,
    ``activity``)."""

    def __init__(self, line: StatusLine, db: str) -> None:
        self.line = line
        self.db = db
        self.files = (0, 0)
        self.traces = 0
        self.activity = ""

    def on_files(self, done: int, total: int) -> None:
        """``progress(files_done, files_total)``: after each file (and ``(0, total)`` first)."""
        self.files, self.activity = (done, total), ""
        self.line.show(self.text(), force=done == total)

    def on_read(self, traces: int) -> None:
        """``read(traces_read_so_far)``: after each trace read."""
        self.traces, self.activity = traces, ""
        self.line.show(self.text())

    def on_activity(self, message: str) -> None:
        """``activity(message)``: how far a long step inside one record is."""
        self.activity = message
        self.line.show(self.text())

    def text(self) -> str:
        """The line for the counts so far."""
        done, total = self.files
        traces = f"{self.traces:,} trace(s)"
        if total and done >= total:
            parts = [f"read {total:,} file(s), {traces}; writing to {self.db}"]
        else:
            parts = [f"importing file {min(done + 1, total):,} of {total:,}" if total else "importing",
                     f"{traces} read", rate(self.traces, self.line.elapsed)]
        return " · ".join(p for p in (*parts, self.activity) if p)


def _raw_stderr() -> TextIO:
    """Standard error beneath the CLI's inert wrapper (:class:`ctxviewer.cli.output.InertStream`),
    whose revealing would print a carriage return as a marker."""
    from ctxviewer.cli.output import InertStream

    err = sys.stderr
    return err.inner if isinstance(err, InertStream) else err
