"""Control characters in the window are readable when the font has no control pictures
(new-user s3 finding 6): ⟨ESC⟩ ⟨BEL⟩ ⟨CR⟩ instead of boxes; the trace id in the header stays on
one line; the stored text and the CLI's markers (␛ ␇ ␍) do not change."""

from __future__ import annotations

from typing import Iterator

import pytest
from factories import make_trace

from ctxviewer.gui import control_glyphs
from ctxviewer.util.visible import one_line, use_control_names

EVIL = "evil\x1b]0;PWNED\x07\x1b[2J-id\r\nFAKE"


@pytest.fixture
def restore_markers() -> Iterator[None]:
    previous = use_control_names(False)
    yield
    use_control_names(previous)


def test_named_markers_when_the_font_lacks_the_pictures(qapp, restore_markers, monkeypatch) -> None:
    monkeypatch.setattr(control_glyphs, "has_control_pictures", lambda font: False)
    assert control_glyphs.choose_control_markers() is False  # the previous setting
    assert one_line(EVIL) == "evil⟨ESC⟩]0;PWNED⟨BEL⟩⟨ESC⟩[2J-id⟨CR⟩⏎FAKE"
    monkeypatch.setattr(control_glyphs, "has_control_pictures", lambda font: True)
    assert control_glyphs.choose_control_markers() is True
    assert one_line(EVIL) == "evil␛]0;PWNED␇␛[2J-id␍⏎FAKE"


def test_the_header_shows_the_id_readable_on_one_line(qtbot, restore_markers, monkeypatch) -> None:
    from PySide6.QtWidgets import QLabel

    from ctxviewer.assess.assessment import assess
    from ctxviewer.gui.detail_panel import DetailPanel

    monkeypatch.setattr(control_glyphs, "has_control_pictures", lambda font: False)
    control_glyphs.choose_control_markers()
    trace = make_trace(trace_id=EVIL, service="svc\x1b[31m")
    panel = DetailPanel()
    qtbot.addWidget(panel)
    panel.set_rows(assess(trace).header)
    shown = [lab for lab in panel.findChildren(QLabel) if lab.objectName() in ("detailKey", "detailValue")]
    labels = {key.text(): value for key, value in zip(shown[::2], shown[1::2])}
    assert [key.objectName() for key in shown[::2]] == ["detailKey"] * len(panel.rows())
    assert labels["Trace"].text() == "evil⟨ESC⟩]0;PWNED⟨BEL⟩⟨ESC⟩[2J-id⟨CR⟩⏎FAKE"
    assert labels["Service"].text() == "svc⟨ESC⟩[31m"
    assert trace.trace_id == EVIL  # stored text unchanged
    use_control_names(False)
    assert one_line(trace.trace_id) == "evil␛]0;PWNED␇␛[2J-id␍⏎FAKE"  # the CLI's form

