"""``injection.invisible`` reports a byte-order mark inside a text (not at its start) and terminal
escape sequences, which the window marks as ``⟨BOM⟩`` and ``␛`` (new-user nu5 finding 9)."""

from __future__ import annotations

from ctxviewer.assess.scanner.invisible import INVISIBLE
from ctxviewer.model.findings import Severity


def _found(text: str) -> list[tuple[int, int, str, str]]:
    return sorted((h.start, h.end, h.severity.value, h.reason) for h in INVISIBLE.find(text))


def test_a_bom_at_the_start_is_normal_and_inside_the_text_is_reported() -> None:
    assert _found("\ufeffA document.") == []
    assert _found("\ufeffPart one.\n\ufeffPart two.") == [
        (11, 12, "info", "1 byte-order mark(s) (U+FEFF) inside the text, where it is an invisible zero-width no-break space")]
    # between two letters it stays the zero-width warning it was, reported once
    assert _found("ig\ufeffnore") == [(2, 3, "warning", "1 zero-width character(s) hidden in the text")]


def test_terminal_escapes_that_move_erase_or_hide_are_warnings_colours_one_info() -> None:
    text = "ok \x1b[31mred\x1b[0m then \x1b[2K\x1b[1A gone \x1b[8msecret\x1b[0m \x1b]0;title\x07 end\x1b"
    assert _found(text) == [
        (3, 8, "info", "3 terminal colour or style escape sequence(s) (first: ESC[31m)"),
        (21, 25, "warning", "terminal escape sequence ESC[2K (moves the cursor, erases, hides text or sets a title or "
                            "link on a terminal)"),
        (25, 29, "warning", "terminal escape sequence ESC[1A (moves the cursor, erases, hides text or sets a title or "
                            "link on a terminal)"),
        (35, 39, "warning", "terminal escape sequence ESC[8m (moves the cursor, erases, hides text or sets a title or "
                            "link on a terminal)"),
        (50, 60, "warning", "terminal escape sequence ESC]0;title^G (moves the cursor, erases, hides text or sets a "
                            "title or link on a terminal)"),
        (64, 65, "warning", "terminal escape sequence ESC (moves the cursor, erases, hides text or sets a title or "
                            "link on a terminal)"),
    ]
    assert all(h.severity is Severity.INFO for h in INVISIBLE.find("\x1b[38;5;8mgrey\x1b[0m"))  # colour 8, not conceal
