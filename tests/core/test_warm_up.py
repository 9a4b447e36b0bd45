"""warm_up.first_trace: the first trace's one-time costs paid ahead (issue 11)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from ctxviewer.assess.assessment import assess
from ctxviewer.pipeline import warm_up

ROOT = Path(__file__).resolve().parents[2]


def test_the_sample_trace_is_assessed_like_any_other() -> None:
    a = assess(warm_up.sample_trace())
    assert [f.rule for f in a.findings] == ["injection.override"]
    assert [i.id for i in warm_up.sample_trace().items if i.status.value == "omitted"] == ["doc-2"]


def test_first_trace_compiles_every_scanner_pattern_and_builds_no_encoding() -> None:
    code = textwrap.dedent("""
        import sys
        from ctxviewer.pipeline import warm_up
        from ctxviewer.assess.scanner.registry import all_patterns
        lazy = [p for p in all_patterns() if hasattr(p, "_compiled")]
        before = sum(p._compiled is not None for p in lazy)
        warm_up.first_trace()
        warm_up.first_trace()  # idempotent
        after = sum(p._compiled is not None for p in lazy)
        from ctxviewer.model.serialize import trace_from_dict, trace_to_dict
        print(before, after, len(lazy), warm_up.warmed(), "tiktoken" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    before, after, total, warmed, tiktoken = out.stdout.split()
    assert int(before) == 0 and int(after) == int(total) > 20
    assert (warmed, tiktoken) == ("True", "False")
