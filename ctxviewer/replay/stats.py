"""Statistics of a position test: accuracy per position with its interval, the paired tests between
positions, and the best - worst spread.

* :func:`wilson` -- the Wilson score interval for a proportion (Wilson 1927; Newcombe 1998,
  method 3): centre ``(p + z²/2n) / (1 + z²/n)``, half-width
  ``z / (1 + z²/n) · sqrt(p(1-p)/n + z²/4n²)``, z = 1.959964 for 95 %. 14/20 -> [0.4810, 0.8545].
* :func:`mcnemar_exact` -- the exact (conditional) McNemar test of two paired positions: with b and
  c the discordant pairs, p = min(1, 2 · P(X <= min(b, c))), X ~ Binomial(b + c, 1/2)
  (Fagerland, Lydersen and Laake 2013: b = 1, c = 7 gives p = 0.0703).
* :func:`cochran_q` -- Cochran's Q (1950) over k positions on n paired items, each 0/1:
  Q = (k - 1) (k Σ C_j² - N²) / (k N - Σ R_i²) with column totals C_j, row totals R_i and grand
  total N; p from the chi-squared distribution with k - 1 degrees of freedom (:func:`chi2_sf`).
* :func:`spread_interval` -- accuracy at the best position minus at the worst, with a percentile
  bootstrap interval: items are resampled with replacement (a cluster bootstrap: an item's repeats
  move together), or the runs within each position when the test has one item.

Repeats are never counted as independent items: an item's runs at a position are averaged
(:func:`analyse`), the paired tests use each item's majority answer, and the interval's n is the
number of items. With a single item the unit is the run (the interval is for this item's answers,
not for items in general, and :attr:`Analysis.notes` says so). No Qt here.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Iterable, Sequence

Z95 = 1.959963984540054
"""The standard normal quantile for a two-sided 95 % interval."""


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval ``(low, high)`` of ``successes`` out of ``n`` (module docstring);
    ``successes`` may be fractional (an average over repeats). Raises ``ValueError`` for ``n < 1``
    or successes outside ``0..n``."""
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"wilson: need 0 <= successes <= n and n >= 1 (got {successes}/{n})")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs (module docstring);
    1.0 when there are none."""
    n = b + c
    if n == 0:
        return 1.0
    tail: float = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-squared with integer ``df`` >= 1 degrees of freedom, by the closed forms
    (even df: e^(-x/2) Σ_{i<df/2} (x/2)^i / i!; odd df: 2(1 - Φ(√x)) + 2φ(√x) Σ_{i=1}^{(df-1)/2}
    x^((2i-1)/2) / (1·3···(2i-1)))."""
    if x <= 0:
        return 1.0
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= (x / 2) / i
            total += term
        return min(1.0, math.exp(-x / 2) * total)
    r = math.sqrt(x)
    total, term = 0.0, r
    for i in range(1, (df - 1) // 2 + 1):
        if i > 1:
            term *= x / (2 * i - 1)
        total += term
    pdf = math.exp(-x / 2) / math.sqrt(2 * math.pi)
    return min(1.0, math.erfc(r / math.sqrt(2)) + 2 * pdf * total)


def cochran_q(rows: Sequence[Sequence[int]]) -> tuple[float, int, float]:
    """``(Q, df, p)`` of Cochran's Q over ``rows`` (one per item, one 0/1 per position; module
    docstring). Q is 0 and p 1 when every item answers alike at every position. Raises
    ``ValueError`` for fewer than two positions or rows of unequal length."""
    if not rows or len(rows[0]) < 2 or any(len(r) != len(rows[0]) for r in rows):
        raise ValueError("cochran_q: need rows of equal length, two positions or more")
    k = len(rows[0])
    cols = [sum(r[j] for r in rows) for j in range(k)]
    big_n = sum(cols)
    denom = k * big_n - sum(sum(r) ** 2 for r in rows)
    if denom == 0:
        return 0.0, k - 1, 1.0
    q = (k - 1) * (k * sum(c * c for c in cols) - big_n * big_n) / denom
    return q, k - 1, chi2_sf(q, k - 1)


@dataclass(frozen=True)
class RunScore:
    """One scored run: which item (trace), at which position, which repeat, right or not."""

    item: str
    position: int
    repeat: int
    correct: bool


@dataclass(frozen=True)
class PositionAccuracy:
    """Accuracy at one position with its Wilson 95 % interval; ``n`` in :attr:`Analysis.unit`."""

    position: int
    accuracy: float
    low: float
    high: float
    n: int
    runs: int


@dataclass(frozen=True)
class Analysis:
    """Everything :func:`analyse` finds (module docstring)."""

    unit: str
    """``"items"`` (repeats averaged within an item) or ``"runs"`` (one item)."""
    positions: tuple[PositionAccuracy, ...]
    cochran: tuple[float, int, float] | None
    """``(Q, df, p)``; ``None`` for fewer than two positions."""
    mcnemar: tuple[tuple[int, int, int, int, float], ...]
    """``(position a, position b, b, c, p)`` for each pair of positions."""
    spread: tuple[int, int, float, float, float] | None
    """``(best position, worst position, best - worst, low, high)``; ``None`` for one position."""
    notes: tuple[str, ...] = ()


def _table(runs: Iterable[RunScore], drop_unpaired: bool, notes: list[str]
           ) -> tuple[list[int], list[str], dict[tuple[str, int], list[bool]]]:
    cells: dict[tuple[str, int], list[bool]] = {}
    for r in runs:
        cells.setdefault((r.item, r.position), []).append(r.correct)
    positions = sorted({p for _, p in cells})
    items = sorted({i for i, _ in cells})
    missing = [(i, p) for i in items for p in positions if (i, p) not in cells]
    if missing and not drop_unpaired:
        raise ValueError(f"unpaired runs: item {missing[0][0]} has no run at position {missing[0][1]}")
    if missing:
        gone = sorted({i for i, _ in missing})
        items = [i for i in items if i not in gone]
        notes.append(f"{len(gone):,} item(s) left out: no run at every position (first: {gone[0]})")
        if not items:
            raise ValueError("no item has a run at every position")
    return positions, items, cells


def _mean(v: Sequence[bool]) -> float:
    return sum(v) / len(v)


def spread_interval(cells: dict[tuple[str, int], list[bool]], items: list[str], best: int, worst: int,
                    resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """The 2.5 and 97.5 percentiles of accuracy(best) - accuracy(worst) over ``resamples`` bootstrap
    resamples (module docstring), from a generator seeded with ``seed``."""
    rng = random.Random(seed)
    diffs = []
    for _ in range(resamples):
        if len(items) > 1:
            pick = [rng.choice(items) for _ in items]
            diffs.append(sum(_mean(cells[(i, best)]) - _mean(cells[(i, worst)]) for i in pick) / len(pick))
        else:
            a, b = cells[(items[0], best)], cells[(items[0], worst)]
            diffs.append(_mean([rng.choice(a) for _ in a]) - _mean([rng.choice(b) for _ in b]))
    diffs.sort()
    return diffs[int(0.025 * (resamples - 1))], diffs[math.ceil(0.975 * (resamples - 1))]


def analyse(runs: Iterable[RunScore], resamples: int = 2000, seed: int = 0, drop_unpaired: bool = False) -> Analysis:
    """Accuracy per position (Wilson 95 %), Cochran's Q across positions, exact McNemar for each pair
    and the best - worst spread with its bootstrap interval (module docstring). Raises
    ``ValueError`` when an item lacks a run at some position (the tests need paired items), unless
    ``drop_unpaired`` leaves such items out (said in the notes)."""
    notes: list[str] = []
    positions, items, cells = _table(runs, drop_unpaired, notes)
    one = len(items) == 1
    if one:
        notes.insert(0, "one item: intervals and tests are over its runs (repeats), not over items in general")
    accs = []
    for p in positions:
        if one:
            v = cells[(items[0], p)]
            succ, n = float(sum(v)), len(v)
        else:
            succ, n = sum(_mean(cells[(i, p)]) for i in items), len(items)
        low, high = wilson(succ, n)
        accs.append(PositionAccuracy(p, succ / n, low, high, n, sum(len(cells[(i, p)]) for i in items)))
    if one:  # runs paired by their repeat number
        depth = min(len(cells[(items[0], p)]) for p in positions)
        rows = [[int(cells[(items[0], p)][r]) for p in positions] for r in range(depth)]
    else:  # each item's majority answer
        rows = [[int(_mean(cells[(i, p)]) > 0.5) for p in positions] for i in items]
    pairs = []
    for a in range(len(positions)):
        for b in range(a + 1, len(positions)):
            nb = sum(1 for r in rows if r[a] and not r[b])
            nc = sum(1 for r in rows if r[b] and not r[a])
            pairs.append((positions[a], positions[b], nb, nc, mcnemar_exact(nb, nc)))
    cochran = cochran_q(rows) if len(positions) > 1 else None
    spread = None
    if len(positions) > 1:
        best = max(accs, key=lambda x: (x.accuracy, -x.position))
        worst = min(accs, key=lambda x: (x.accuracy, x.position))
        low, high = spread_interval(cells, items, best.position, worst.position, resamples, seed)
        spread = (best.position, worst.position, best.accuracy - worst.accuracy, low, high)
    return Analysis("runs" if one else "items", tuple(accs), cochran, tuple(pairs), spread, tuple(notes))
