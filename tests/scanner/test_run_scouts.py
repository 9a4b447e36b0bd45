"""Run scouts (ctxviewer/assess/scanner/run_scouts.py): the hex scout's positions found inside the
base64 scout's runs are every position where the hex scout matches, and the hex and base64
patterns' prefiltered matches are the engine's own ``finditer``."""

from __future__ import annotations

import random
import re

from ctxviewer.assess.scanner import prefilter, run_scouts
from ctxviewer.assess.scanner.encoded import _B64, _HEX
from ctxviewer.assess.scanner.invisible import VARIATION_RUN
from ctxviewer.assess.scanner.scout import Scout

HEX = Scout(r"[0-9a-fA-F][0-9a-fA-F]{23}", 0, 0, False, None)
B64 = Scout(r"[^A-Za-z0-9+/][A-Za-z0-9+/]{20}", 0, 1, False, ())


def _texts() -> list[str]:
    rnd = random.Random(26)
    pieces = ["0123456789abcdef" * 3, "DEADBEEF" * 4, "4" * 30, "Zm9vYmFy" * 4, "deadbeefcafe" * 2, "=", "==",
              " ", "\n", ".", "/", "+", "g", "x", "é", "hello world ", "0a" * 11, "0a" * 12, "é" * 3]
    texts = ["", "a", "0" * 24, "0" * 23, "0" * 24 + "g", "+" + "f" * 24, "x" * 20 + "0" * 24, "é" + "1" * 40]
    for _ in range(400):
        texts.append("".join(rnd.choice(pieces) for _ in range(rnd.randrange(1, 30))))
    return texts


def _positions(firsts: list[int], lasts: list[int]) -> list[int]:
    return [p for a, b in zip(firsts, lasts) for p in range(a, b + 1)]


def test_the_scouts_kinds_and_which_serves_which() -> None:
    outside, inside = run_scouts.kind_of(B64), run_scouts.kind_of(HEX)
    assert outside == run_scouts.Outside("A-Za-z0-9+/", 20)
    assert inside == run_scouts.Inside("0-9a-fA-F", 24)
    assert run_scouts.serves(outside, inside)
    assert not run_scouts.serves(run_scouts.Outside("0-9", 20), inside)  # not every hex digit is a digit
    assert not run_scouts.serves(run_scouts.Outside("A-Za-z0-9+/", 30), inside)  # its runs are longer
    assert run_scouts.kind_of(Scout(r"[.!](?=x)", 0, 1, True, None)) is None
    selectors = run_scouts.kind_of(Scout(VARIATION_RUN.scout, 0, 0, False, None))  # type: ignore[arg-type]
    assert isinstance(selectors, run_scouts.Inside) and selectors.length == 4
    assert run_scouts.in_non_ascii_runs(selectors) and not run_scouts.in_non_ascii_runs(inside)
    assert not run_scouts.in_non_ascii_runs(run_scouts.Inside("\u212aé", 2))  # the Kelvin sign folds to k
    assert run_scouts.kind_of(Scout(r"[ab][ac]{3}", 0, 0, False, None)) is None


def test_the_spans_hold_every_position_where_the_hex_scout_matches() -> None:
    outside, inside = run_scouts.kind_of(B64), run_scouts.kind_of(HEX)
    assert isinstance(outside, run_scouts.Outside) and isinstance(inside, run_scouts.Inside)
    hex_scout, b64_scout = re.compile(HEX.regex), re.compile(B64.regex)
    for text in _texts():
        at = [m.start() for m in b64_scout.finditer(text)]
        firsts, lasts = run_scouts.inside_spans(outside, at, inside, text)
        want = [p for p in range(len(text)) if hex_scout.match(text, p)]
        assert _positions(firsts, lasts) == want, text
        assert all(a <= b for a, b in zip(firsts, lasts)) and all(b < a for b, a in zip(lasts, firsts[1:]))


def test_hex_and_base64_matches_through_the_shared_runs_are_the_engines() -> None:
    prefilter.learn([_HEX, _B64])
    reg = prefilter._REGISTRY
    assert reg.run_scouts.server_of(reg.scout_of[_HEX]) == reg.scout_of[_B64]
    for text in _texts():
        for pattern in (_HEX, _B64):
            got = [m.span() for m in prefilter.finditer(pattern, text, force=True)]
            assert got == [m.span() for m in re.finditer(pattern.pattern, text, pattern.flags)], (pattern.pattern, text)


def test_variation_selector_runs_found_in_the_non_ascii_runs_are_the_engines() -> None:
    prefilter.learn([VARIATION_RUN])
    reg = prefilter._REGISTRY
    assert reg.run_scouts.server_of(reg.scout_of[VARIATION_RUN]) == run_scouts.NON_ASCII
    rnd = random.Random(6)
    vs = [chr(0xE0100 + i) for i in (0, 1, 50, 0xEF)]
    pieces = [*vs, "a", " ", "é", "\u212a", "K", "“", "\U000e01f0", "\U000e00ff", "word " * 3]
    texts = ["".join(vs), "".join(vs[:3]), "x" * 2000 + "".join(vs) * 2]
    texts += ["".join(rnd.choice(pieces) for _ in range(rnd.randrange(1, 60))) for _ in range(400)]
    found = 0
    for text in texts:
        got = [m.span() for m in prefilter.finditer(VARIATION_RUN, text, force=True)]
        assert got == [m.span() for m in re.finditer(VARIATION_RUN.pattern, text)], ascii(text)
        found += len(got)
    assert found > 50


def test_the_outside_runs_found_without_the_engine_are_its_matches() -> None:
    outside = run_scouts.kind_of(B64)
    assert isinstance(outside, run_scouts.Outside)
    scout = re.compile(B64.regex)
    rnd = random.Random(20)
    pieces = ["a" * 19, "a" * 20, "Zm9v" * 6, " ", "\n", "=", "?", "é", "+/", "\U000e0100", "\x00", "\x7f"]
    texts = _texts() + ["".join(rnd.choice(pieces) for _ in range(rnd.randrange(0, 14))) for _ in range(2000)]
    for text in texts:
        assert run_scouts.outside_positions(outside, text) == [m.start() for m in scout.finditer(text)], ascii(text)
    assert run_scouts.outside_positions(run_scouts.Outside("a-z?", 3), "abc") is None  # "?" stands for non-ASCII
