"""Benchmark: the builder against the chapter's textbook loop (issue 7).

For 50 / 500 / 5,000 candidates of about 225 ``cl100k_base`` tokens each (words drawn from the
reference chapter, random priorities) with an input budget that trims about half of them, prints:

* textbook -- :func:`ctxviewer.builder.textbook_trim` (serialize + one full encode after every
  removal); skipped above ``--textbook-max`` candidates and extrapolated from the largest measured
  size (its cost grows with removals x request length, i.e. quadratically), marked ``~``;
* cold -- :func:`ctxviewer.builder.trim` with an empty cache (every item counted once), median of
  ``--cold-repeat`` runs, each with a new rule;
* cached -- the same trim again from cached counts (what a what-if slider does), median and
  minimum of ``--repeat`` runs;
* full encode -- one encode of all candidates' text: the floor a cold trim cannot beat by much
  (measured right before each cold run; its median);
* ratios textbook/cached, textbook/cold and cold/full encode (the median of the per-run ratios of
  each cold trim to the encode just before it: the figure that least depends on the machine's load).

The 1-minute load average is printed before and after (the machine may be shared).

``--rule text`` (default) counts one rendered prompt (:class:`~ctxviewer.builder.TextRule`, exact
junction accounting); ``--rule chat`` counts a chat body by gpt-4's endpoint rule
(:class:`~ctxviewer.builder.ChatRule`, the :class:`~ctxviewer.builder.Builder` default), whose
full-encode floor is the messages' texts joined by newlines.

Both trims are checked to give the same selection. Times are wall-clock medians (time.perf_counter)
in ms; the machine is shared, so compare the ratios within one run.

Example:
    .venv/bin/python benchmarks/bench_builder.py
    .venv/bin/python benchmarks/bench_builder.py --sizes 50 500 --repeat 9
    .venv/bin/python benchmarks/bench_builder.py --rule chat
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from pathlib import Path

from ctxviewer.builder import Candidate, ChatRule, TextRule, textbook_trim, trim
from ctxviewer.model.trace import Kind
from ctxviewer.tokens.counting import get_encoding

CHAPTER = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "000_8cb939554a0d09c5.txt"


def candidates(n: int, seed: int = 7) -> list[Candidate]:
    """Policy, ``n`` optional items of ~225 tokens, and the user request."""
    words = CHAPTER.read_text(encoding="utf-8").split() if CHAPTER.is_file() else ["token", "budget", "item"]
    rng = random.Random(seed)
    kinds = [Kind.HISTORY, Kind.EVIDENCE, Kind.MEMORY, Kind.TOOL]
    out = [Candidate(Kind.POLICY, "policy", "You answer from the supplied records only. " * 5)]
    for k in range(n):
        text = " ".join(rng.choice(words) for _ in range(165))
        out.append(Candidate(rng.choice(kinds), f"item-{k}", text, priority=rng.randint(0, 20)))
    out.append(Candidate(Kind.USER, "user", "Which of these records answer my question?"))
    return out


def _ms(fn, repeat: int) -> tuple[float, float]:
    """(median, min) wall-clock ms of ``repeat`` runs: the machine is shared, so both are shown."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[50, 500, 5000])
    ap.add_argument("--repeat", type=int, default=15, help="cached re-trims per size")
    ap.add_argument("--cold-repeat", type=int, default=5, help="cold trims (and floor encodes) per size")
    ap.add_argument("--textbook-max", type=int, default=500, help="largest size to run the textbook loop on")
    ap.add_argument("--rule", choices=["text", "chat"], default="text", help="counting rule (see above)")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores), rule {args.rule}")
    print(f"{'n':>6} {'tokens':>9} {'trimmed':>7} {'textbook ms':>12} {'cold ms':>9} {'cached ms':>9} "
          f"{'(min)':>7} {'encode ms':>9} {'tb/cached':>10} {'tb/cold':>8} {'cold/enc':>8}")
    last: tuple[int, int, float] | None = None

    def new_rule() -> TextRule | ChatRule:
        return TextRule("cl100k_base") if args.rule == "text" else ChatRule("gpt-4")

    for n in args.sizes:
        cands = candidates(n)
        probe = new_rule()
        full = probe.count(cands)
        budget = full // 2
        text = probe.serialize(cands) if isinstance(probe, TextRule) else "\n".join(c.text for c in cands)
        enc = get_encoding(probe.encoding)
        colds, encs = [], []
        for _ in range(max(1, args.cold_repeat)):
            encs.append(_ms(lambda e=enc, t=text: e.encode_ordinary(t), 1)[0])
            t0 = time.perf_counter()
            rule = new_rule()
            fast = trim(cands, rule, budget)
            colds.append((time.perf_counter() - t0) * 1000)
        cold_ms, enc_ms = statistics.median(colds), statistics.median(encs)
        cold_enc = statistics.median(c / e for c, e in zip(colds, encs))
        cached_ms, cached_min = _ms(lambda c=cands, r=rule, b=budget: trim(c, r, b), args.repeat)
        removed = len(fast.removed)
        if n <= args.textbook_max:
            t0 = time.perf_counter()
            slow = textbook_trim(cands, new_rule(), budget)
            tb_ms = (time.perf_counter() - t0) * 1000
            assert slow == fast, f"n={n}: builder and textbook loop disagree"
            tb = f"{tb_ms:12.0f}"
            last = (n, removed, tb_ms)
        else:
            assert last is not None, "run at least one size with the textbook loop first"
            ln, lr, lms = last
            tb_ms = lms * (removed / max(lr, 1)) * (n / ln)
            tb = f"~{tb_ms:11.0f}"
        print(f"{n:>6} {full:>9,} {removed:>7} {tb} {cold_ms:>9.1f} {cached_ms:>9.2f} {cached_min:>7.2f} {enc_ms:>9.1f} "
              f"{tb_ms / cached_ms:>10,.0f} {tb_ms / cold_ms:>8,.0f} {cold_enc:>8.2f}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
