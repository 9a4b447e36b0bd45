"""Terminal output of every ``ctxviewer`` command made inert: trace text never drives the terminal.

Trace text is untrusted: a right-to-left override (U+202E) reorders what a reviewer reads, an
escape sequence (``ESC [ 2 J``) clears or recolours the terminal, NUL and other controls vanish.
:func:`install` wraps ``sys.stdout`` and ``sys.stderr`` for the run of one command so that

* text output shows each such character as :func:`ctxviewer.util.visible.reveal` marks it
  (``⟨RLO⟩``, ``␛``, ``␀``, ``⟨tags: ...⟩``); line feeds and tabs stay;
* ``--json`` output keeps the same data, with those characters written as JSON ``\\uXXXX`` escapes
  (they can only occur inside JSON strings, where the escape means the same character).

Written text without such characters passes unchanged (one C-speed regex search per write).
Files the commands write (``export``, ``report``) are not affected.

:func:`run` is the one place a command's outcome reaches the terminal (``ctxviewer.cli.main``):
error messages (``Error: ...``, click's and ours) are shown on one line with paths and ids
revealed (:func:`ctxviewer.util.visible.one_line`: ``␛``, ``⏎``), a failed write to standard output
(a full disk, ``> /dev/full``) is one ``Error: standard output: ...`` line with exit status 1
instead of a traceback, and a character the output encoding cannot hold is written as a
backslash escape (``\\u2716``) instead of raising.
"""

from __future__ import annotations

import errno
import io
import os
import re
import sys
from typing import Any, Callable, NoReturn, TextIO

import click

from ctxviewer.cli.status import INTERRUPTED


def json_escape(text: str) -> str:
    """``text`` with every :data:`~ctxviewer.util.visible.SUSPECT` character as a JSON ``\\uXXXX``
    escape (astral characters as a surrogate pair)."""

    def esc(m: Any) -> str:
        cp = ord(m.group())
        if cp > 0xFFFF:
            cp -= 0x10000
            return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"
        return f"\\u{cp:04x}"

    from ctxviewer.util.visible import SUSPECT

    return SUSPECT.sub(esc, text)


def _json_mode() -> bool:
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if ctx.params.get("as_json") or ctx.params.get("fmt") in ("json", "sarif"):
            return True
        ctx = ctx.parent
    return False


_ASCII_SUSPECT = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
"""The ASCII members of :data:`ctxviewer.util.visible.SUSPECT` (C0 controls but tab and line feed,
and DEL): plain ASCII text is tested with this alone, so ``--help`` never imports the full set."""


def _suspect(text: str) -> bool:
    if text.isascii():
        return _ASCII_SUSPECT.search(text) is not None
    from ctxviewer.util.visible import SUSPECT

    return SUSPECT.search(text) is not None


class InertStream:
    """A text stream that writes to ``inner`` with invisible and control characters made inert
    (see the module docstring). Other attributes are the inner stream's."""

    def __init__(self, inner: TextIO, json_mode: Callable[[], bool] = _json_mode, label: str = "") -> None:
        self._inner = inner
        self._json_mode = json_mode
        self._label = label
        self.pipe_closed = False
        """True once a write or flush met ``EPIPE`` (the reader went away: ``| head``)."""

    @property
    def inner(self) -> TextIO:
        """The stream written to (for the progress line's carriage return: :mod:`ctxviewer.cli.progress`)."""
        return self._inner

    def write(self, text: str) -> int:
        """Write ``text`` made inert; returns the length of ``text`` (as callers expect). Raises
        :class:`StreamWriteError` when the inner stream cannot be written (a labelled stream)."""
        try:
            if isinstance(text, str) and _suspect(text):
                from ctxviewer.util.visible import reveal

                self._inner.write(json_escape(text) if self._json_mode() else reveal(text).text)
            else:
                self._inner.write(text)
        except OSError as exc:
            self.pipe_closed |= exc.errno == errno.EPIPE
            if not self._label:
                raise
            raise StreamWriteError(self._label, exc) from None
        return len(text)

    def flush(self) -> None:
        """Flush the inner stream (:class:`StreamWriteError` as for :meth:`write`)."""
        try:
            self._inner.flush()
        except OSError as exc:
            self.pipe_closed |= exc.errno == errno.EPIPE
            if not self._label:
                raise
            raise StreamWriteError(self._label, exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class StreamWriteError(OSError):
    """Writing to standard output failed (``ENOSPC`` on ``> /dev/full``, ``EIO``); the message is
    ``standard output: No space left on device``."""

    def __init__(self, label: str, cause: OSError) -> None:
        super().__init__(cause.errno, f"{label}: {cause.strerror or cause}")
        self.label = label


def install() -> Callable[[], None]:
    """Wrap ``sys.stdout`` and ``sys.stderr`` in :class:`InertStream`; returns the undo function."""
    out, err = sys.stdout, sys.stderr
    if not isinstance(out, InertStream):
        sys.stdout = InertStream(out, label="standard output")
    if not isinstance(err, InertStream):
        sys.stderr = InertStream(err)

    def restore() -> None:
        sys.stdout, sys.stderr = out, err

    return restore


def error_text(exc: click.ClickException) -> str:
    """The message of ``exc`` as ``Error: ...`` shows it: one line, every path, id and other
    embedded text revealed by :func:`ctxviewer.util.visible.one_line` (an ESC or line feed in a file
    name prints as ``␛`` / ``⏎``). Lines a message means to have (``BadInput(detail=...)``, e.g.
    a filter with a caret under the error) follow, indented, with control characters revealed."""
    from ctxviewer.util.visible import one_line, reveal

    text = one_line(exc.message)
    detail = getattr(exc, "detail", "")
    if detail:
        text += "".join("\n  " + reveal(line).text for line in detail.split("\n"))
    return text


def _safe_encoding_errors() -> None:
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")  # latin-1 terminal: \u2716, no traceback


def _silence_stdout() -> None:
    """Point the standard output descriptor at ``os.devnull`` so the exit-time flush of what is
    left in its buffer cannot fail again (Python docs, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ else 1)
    except (OSError, ValueError):
        pass


PIPE_CLOSED = 141
"""The status of a findings gate (``check``, ``scan``) whose reader went away before it finished:
128 + SIGPIPE, as a shell reports a process a closed pipe stopped -- neither a pass nor a finding."""

_gate = False


def gates_on_findings() -> None:
    """Called by a command whose status says whether findings exist (``check``, ``scan``): a closed
    pipe then ends it with :data:`PIPE_CLOSED`, not 0, since the run did not finish."""
    global _gate
    _gate = True


def _pipe_closed() -> bool:
    """Whether standard output's reader went away (:attr:`InertStream.pipe_closed`; click wraps
    the stream once it has caught the ``EPIPE``, so the wrapped one is looked at too)."""
    stream: Any = sys.stdout
    for _ in range(3):
        if isinstance(stream, InertStream):
            return stream.pipe_closed
        stream = getattr(stream, "wrapped", None)
    return False


def run(main: Callable[[], Any]) -> NoReturn:
    """Run ``main`` (a click command's ``main(standalone_mode=False)``) and exit: 0, the command's
    exit code, ``exc.exit_code`` after ``Error: MESSAGE`` (:func:`error_text`) for a
    :class:`click.ClickException`, 130 after ``interrupted`` (Ctrl+C; the commands that write say
    what was kept: :mod:`ctxviewer.cli.interrupted`), 1 after ``Error: standard
    output: ...`` when standard output cannot be written (0 quietly on a closed pipe, ``EPIPE``,
    as ``ctxviewer list x.db | head`` expects; :data:`PIPE_CLOSED` for ``check`` and ``scan``)."""
    global _gate
    _gate = False  # set again by check or scan (gates_on_findings)
    _safe_encoding_errors()
    restore = install()
    code: Any = 0
    try:
        try:
            code = main()
            sys.stdout.flush()
        except SystemExit as exc:  # list's status 2 after its table, scan's 1 after its findings
            code = exc.code
            if code == 1 and _pipe_closed():  # click ends an EPIPE it caught with status 1
                raise StreamWriteError("standard output", BrokenPipeError(errno.EPIPE, "Broken pipe")) from None
            sys.stdout.flush()
        except click.ClickException as exc:
            try:
                sys.stdout.flush()
            except StreamWriteError:  # the reader went away: the error is still said, on standard error
                _silence_stdout()
            exc.message = error_text(exc)  # type: ignore[misc]  # show() composes "Error: " + it
            if hasattr(exc, "detail"):
                exc.detail = ""
            exc.show()
            code = exc.exit_code
        except click.Abort:  # Ctrl+C outside a command's own wording (ctxviewer.cli.interrupted)
            click.echo("interrupted", err=True)
            code = INTERRUPTED
    except StreamWriteError as exc:
        _silence_stdout()
        if exc.errno == errno.EPIPE:
            code = code if code not in (0, None, 1) else PIPE_CLOSED if _gate else 0  # bad input (2) still says so
        else:
            try:
                from ctxviewer.util.visible import one_line

                click.echo(f"Error: {one_line(str(exc.strerror))}", err=True)
            except OSError:
                pass
            code = 1
    finally:
        restore()
    sys.exit(code if isinstance(code, (int, str)) else None)
