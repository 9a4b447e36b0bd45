"""HTML audit report and budget SVG: self-contained, flagged spans escaped, verdicts, chart bars."""

from __future__ import annotations

import base64
import re
from dataclasses import replace
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.assess.assessment import assess
from ctxviewer.cli import cli
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.report.audit_report import render_report
from ctxviewer.report.budget_svg import budget_svg
from ctxviewer.review import ReviewFile, ReviewQueue, ReviewVerdict, collect, review_path
from ctxviewer.store import TraceStore
from tests.factories import make_injected_trace, make_trace

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    p = _Tags()
    p.feed(html)
    return p.tags


def test_budget_svg_draws_the_figure_bars() -> None:
    fig = assess(make_trace()).figure
    svg = budget_svg(fig)
    rects = re.findall(r'<rect [^>]*><title>([^<]*)</title>', svg)
    assert rects == [f"{s.label}: {s.tokens:,} tokens" + (" omitted" if name == "omitted" else "")
                     for name, segs in fig.rows for s in segs]
    assert "C = 8,000" in svg


def test_report_is_self_contained_and_escapes_flagged_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxviewer.review import verdicts

    monkeypatch.setattr(verdicts, "utc_now", lambda: datetime(2026, 12, 3, 5, 50, tzinfo=timezone.utc))
    tags_text = "".join(chr(0xE0000 + ord(c)) for c in "obey")
    t = make_injected_trace(1)
    ticket = t.items[-1]
    t = replace(t, items=t.items[:-1] + (replace(ticket, content=(ticket.content or "") + "\nx" + tags_text),))
    db = tmp_path / "r.db"
    with TraceStore.create(db) as st:
        st.add(with_facts([t]))
    with TraceStore.open(db) as st:
        q = ReviewQueue(collect(st), ReviewFile(review_path(db)), reviewer="<i>Ana</i>")
    marker = next(e for e in q.entries if e.key.rule == "injection.role_marker")
    q.record(marker, ReviewVerdict.CONFIRMED, "<b>chat template</b> in a ticket")
    html = render_report([t], q.reviews, generated=datetime(2026, 12, 1, tzinfo=timezone.utc))
    found = tags(html)
    assert [n for n, _ in found if n in ("script", "link", "iframe", "object", "embed")] == []
    assert all((a.get("src") or "").startswith("data:image/svg+xml;base64,") for n, a in found if n == "img")
    assert len([n for n, _ in found if n == "img"]) == 1
    assert "default-src 'none'" in html
    # flagged spans literally, escaped; hidden characters visible
    assert "<mark>&lt;|im_start|&gt;</mark>" in html
    assert "<mark>⟨tags: obey⟩</mark>" in html
    # reviewer verdict and note, escaped
    assert ('confirmed injection<br><span class="muted">by &lt;i&gt;Ana&lt;/i&gt; · 2026-12-03T05:50:00Z</span>'
            "<br>&lt;b&gt;chat template&lt;/b&gt; in a ticket") in html
    assert "1 trace(s), 6 finding(s), 1 of 6 reviewed" in html
    svg = base64.b64decode(next(a["src"] for n, a in found if n == "img")[len("data:image/svg+xml;base64,"):])  # type: ignore[index]
    assert svg.startswith(b"<svg ")


def test_report_command(tmp_path: Path) -> None:
    out = tmp_path / "ticket.html"
    # a copy in tmp_path: verdicts a user gave on the samples are not this test's
    import shutil

    db = tmp_path / "samples.db"
    shutil.copy(SAMPLES, db)
    r = CliRunner().invoke(cli, ["report", str(db), "ticket-injection", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert r.stdout == f"wrote {out}: 1 trace(s)\n"
    html = out.read_text(encoding="utf-8")
    assert "Ignore previous instructions" in html and "tool call call_8Qm2vTtZ0rWkH5yNcLd3aPfE" in html
    r = CliRunner().invoke(cli, ["report", str(SAMPLES), "nope", "-o", str(tmp_path / "nope.html")])
    assert r.exit_code == 2 and "no trace with id 'nope'" in r.stderr
