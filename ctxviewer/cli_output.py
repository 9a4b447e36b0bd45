"""Terminal output of every ``ctxviewer`` command made inert: trace text never drives the terminal.

Trace text is untrusted: a right-to-left override (U+202E) reorders what a reviewer reads, an
escape sequence (``ESC [ 2 J``) clears or recolours the terminal, NUL and other controls vanish.
:func:`install` wraps ``sys.stdout`` and ``sys.stderr`` for the run of one command so that

* text output shows each such character as :func:`ctxviewer.visible.reveal` marks it
  (``⟨RLO⟩``, ``␛``, ``␀``, ``⟨tags: ...⟩``); line feeds and tabs stay;
* ``--json`` output keeps the same data, with those characters written as JSON ``\\uXXXX`` escapes
  (they can only occur inside JSON strings, where the escape means the same character).

Written text without such characters passes unchanged (one C-speed regex search per write).
Files the commands write (``export``, ``report``) are not affected.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, TextIO

import click

from .visible import SUSPECT, reveal


def json_escape(text: str) -> str:
    """``text`` with every :data:`~ctxviewer.visible.SUSPECT` character as a JSON ``\\uXXXX``
    escape (astral characters as a surrogate pair)."""

    def esc(m: Any) -> str:
        cp = ord(m.group())
        if cp > 0xFFFF:
            cp -= 0x10000
            return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"
        return f"\\u{cp:04x}"

    return SUSPECT.sub(esc, text)


def _json_mode() -> bool:
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if ctx.params.get("as_json") or ctx.params.get("fmt") in ("json", "sarif"):
            return True
        ctx = ctx.parent
    return False


class InertStream:
    """A text stream that writes to ``inner`` with invisible and control characters made inert
    (see the module docstring). Other attributes are the inner stream's."""

    def __init__(self, inner: TextIO, json_mode: Callable[[], bool] = _json_mode) -> None:
        self._inner = inner
        self._json_mode = json_mode

    def write(self, text: str) -> int:
        """Write ``text`` made inert; returns the length of ``text`` (as callers expect)."""
        if isinstance(text, str) and SUSPECT.search(text):
            self._inner.write(json_escape(text) if self._json_mode() else reveal(text).text)
        else:
            self._inner.write(text)
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def install() -> Callable[[], None]:
    """Wrap ``sys.stdout`` and ``sys.stderr`` in :class:`InertStream`; returns the undo function."""
    out, err = sys.stdout, sys.stderr
    if not isinstance(out, InertStream):
        sys.stdout = InertStream(out)
    if not isinstance(err, InertStream):
        sys.stderr = InertStream(err)

    def restore() -> None:
        sys.stdout, sys.stderr = out, err

    return restore
