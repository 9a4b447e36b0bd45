"""Position-test statistics (ctxviewer.replay.stats) against published values."""

from __future__ import annotations

import math

import pytest

from ctxviewer.replay.stats import RunScore, analyse, chi2_sf, cochran_q, mcnemar_exact, wilson


def test_wilson_14_of_20() -> None:
    low, high = wilson(14, 20)
    assert (round(low, 4), round(high, 4)) == (0.4810, 0.8545)
    assert (math.floor(low * 100) / 100, math.ceil(high * 100) / 100) == (0.48, 0.86)  # rounded outwards


@pytest.mark.parametrize(("k", "n", "low", "high"), [
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)])
def test_wilson_newcombe_1998_table_ii(k: int, n: int, low: float, high: float) -> None:
    """Newcombe (1998), Statistics in Medicine 17:857, method 3 (score interval without correction)."""
    got = wilson(k, n)
    assert (round(got[0], 4), round(got[1], 4)) == (low, high)


def test_wilson_refuses_impossible_counts() -> None:
    with pytest.raises(ValueError, match="need 0 <= successes <= n"):
        wilson(5, 4)


def test_exact_mcnemar_fagerland_2013() -> None:
    """Fagerland, Lydersen and Laake (2013), BMC Med Res Methodol 13:91: b = 1, c = 7, exact conditional p = 0.0703."""
    assert mcnemar_exact(1, 7) == pytest.approx(0.0703125)
    assert mcnemar_exact(7, 1) == mcnemar_exact(1, 7)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0


@pytest.mark.parametrize(("x", "df"), [(3.841458820694124, 1), (5.991464547107979, 2), (7.814727903251178, 3),
                                       (9.487729036781154, 4), (11.070497693516351, 5), (18.307038053275146, 10)])
def test_chi2_sf_at_the_tabled_95_percent_points(x: float, df: int) -> None:
    assert chi2_sf(x, df) == pytest.approx(0.05, abs=1e-12)


def test_cochran_q_published_example() -> None:
    """The WaveMetrics IGOR Pro StatsCochranTest examples: 9 blocks x 5 groups, Q = 5.56522
    (p = 0.234056), and the second table Q = 10.3636 (p = 0.0347281)."""
    w1 = [[0, 0, 0, 0, 1], [0, 0, 0, 0, 1], [0, 0, 0, 1, 1], [0, 1, 0, 1, 1], [0, 1, 0, 1, 0], [1, 1, 0, 1, 0],
          [1, 1, 0, 0, 0], [1, 0, 0, 0, 0], [1, 0, 0, 0, 0]]
    w2 = [[0, 0, 0, 0, 1], [0, 0, 0, 0, 1], [0, 0, 0, 1, 1], [0, 1, 0, 1, 1], [1, 1, 0, 1, 1], [1, 1, 0, 1, 1],
          [1, 1, 0, 1, 0], [1, 1, 0, 0, 0], [1, 0, 0, 0, 0]]
    q, df, p = cochran_q(w1)
    assert (round(q, 5), df, round(p, 6)) == (5.56522, 4, 0.234056)
    q, df, p = cochran_q(w2)
    assert (round(q, 4), df, round(p, 7)) == (10.3636, 4, 0.0347281)


def test_cochran_q_on_two_positions_is_mcnemars_chi_square() -> None:
    rows = [[1, 0]] * 9 + [[0, 1]] * 3 + [[1, 1]] * 5 + [[0, 0]] * 4
    assert cochran_q(rows)[0] == pytest.approx((9 - 3) ** 2 / (9 + 3))


def _runs(table: dict[str, dict[int, list[int]]]) -> list[RunScore]:
    return [RunScore(item, pos, r, bool(v)) for item, by in table.items() for pos, vals in by.items()
            for r, v in enumerate(vals)]


def test_repeats_are_averaged_within_an_item() -> None:
    """Three items; item a answers 3 of 4 repeats right at position 1: it counts 0.75 of one item, not 3 of 12."""
    runs = _runs({"a": {1: [1, 1, 1, 0], 5: [0, 0, 0, 0]}, "b": {1: [1, 1, 1, 1], 5: [0, 0, 1, 0]},
                  "c": {1: [0, 0, 0, 0], 5: [0, 0, 0, 0]}})
    a = analyse(runs, resamples=200)
    assert a.unit == "items"
    first = a.positions[0]
    assert (first.position, first.n, first.runs) == (1, 3, 12)
    assert first.accuracy == pytest.approx((0.75 + 1 + 0) / 3)
    assert (first.low, first.high) == pytest.approx(wilson(1.75, 3))
    assert a.mcnemar == ((1, 5, 2, 0, 0.5),)  # majority answers: a and b right at 1, wrong at 5
    assert a.spread[:3] == (1, 5, pytest.approx((0.75 + 1) / 3 - 0.25 / 3))


def test_unpaired_runs_are_refused() -> None:
    with pytest.raises(ValueError, match="item b has no run at position 5"):
        analyse(_runs({"a": {1: [1], 5: [0]}, "b": {1: [1]}}))
