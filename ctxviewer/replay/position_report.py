"""A position test's analysis in words and as JSON: what ``ctxviewer position-test``,
``ctxviewer position-results`` and the window's Position Test panel show (one text for all).

:func:`render_analysis` is the text report; :func:`analysis_json` the JSON object; :func:`curve`
the points the chart draws (position, accuracy and the Wilson interval's ends). No Qt here.
"""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from ctxviewer.replay.stats import Analysis


def analysis_json(a: Analysis) -> dict[str, Any]:
    """The analysis as JSON: ``unit``, ``positions[{position, accuracy, low, high, n, runs}]``,
    ``cochran_q{q, df, p}``, ``mcnemar[{a, b, b_only, c_only, p}]``, ``spread{best, worst, value, low, high}``, ``notes``."""
    return {"unit": a.unit,
            "positions": [vars(p) for p in a.positions],
            "cochran_q": None if a.cochran is None else dict(zip(("q", "df", "p"), a.cochran)),
            "mcnemar": [dict(zip(("a", "b", "b_only", "c_only", "p"), m)) for m in a.mcnemar],
            "spread": None if a.spread is None else dict(zip(("best", "worst", "value", "low", "high"), a.spread)),
            "notes": list(a.notes)}


def render_analysis(a: Analysis) -> str:
    """The text report: a table of accuracy per position with the Wilson 95 % interval, Cochran's Q,
    each pair's exact McNemar p, the best - worst spread with its bootstrap interval, the notes."""
    runs = a.unit != "runs"  # one item: its runs are the unit, said once (not two columns "runs")
    rows = [[p.position, f"{p.accuracy:.2f}", f"[{p.low:.2f}, {p.high:.2f}]", p.n] + ([p.runs] if runs else [])
            for p in a.positions]
    lines = [tabulate(rows, headers=["position", "accuracy", "95% interval (Wilson)", a.unit] + (["runs"] if runs else []),
                      colalign=("right", "right", "left", "right", "right")[:5 if runs else 4], disable_numparse=True)]
    if a.cochran is not None:
        q, df, p = a.cochran
        lines.append(f"Cochran's Q = {q:.2f} (df {df}), p = {p:.4g}")
    for pa, pb, b, c, p in a.mcnemar:
        lines.append(f"McNemar {pa} vs {pb}: {b} right only at {pa}, {c} right only at {pb}, exact p = {p:.4g}")
    if a.spread is not None:
        best, worst, v, low, high = a.spread
        lines.append(f"best - worst: position {best} - position {worst} = {v:+.2f}, 95% bootstrap interval [{low:+.2f}, {high:+.2f}]")
    lines += [f"note: {n}" for n in a.notes]
    return "\n".join(lines)


def curve(a: Analysis) -> list[tuple[int, float, float, float]]:
    """``(position, accuracy, low, high)`` per position, in position order (the chart's points and
    error bars)."""
    return [(p.position, p.accuracy, p.low, p.high) for p in a.positions]
