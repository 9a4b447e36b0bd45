"""Tick labels of a token axis: thousands as ``k``, millions as ``M``, with separators.

``500 1,000 1,500`` below a 1,000-token tick spacing; ``2k 4k 6k 8k`` from 1,000 up; ``0.5M 1M
1.5M 2M`` from 100,000 up when the values reach a million -- never ``1e+06``. Decimals appear only
where the spacing needs them (``2.5k``). No Qt here: the chart's axis calls :func:`tick_label`.
"""

from __future__ import annotations

import math

UNITS: tuple[tuple[float, str], ...] = ((1_000_000.0, "M"), (1_000.0, "k"))
"""Unit divisors and suffixes, largest first."""


def _decimals(spacing: float) -> int:
    """Decimals needed to tell ticks ``spacing`` apart (0 for whole steps)."""
    if spacing <= 0 or float(spacing).is_integer():
        return 0
    return max(0, min(3, -math.floor(math.log10(spacing - math.floor(spacing) or spacing))))


def tick_label(value: float, spacing: float, largest: float | None = None) -> str:
    """The label of a tick at ``value`` tokens when ticks are ``spacing`` tokens apart and the axis
    reaches ``largest`` (default ``value``): ``M`` when spacing >= 100,000 and the axis reaches a
    million, ``k`` when spacing >= 1,000, else the number; thousands separators throughout
    (``1,500k``). ``0`` is ``"0"``."""
    if value == 0:
        return "0"
    top = abs(largest if largest is not None else value)
    for div, suffix in UNITS:
        if (suffix == "M" and spacing >= 100_000 and top >= 1_000_000) or (suffix == "k" and spacing >= 1_000):
            scaled, step = value / div, spacing / div
            return _trim(f"{scaled:,.{_decimals(round(step, 6))}f}") + suffix
    return _trim(f"{value:,.{_decimals(round(spacing, 6))}f}")


def _trim(text: str) -> str:
    """``"1.0"`` -> ``"1"``, ``"2.50"`` -> ``"2.5"``; whole numbers unchanged."""
    return text.rstrip("0").rstrip(".") if "." in text else text


def tick_labels(values: list[float], spacing: float) -> list[str]:
    """:func:`tick_label` for each of ``values`` (one axis, one unit)."""
    largest = max((abs(v) for v in values), default=0.0)
    return [tick_label(v, spacing, largest) for v in values]
