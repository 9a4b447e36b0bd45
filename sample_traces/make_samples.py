"""Regenerate the sample traces: ``python -m sample_traces.make_samples`` (from the repository root).

Builds every scenario of issue #2 as a :class:`~ctxviewer.model.trace.RequestTrace` (deterministic, no
network), writes ``sample_traces/traces.jsonl`` (native JSON Lines, one trace per line) and, when
the trace store is available, ``sample_traces/samples.db``.
"""

from __future__ import annotations

import json
from pathlib import Path

from ctxviewer.assess.budget import check_capacity
from ctxviewer.assess.verdict import verdict_text
from ctxviewer.importers.formats.native import mark_recorded
from ctxviewer.model.serialize import trace_to_dict
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.stored_facts import with_facts

from . import scenarios_16k as s16
from . import scenarios_budget as sb
from . import scenarios_cases as sc

HERE = Path(__file__).resolve().parent

FORMAT = "ctxviewer.trace/1"
"""Value of the ``format`` key on every native JSON Lines record."""


def build_traces() -> list[RequestTrace]:
    """All sample traces in a fixed order (their trace ids are stable)."""
    traces = [
        sb.budget_8k(),
        sb.budget_8k_over(),
        s16.history_16k(),
        sc.refund_approval_forgotten(),
        sc.ticket_injection(),
        sc.policy_missing(),
        sc.evidence_in_middle(),
        sc.json_unsupported(),
        sb.budget_8k_replay(),
    ]
    _check(traces)
    return [mark_recorded(t) for t in traces]  # the application counted them (cl100k_base)


def _check(traces: list[RequestTrace]) -> None:
    by_id = {t.trace_id: t for t in traces}
    assert len(by_id) == len(traces), "duplicate trace ids"
    for t in traces:
        from .fitting import ntok

        for it in t.items:
            if it.content is not None:
                assert it.tokens == ntok(it.content), (t.trace_id, it.id)
        positions = [i.position for i in t.retained]
        assert positions == list(range(1, len(positions) + 1)), t.trace_id
        assert all(i.position is None for i in t.omitted), t.trace_id
    b8 = by_id["budget-8k"]
    sb.check_8k_totals(b8)
    assert verdict_text(check_capacity(b8)) == "fits, 800 tokens margin"
    over = check_capacity(by_id["budget-8k-over"])
    assert over.over_before_trim == 700 and over.margin == 800, over
    sb.check_8k_totals(by_id["budget-8k-replay"])
    s16.check_16k(by_id["history-16k"])
    # Counted 14,000 fits with 0 margin, but the provider reported 14,348: not "fits" (issue 7).
    assert verdict_text(check_capacity(by_id["history-16k"])) == (
        "over capacity by 348 tokens by the provider-reported input: had 14,000 tokens left, "
        "needed 14,348 (counted 14,000)")


def jsonl_lines(traces: list[RequestTrace]) -> list[str]:
    """One JSON line per trace: ``{"format": "ctxviewer.trace/1", **trace_to_dict(trace)}``, compact,
    exactly as :func:`ctxviewer.importers.formats.native.trace_line` writes it."""
    return [json.dumps({"format": FORMAT, **trace_to_dict(t)}, ensure_ascii=False, separators=(",", ":")) for t in traces]


def write_jsonl(traces: list[RequestTrace], path: Path) -> None:
    """Write the native JSON Lines file."""
    path.write_text("\n".join(jsonl_lines(traces)) + "\n", encoding="utf-8")


def write_db(traces: list[RequestTrace], path: Path) -> bool:
    """Write the trace database (replacing an old one). Returns False if the store is unavailable."""
    try:
        from ctxviewer.store import TraceStore  # type: ignore[attr-defined]
    except ImportError:
        return False
    if path.exists():
        if _db_holds(path, traces):
            return True  # unchanged: keep the file (SQLite bytes differ between writes)
        path.unlink()
    with TraceStore.create(path) as st:
        st.add(with_facts(traces))
    return True


def _db_holds(path: Path, traces: list[RequestTrace]) -> bool:
    """True if the database at ``path`` holds exactly ``traces`` (and nothing else)."""
    from ctxviewer.store import TraceStore  # type: ignore[attr-defined]

    try:
        with TraceStore.open(path) as st:
            if st.count() != len(traces):
                return False
            if not all(st.load(t.trace_id) == t for t in traces):
                return False
            from ctxviewer.assess.assessment import assess  # stored facts must match today's checks
            from ctxviewer.assess.context import EMPTY

            rows = {r.trace_id: r for r in st.list(None, 0, -1)}
            return all((rows[t.trace_id].state, rows[t.trace_id].verdict, rows[t.trace_id].facts_context)
                       == (a.state.value, a.verdict, EMPTY.fingerprint)  # a new rule set's version rewrites it
                       for t in traces for a in [assess(t)])
    except Exception:  # an old, newer or broken file is simply rewritten
        return False


def main(out_dir: Path = HERE) -> None:
    """Build the traces and write ``traces.jsonl`` and ``samples.db`` into ``out_dir``."""
    traces = build_traces()
    write_jsonl(traces, out_dir / "traces.jsonl")
    wrote_db = write_db(traces, out_dir / "samples.db")
    for t in traces:
        chk = check_capacity(t)
        print(f"{t.trace_id:28} {len(t.retained):3} retained {len(t.omitted):3} omitted  {verdict_text(chk)}")
    print(f"wrote {out_dir / 'traces.jsonl'}" + (f" and {out_dir / 'samples.db'}" if wrote_db else " (store not available: no samples.db)"))


if __name__ == "__main__":
    main()
