"""Benchmark: diff two generated requests of 5,000 items each, and a pair of 1 MB texts (issue 8).

Request A: a policy, 40 tool definitions, 2,000 history turns, 2,958 evidence passages and the
user request (about 300 characters each). Request B: the same items with 10 % of them edited (a
few words changed, so their token counts change too) and another 10 % moved to other places.
Texts: 1 MB of prose lines; B edits one word in every 50th line.

Reported (median of ``--repeat`` runs, milliseconds): the item alignment
(:func:`ctxviewer.diff.diff_items`, target < 200 ms), the whole request diff
(:func:`ctxviewer.diff.diff_traces`) with both assessments given and, once, including assessing both
traces (every registered check runs: the scanner dominates), the 1 MB word diff, and a
floor measured in the same run (a dict of item ids for both requests plus one sha256 per item:
the least any alignment by identity and content must do) with each figure as a ratio of it. Peak
memory (tracemalloc, separate runs) in MB.

Example:
    .venv/bin/python benchmarks/bench_diff.py --repeat 5
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import time
import tracemalloc
from dataclasses import replace
from typing import Any, Callable

from ctxviewer.assess.assessment import assess
from ctxviewer.diff import Change, diff_items, diff_traces, word_diff
from ctxviewer.model.trace import Category, ContextItem, Endpoint, Kind, LimitMode, Policy, RequestTrace

WORDS = ["order", "refund", "parcel", "courier", "delivery", "size", "boots", "jacket", "warehouse", "invoice", "customer", "supervisor", "approval", "policy", "tracking", "exchange", "address", "postcode", "weekend", "return", "label", "stock", "colour"]


def _text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words)) + "."


def make_pair(n: int = 5000, changed: float = 0.10, moved: float = 0.10, seed: int = 7) -> tuple[RequestTrace, RequestTrace]:
    """Requests A and B of ``n`` items each (module docstring)."""
    rng = random.Random(seed)
    items: list[ContextItem] = [ContextItem(Kind.POLICY, "policy", _text(rng, 60), tokens=80, priority=100)]
    items += [ContextItem(Kind.TOOL, f"tool:t{i}", json.dumps({"name": f"t{i}", "description": _text(rng, 20)}),
                          tokens=40, priority=90) for i in range(40)]
    items += [ContextItem(Kind.HISTORY, f"turn-{i:04d}", _text(rng, 50), tokens=60, priority=50, role="user")
              for i in range(2000)]
    items += [ContextItem(Kind.EVIDENCE, f"DOC-{i:05d}", _text(rng, 50), tokens=60, priority=float(rng.randint(1, 99)))
              for i in range(n - len(items) - 1)]
    items.append(ContextItem(Kind.USER, "user", _text(rng, 30), tokens=40, priority=100, role="user"))
    a_items = [replace(it, position=k) for k, it in enumerate(items, 1)]
    b = list(a_items)
    middle = list(range(1, n - 1))
    for k in rng.sample(middle, int(n * changed)):
        words = (b[k].content or "").split()
        words[rng.randrange(len(words))] = "rerouted"
        b[k] = replace(b[k], content=" ".join(words), tokens=(b[k].tokens or 0) + 1)
    for k in sorted(rng.sample(middle, int(n * moved)), reverse=True):
        it = b.pop(k)
        b.insert(rng.randrange(1, n - 2), it)
    b_items = [replace(it, position=k) for k, it in enumerate(b, 1)]
    common: dict[str, Any] = dict(
        created=None, endpoint=Endpoint(provider="openai", model="gpt-4o-mini", capacity=400_000,
                                        limit_mode=LimitMode.SHARED, encoding="cl100k_base"),
        policy=Policy(id="p", version="1", available=True), user_request=items[-1].content,
        budget={Category.OUT: 4000}, reserved_output_tokens=4000)
    return (RequestTrace(trace_id="bench-a", items=tuple(a_items), **common),
            RequestTrace(trace_id="bench-b", items=tuple(b_items), **common))


def make_texts(size: int = 1_000_000, seed: int = 11) -> tuple[str, str]:
    """Two texts of about ``size`` characters; B edits one word in every 50th line."""
    rng = random.Random(seed)
    lines: list[str] = []
    total = 0
    while total < size:
        line = _text(rng, 14) + "\n"
        lines.append(line)
        total += len(line)
    b = list(lines)
    for k in range(0, len(b), 50):
        w = b[k].split(" ")
        w[3] = "rerouted"
        b[k] = " ".join(w)
    return "".join(lines), "".join(b)


def _floor(a: RequestTrace, b: RequestTrace) -> object:
    ids_a = {it.id: n for n, it in enumerate(a.items)}
    ids_b = {it.id: n for n, it in enumerate(b.items)}
    hashes = [hashlib.sha256((it.content or "").encode()).digest() for it in (*a.items, *b.items)]
    return ids_a, ids_b, hashes


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _peak_mb(fn: Callable[[], object]) -> float:
    tracemalloc.start()
    fn()
    _cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1e6


def main(argv: list[str] | None = None) -> int:
    """Print the figures; exit status 1 when the item alignment misses the 200 ms target."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    a, b = make_pair()
    ta, tb = make_texts()
    rows = diff_items(a, b)
    counts = {c.value: sum(1 for r in rows if c in r.changes) for c in Change}
    print(f"requests: {len(a.items):,} items each; rows {len(rows):,}; "
          f"content_changed {counts['content_changed']}, moved {counts['moved']}, "
          f"added {counts['added']}, removed {counts['removed']}")
    print(f"texts: {len(ta):,} and {len(tb):,} characters")
    floor = _median_ms(lambda: _floor(a, b), args.repeat)
    items_ms = _median_ms(lambda: diff_items(a, b), args.repeat)
    pre = (assess(a), assess(b))
    given_ms = _median_ms(lambda: diff_traces(a, b, pre), args.repeat)
    full_ms = _median_ms(lambda: diff_traces(a, b), 1)
    text_ms = _median_ms(lambda: word_diff(ta, tb), max(1, args.repeat // 2))
    print(f"{'figure':<34}{'median ms':>10}{'x floor':>9}{'peak MB':>9}")
    print(f"{'floor (ids + sha256 per item)':<34}{floor:>10.1f}{1.0:>9.1f}{_peak_mb(lambda: _floor(a, b)):>9.1f}")
    print(f"{'diff_items (target < 200 ms)':<34}{items_ms:>10.1f}{items_ms / floor:>9.1f}{_peak_mb(lambda: diff_items(a, b)):>9.1f}")
    print(f"{'diff_traces (assessments given)':<34}{given_ms:>10.1f}{given_ms / floor:>9.1f}{_peak_mb(lambda: diff_traces(a, b, pre)):>9.1f}")
    print(f"{'diff_traces (incl. assess x2, 1 run)':<34}{full_ms:>10.1f}{full_ms / floor:>9.1f}{'':>9}")
    print(f"{'word_diff 1 MB texts':<34}{text_ms:>10.1f}{text_ms / floor:>9.1f}{_peak_mb(lambda: word_diff(ta, tb)):>9.1f}")
    return 0 if items_ms < 200 else 1


if __name__ == "__main__":
    raise SystemExit(main())
