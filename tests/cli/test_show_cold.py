"""``show --json`` in a fresh process (cold scanner: shipped start sets, patterns compiled only where
they may match, issue 11) says exactly what a reference assessment says -- the engine's plain
``finditer`` for every pattern, nothing remembered -- for every sample trace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ctxviewer.assess.scanner import prefilter
from ctxviewer.assess.scanner.registry import scan_text_cached
from ctxviewer.diff.conversation import derive_for_display
from ctxviewer.report.trace_report import trace_summary
from ctxviewer.store import TraceStore

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "samples.db"
INJECTION = [f"ticket-injection: injection.{r}" for r in ("action_linkage", "hidden", "hidden", "hidden", "override", "tool_request")]


def _reference(trace_id: str) -> dict[str, object]:
    with TraceStore.open(SAMPLES) as store:
        trace = derive_for_display(store, store.load(trace_id))
    scan_text_cached.cache_clear()
    with prefilter.plain():
        summary = trace_summary(trace)
    scan_text_cached.cache_clear()
    for entry, item in zip(summary["items"], trace.items):
        entry["text"] = item.content
    return summary


@pytest.mark.slow
def test_show_json_of_every_sample_trace_equals_the_reference_assessment() -> None:
    with TraceStore.open(SAMPLES) as store:
        ids = [row.trace_id for row in store.list()]
    assert len(ids) == 9
    injection: list[str] = []
    for trace_id in ids:
        out = subprocess.run([sys.executable, "-m", "ctxviewer", "show", str(SAMPLES), trace_id, "--json", "--content"],
                             capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert out.returncode == 0, out.stderr
        got = json.loads(out.stdout)
        want = _reference(trace_id)
        assert got == json.loads(json.dumps(want, ensure_ascii=False)), trace_id
        injection += [f"{trace_id}: {f['rule']}" for f in got["findings"] if f["rule"].startswith("injection.")]
    assert injection == INJECTION  # the scanner is exercised: its hits are in the output
