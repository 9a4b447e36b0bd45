"""Benchmark: pyATR's Agent Threat Rules as a second opinion, measured only on families a rule
does not name.

Every row of the labelled injection file (and of ``tests/data/injection_families.jsonl``) is given
to pyATR's engine (``pyatr``, MIT; its bundled rule set) as untrusted data, an event of type
``tool_response`` -- as ``ctxviewer scan`` reads it. ATR rules name the corpora they were written
from (garak, BIPIA, ASB, AgentDojo, InjecAgent, CyberSecEval, SEP, ...) in their text; for each
family (:data:`ctxviewer.assess.scanner.provenance.FAMILIES`) a row counts as caught only by rules
that do not name that family's corpus (:data:`NAMES`), as our own leave-one-family-out does. It
prints per family the recall of ATR (rules of severity ``--min`` and above) next to ctxviewer's
held-out recall, and each benign set's false-positive rate -- for ATR with every rule, since no
rule names a benign corpus as its source.

pyATR is not a dependency: install it into the venv to run this (``.venv/bin/pip install pyatr``).

Example:
    .venv/bin/python benchmarks/bench_atr.py
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

from ctxviewer.assess.scanner import provenance, scan_text
from ctxviewer.model.findings import Severity

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "injection" / "labelled.jsonl"
EXTRA = ROOT / "tests" / "data" / "injection_families.jsonl"
NAMES = {
    provenance.ASB: r"\bASB\b|agent\s+security\s+bench", provenance.BIPIA_TEXT: r"bipia", provenance.BIPIA_CODE: r"bipia",
    provenance.CSE_EN: r"cyberseceval|purplellama", provenance.CSE_ML: r"cyberseceval|purplellama",
    provenance.LATENT: r"garak", provenance.PROMPTINJECT: r"garak|promptinject", provenance.SYSPROMPT: r"garak",
    provenance.DAN: r"garak|\bDAN\b", "own_user_message": r"agentdojo", "own_plain_goal": r"injecagent|agentdojo",
    "own_probe_marked": r"\bSEP\b|should\s+it\s+be\s+executed", "own_probe_plain": r"\bSEP\b|should\s+it\s+be\s+executed",
}
"""Family -> how an ATR rule names its corpus (case-insensitive, in the rule's JSON text)."""
RANK = {"low": 0, "medium": 1, "high": 2, "critical": 3}


def _bench_set(row: dict[str, object]) -> str | None:
    cat = row.get("category")
    if cat == "benign_document":
        return "no probe" if row.get("source") == "garak_latent" else "documents"
    return {"benign_hard": "hard", "benign_prompt": "prompts"}.get(str(cat))


def main(argv: list[str] | None = None) -> int:
    """Print the table; 2 when pyatr is not installed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--min", default="medium", choices=list(RANK), help="lowest ATR severity counted")
    args = ap.parse_args(argv)
    try:
        from pyatr import AgentEvent, ATREngine
    except ImportError:
        print("pyatr is not installed: .venv/bin/pip install pyatr")
        return 2
    engine = ATREngine()
    engine.load_default_rules()
    from pyatr.engine import _read_bundled_rules

    text_of = {r["id"]: json.dumps(r) for r in _read_bundled_rules()}
    rows = [json.loads(line) for p in (DEFAULT, EXTRA) if p.exists()
            for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
    floor = RANK[args.min]
    named = {fam: {rid for rid, t in text_of.items() if re.search(rx, t, re.IGNORECASE)} for fam, rx in NAMES.items()}
    by_family: dict[str, list[tuple[set[str], bool]]] = defaultdict(list)
    benign: dict[str, list[bool]] = defaultdict(list)
    t0 = time.perf_counter()
    for row in rows:
        text = str(row["text"])
        matches = {m.rule_id for m in engine.evaluate(AgentEvent(content=text, event_type="tool_response",
                                                                 fields={"tool_response": text}))
                   if RANK.get(m.severity, 0) >= floor}
        fam = provenance.family_of(row)
        if fam is not None:
            with provenance.held_out([fam]):
                ours = any(h.severity.rank >= Severity.WARNING.rank for h in scan_text(text))
            by_family[fam].append((matches, ours))
        elif (bs := _bench_set(row)) is not None:
            benign[bs].append(bool(matches))
    elapsed = time.perf_counter() - t0
    print(f"{len(engine.rules)} ATR rules, {len(rows)} rows in {elapsed:.0f} s; ATR severity >= {args.min}\n")
    print(f"{'family':28} {'rows':>5} {'ATR rules naming it':>19} {'ATR held out':>12} {'ctxviewer held out':>18}")
    results = []
    for fam, got in by_family.items():
        off = named.get(fam, set())
        atr = 100 * sum(bool(m - off) for m, _ in got) / len(got)
        ours = 100 * sum(o for _, o in got) / len(got)
        results.append((atr, fam, len(got), len(off), ours))
    for atr, fam, n, off, ours in sorted(results):
        print(f"{fam:28} {n:>5} {off:>19} {atr:11.1f}% {ours:17.1f}%")
    print("\nfalse-positive rate, every ATR rule (ctxviewer: bench_scanner.py --leave-one-family-out):")
    for name, f in sorted(benign.items()):
        print(f"  {name:12} {len(f):>5} rows  {100 * sum(f) / len(f):6.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
