"""The budget chart as a standalone SVG image (for the HTML report; no Qt, no network).

Draws the same :class:`~ctxviewer.assess.assessment.BudgetFigure` the window's chart paints: the
"used" bar (retained tokens per category, reserved output, margin or overflow), the "declared
budget" bar when the trace declares one, the "omitted" bar (outlined) when items were omitted, the C line (or the input-limit line in separate mode)
or the note "capacity not recorded", and a legend. Every text is shown on one line with control and invisible characters as markers
(:func:`ctxviewer.util.visible.one_line`) and XML-escaped; token counts are
the figure's, in tokens of the trace's encoding.
"""

from __future__ import annotations

from html import escape

from ctxviewer.assess.assessment import BudgetFigure
from ctxviewer.model.words import fmt_int
from ctxviewer.util.visible import one_line

COLORS: dict[str, str] = {
    "sys": "#2563eb", "hist": "#059669", "memory": "#0d9488", "evidence": "#d97706", "tools": "#7c3aed",
    "user": "#db2777", "out": "#475569", "margin": "#e5e7eb", "unaccounted": "#a8a29e", "over": "#dc2626",
}
"""Fill colour per segment key; the same palette as the window's chart (``gui/budget_chart.py``)."""

WIDTH, LEFT, RIGHT, ROW_H, BAR_H, TOP = 760, 90, 20, 44, 28, 24


def budget_svg(fig: BudgetFigure) -> str:
    """An ``<svg>`` element (UTF-8 text) drawing ``fig``; about 760 px wide."""
    plot_w = WIDTH - LEFT - RIGHT
    scale = plot_w / fig.x_max if fig.x_max else 1.0
    rows = fig.rows
    legend_y = TOP + ROW_H * len(rows) + 18
    height = legend_y + 28
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" '
           'role="img" aria-label="token budget chart" font-family="sans-serif" font-size="12">']
    for r, (name, segments) in enumerate(rows):
        y = TOP + r * ROW_H
        out.append(f'<text x="{LEFT - 8}" y="{y + BAR_H / 2 + 4}" text-anchor="end" fill="#111827">{escape(one_line(name))}</text>')
        for s in segments:
            x, w = LEFT + s.start * scale, max(s.tokens * scale, 0.5)
            color = COLORS.get(s.key, "#9ca3af")
            paint = (f'fill="{color}" fill-opacity="0.25" stroke="{color}" stroke-width="1.5"' if name == "omitted"
                     else f'fill="{color}" stroke="#ffffff"')  # omitted: outlined, not solid
            what = " omitted" if name == "omitted" else ""
            out.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{BAR_H}" {paint}>'
                       f'<title>{escape(one_line(s.label))}: {fmt_int(s.tokens)} tokens{what}</title></rect>')
            if w > 44:
                ink = "#111827" if s.key == "margin" or name == "omitted" else "#ffffff"
                out.append(f'<text x="{x + w / 2:.1f}" y="{y + BAR_H / 2 + 4}" text-anchor="middle" fill="{ink}">'
                           f'{fmt_int(s.tokens)}</text>')
    bottom = TOP + ROW_H * len(rows) - (ROW_H - BAR_H)
    for x_tok, label in ((fig.capacity_line, "C"), (fig.input_limit_line, "input limit")):
        if x_tok is not None:
            x = LEFT + x_tok * scale
            out.append(f'<line x1="{x:.1f}" y1="{TOP - 8}" x2="{x:.1f}" y2="{bottom + 6}" stroke="#111827" '
                       'stroke-dasharray="4 3"/>')
            anchor = "end" if x > WIDTH - RIGHT - 40 else "middle"
            out.append(f'<text x="{x:.1f}" y="{TOP - 11}" text-anchor="{anchor}" fill="#111827">'
                       f'{label} = {fmt_int(x_tok)}</text>')
    if fig.note:
        out.append(f'<text x="{WIDTH - RIGHT}" y="{TOP - 8}" text-anchor="end" fill="#6b7280">{escape(one_line(fig.note))}</text>')
    x = LEFT
    seen: set[str] = set()
    for _, segments in rows:
        for s in segments:
            if s.key in seen:
                continue
            seen.add(s.key)
            out.append(f'<rect x="{x}" y="{legend_y - 10}" width="12" height="12" fill="{COLORS.get(s.key, "#9ca3af")}"/>')
            out.append(f'<text x="{x + 16}" y="{legend_y}" fill="#111827">{escape(one_line(s.label))}</text>')
            x += 24 + 7 * len(s.label)
    out.append("</svg>")
    return "\n".join(out)
