"""``ctxviewer list`` fits a 100-column terminal by default and ``--wide`` shows every column
(issue 27 item 1): widths in display columns (wcwidth: a CJK character is two)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import make_trace

from ctxviewer.cli import cli
from ctxviewer.cli.cells import elide, text_width
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.present.columns import TRACE_COLUMNS
from ctxviewer.store import TraceStore

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
NARROW = ["Time (UTC)", "Trace id", "Model", "Retained / omitted", "State"]
LONG_ID = "4bf92f3577b34da6a3ce929d0e0e4736:00f067aa0ba902b7"  # OTel trace id : span id
LONGER_ID = "customer-support-agent-nightly-regression-run-2026-12-03-batch-0042"
CJK_MODEL = "通义千问-超长上下文-企业版-2026-12"  # 20 wide characters: 36 display columns


def _list(*args: str) -> list[str]:
    res = CliRunner().invoke(cli, ["list", *args])
    assert res.exit_code == 0, res.output
    return res.stdout.splitlines()


@pytest.fixture
def long_db(tmp_path: Path) -> Path:
    base = make_trace()
    path = tmp_path / "long.db"
    with TraceStore.create(path) as st:
        st.add(with_facts([
            replace(base, trace_id=LONG_ID, endpoint=replace(base.endpoint, model="gpt-4o-mini-2024-07-18-ft:acme:support:9f3k2")),
            replace(base, trace_id=LONGER_ID, endpoint=replace(base.endpoint, model=CJK_MODEL)),
            replace(base, trace_id="short"),
        ]))
    return path


def test_the_samples_fit_100_columns_with_every_trace_id_whole() -> None:
    lines = _list(str(SAMPLES))
    assert max(text_width(line) for line in lines) <= 100
    assert [h.strip() for h in lines[0].split("  ") if h.strip()] == NARROW
    ids = [r["trace_id"] for r in json.loads(CliRunner().invoke(cli, ["list", str(SAMPLES), "--json"]).stdout)]
    assert len(lines) == len(ids) + 2
    assert [line.split()[2] for line in lines[2:]] == ids  # the id is what `show` takes: never cut here


def test_long_ids_and_models_are_elided_to_fit(long_db: Path) -> None:
    lines = _list(str(long_db))
    assert [h.strip() for h in lines[0].split("  ") if h.strip()] == NARROW
    assert max(text_width(line) for line in lines) <= 100
    assert len(lines) == 5
    otel = next(line for line in lines[2:] if line.split()[2].startswith("4bf92f35"))
    head, tail = otel.split()[2].split("…")
    assert LONG_ID.startswith(head) and LONG_ID.endswith(tail) and tail.endswith(":00f067aa0ba902b7")  # span part kept
    assert "gpt-4o-mini-2024-07-18-ft:acme:support:9f3k2" not in otel and "gpt-4o-mini" in otel
    cjk = next(line for line in lines[2:] if "通义" in line)
    assert "…" in cjk and CJK_MODEL not in cjk
    assert "short" in [line.split()[2] for line in lines[2:]]  # short cells stay whole


def test_wide_shows_every_column_in_full(long_db: Path) -> None:
    lines = _list(str(long_db), "--wide")
    assert [h.strip() for h in lines[0].split("  ") if h.strip()] == [c.title for c in TRACE_COLUMNS]
    text = "\n".join(lines)
    assert LONG_ID in text and LONGER_ID in text and CJK_MODEL in text
    assert "gpt-4o-mini-2024-07-18-ft:acme:support:9f3k2" in text and "…" not in text
    assert max(text_width(line) for line in lines) > 100
    samples = _list(str(SAMPLES), "--wide")
    assert [h.strip() for h in samples[0].split("  ") if h.strip()] == [c.title for c in TRACE_COLUMNS]
    assert "gpt-4o-mini-2024-07-18" in samples[2]


def test_json_is_unchanged_by_the_narrow_table(long_db: Path) -> None:
    rows = json.loads(CliRunner().invoke(cli, ["list", str(long_db), "--json"]).stdout)
    assert [(r["trace_id"], r["model"]) for r in rows][:2] == [
        (LONG_ID, "gpt-4o-mini-2024-07-18-ft:acme:support:9f3k2"), (LONGER_ID, CJK_MODEL)]


def test_elide_counts_display_columns() -> None:
    assert elide("gpt-4o-mini-2024-07-18", 12) == "gpt-4o-mini…"
    assert elide("abcdefghij:0123456789", 12, "middle") == "abcde…456789"
    assert elide("通义千问模型", 7) == "通义千…" and text_width("通义千…") == 7
    assert elide("通义千问模型", 6) == "通义…" and text_width(elide("通义千问模型", 6)) == 5
    assert elide("short", 12) == "short"


def test_measuring_elided_cells_in_a_pass_of_their_own_gives_the_same_table(
        long_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table measures plain-ASCII elastic cells by their length and keeps the others (the CJK
    model) to measure elided; with no room to keep them it takes one more pass: the same lines."""
    import ctxviewer.cli.list_table as list_table

    kept = [_list(str(long_db)), _list(str(SAMPLES))]
    monkeypatch.setattr(list_table, "ODD_TEXTS", 0)
    assert [_list(str(long_db)), _list(str(SAMPLES))] == kept
    assert any("通义" in line and "…" in line for line in kept[0])


def test_spaces_around_a_trace_id_are_shown(tmp_path: Path) -> None:
    """A new user's finding: a trace id "  spaced  " was listed as "spaced", which `show` cannot find."""
    import json as _json

    from ctxviewer.util.visible import visible_id

    assert visible_id("  spaced  ") == "␣␣spaced␣␣"
    assert visible_id("two words") == "two words" and visible_id("plain") == "plain"
    root = Path(__file__).resolve().parents[2]
    rec = _json.loads((root / "sample_traces" / "traces.jsonl").read_text().splitlines()[0])
    rec["trace_id"] = "  spaced  "
    src = tmp_path / "weird.jsonl"
    src.write_text(_json.dumps(rec) + "\n")
    db = tmp_path / "w.db"
    assert CliRunner().invoke(cli, ["import", str(src), "-o", str(db)]).exit_code == 0
    out = CliRunner().invoke(cli, ["list", str(db)]).stdout
    assert out.splitlines()[2].split()[2] == "␣␣spaced␣␣"
    assert CliRunner().invoke(cli, ["show", str(db), "  spaced  "]).exit_code == 0
