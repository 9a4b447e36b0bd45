"""The display-filter language's error: :class:`FilterError`, a message and the 0-based code-point
column where the problem starts, raised by the parser (:mod:`~ctxviewer.store.filters.grammar`) and
the compilers (:mod:`~ctxviewer.store.filters.compiler`, :mod:`~ctxviewer.store.filters.conditions`).
"""

from __future__ import annotations


class FilterError(ValueError):
    """A filter text that cannot be parsed or compiled. ``position`` is the 0-based column (code
    points) where the problem starts (``len(text)`` for "ended too early"); ``message`` says what
    was expected or what is wrong, without the position."""

    def __init__(self, message: str, position: int, text: str = "") -> None:
        super().__init__(f"{message} (at column {position + 1})")
        self.message = message
        self.position = position
        self.text = text

    def caret(self) -> str:
        """Two lines: the filter text and a ``^`` under the error position (for terminals)."""
        return f"{self.text}\n{' ' * self.position}^"


def pos_or_end(start: int | None, text: str) -> int:
    """``start``, or ``len(text)`` (the end of the filter) when the position is not known."""
    return len(text) if start is None else start
