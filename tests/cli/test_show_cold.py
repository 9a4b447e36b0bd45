"""``show --json`` in a fresh process (cold scanner: shipped start sets, patterns compiled only where
they may match, issue 11) says exactly what a reference assessment says -- the engine's plain
``finditer`` for every pattern, nothing remembered -- for every sample trace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ctxviewer.diff.conversation import derive_for_display
from ctxviewer.report import trace_summary
from ctxviewer.scanner import prefilter
from ctxviewer.scanner.registry import scan_text_cached
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


def test_a_cold_show_compiles_no_rule_pattern_and_builds_only_those_that_may_match() -> None:
    """In a fresh process, ``show --json`` builds the rule patterns it needs from the shipped code
    (none goes through ``re.compile``: none is in its cache) and leaves most of them unbuilt."""
    probe = (
        "import io, contextlib, json, re\n"
        "from ctxviewer.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main(['show', {str(SAMPLES)!r}, 'budget-8k', '--json'])\n"
        "    except SystemExit as exc:\n"
        "        assert not exc.code, exc.code\n"
        "from ctxviewer.scanner._api import LazyPattern\n"
        "from ctxviewer.scanner.registry import all_patterns\n"
        "lazy = [p for p in dict.fromkeys(all_patterns()) if isinstance(p, LazyPattern)]\n"
        "built = [p for p in lazy if p._compiled is not None]\n"
        "cached = [p.pattern[:40] for p in lazy if (type(p.pattern), p.pattern, p.flags) in re._cache]\n"
        "print('@@' + json.dumps({'lazy': len(lazy), 'built': len(built), 'cached': cached}))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(next(x for x in out.stdout.splitlines() if x.startswith("@@"))[2:])
    assert got["lazy"] == 89 and got["cached"] == []
    assert 5 <= got["built"] <= 45, got  # budget-8k's 11 scanned texts: 38 of 89 today
