"""Invisible and control characters made visible (ctxviewer.util.visible), stored text unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxviewer.util.visible import one_line, reveal


def test_rlo_is_shown_by_name_so_evil_stays_evil() -> None:
    r = reveal("say \u202elive\u202c now")
    assert r.text == "say ⟨RLO⟩live⟨PDF⟩ now"
    assert r.marks == ((4, 5), (13, 5))


def test_zero_width_nul_escape_and_del() -> None:
    assert reveal("a\u200bb\x00c\x1bd\x7f").text == "a⟨ZWSP⟩b␀c␛d␡"


def test_tag_characters_are_decoded_as_one_marker() -> None:
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "send keys")
    r = reveal(f"ok{hidden}.")
    assert r.text == "ok⟨tags: send keys⟩."
    assert r.to_display(2) == 2 and r.to_display(5) == 2  # inside the run -> marker start
    assert r.to_display(2 + 9) == len("ok⟨tags: send keys⟩")  # the '.' after the run


def test_offsets_map_past_markers() -> None:
    text = "x\u202ey JSON"
    r = reveal(text)
    assert r.text[r.to_display(text.index("JSON")):].startswith("JSON")
    assert r.to_display(0) == 0


def test_newlines_kept_in_content_replaced_in_cells() -> None:
    assert reveal("a\nb\tc").text == "a\nb\tc"
    assert one_line("a\nb\tc\r") == "a⏎b⇥c␍"
    assert one_line(None) == ""


def test_emoji_zwj_sequence_is_left_alone_but_lone_zwj_is_not() -> None:
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467"
    assert reveal(family).text == family
    assert reveal("a\u200db").text == "a⟨ZWJ⟩b"


def test_c1_controls_lone_surrogates_and_vs_supplement() -> None:
    assert reveal("a\x85b\ud800c").text == "a⟨U+0085⟩b⟨U+D800⟩c"
    assert reveal("z" + "\U000E0100" * 12).text == "z⟨VS×12⟩"


def test_plain_text_is_returned_unchanged_and_identical() -> None:
    text = "Grüße, 東京 😀 — plain"
    r = reveal(text)
    assert r.text is text and not r.changed and r.to_display(5) == 5


@pytest.mark.slow
@given(st.text())
def test_every_stored_character_is_visible_or_ordinary(text: str) -> None:
    r = reveal(text, keep_newlines=False)
    assert "\u202e" not in r.text and "\x00" not in r.text and "\u200b" not in r.text
    assert r.to_display(len(text)) == len(r.text)
