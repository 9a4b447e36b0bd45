"""The golden set of true findings on real traces: for every trace of ``../shared/corpus``, the
state and findings ctxviewer concludes, each trace judged by a reader, kept in
``tests/corpus_findings/expected.json`` and the command that rewrites it.

Every corpus file is imported as a user would (:func:`ctxviewer.pipeline.importing.import_files`:
the registry's detection, repair, token counts) into a temporary database, and every trace is
assessed (:func:`ctxviewer.assess.assessment.assess`). The expectation per trace is its state and
its findings as ``"severity rule: message"``, worst first, plus ``judged``: a reader's words on why each finding
is true, written after reading the trace (a trace with a finding of severity warning or failure
must have one). Regenerating keeps a trace's ``judged`` while its findings are unchanged and
empties it where they changed, so a changed conclusion is read again::

    python -m tests.corpus_findings.regen          # rewrite, then review the diff and judge
    python -m tests.corpus_findings.regen --check  # exit 1 if the expectation is stale

``tests/corpus_findings/test_corpus_findings.py`` holds every corpus trace to it. The corpus is
not part of the repository: both skip (the test) or stop (the command) when it is absent.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
EXPECTED = Path(__file__).resolve().parent / "expected.json"
SKIP_DIRS = ("spec-schemas",)
"""Corpus folders that hold schemas, not traces."""
SKIP_SUFFIXES = (".md", ".expected-chatml.json")
"""Corpus files that are notes or another tool's expectations, not traces."""


def corpus_files(corpus: Path = CORPUS) -> list[Path]:
    """Every trace file of the corpus, sorted by path."""
    return sorted(p for p in corpus.rglob("*") if p.is_file() and not p.name.startswith(".")
                  and not any(part in SKIP_DIRS for part in p.relative_to(corpus).parts)
                  and not p.name.endswith(SKIP_SUFFIXES))


def conclusions(corpus: Path = CORPUS) -> dict[str, dict[str, Any]]:
    """``{corpus-relative path: {trace_id: {"state", "findings"}}}`` as ctxviewer concludes today."""
    from ctxviewer.assess.assessment import assess
    from ctxviewer.pipeline.importing import import_files
    from ctxviewer.store import TraceStore

    out: dict[str, dict[str, Any]] = {}
    for path in corpus_files(corpus):
        with tempfile.TemporaryDirectory() as tmp, TraceStore.create(Path(tmp) / "c.db") as store:
            import_files([path], store)
            traces = {}
            for row in store.list(None, 0, -1):
                a = assess(store.load(row.trace_id))
                traces[row.trace_id] = {"state": a.state.value,
                                        "findings": [f"{f.severity.value} {f.rule}: {f.message}" for f in a.findings]}
        out[path.relative_to(corpus).as_posix()] = traces
    return out


def merged(today: dict[str, dict[str, Any]], before: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``today`` with each trace's ``judged`` kept from ``before`` where its findings are unchanged."""
    out: dict[str, dict[str, Any]] = {}
    for file, traces in today.items():
        out[file] = {}
        for tid, got in traces.items():
            old = before.get(file, {}).get(tid, {})
            same = old.get("state") == got["state"] and old.get("findings") == got["findings"]
            out[file][tid] = {**got, "judged": old.get("judged", "") if same else ""}
    return out


def render(data: dict[str, Any]) -> str:
    """The expectation file's text: indented JSON, non-ASCII kept, newline at the end."""
    return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    """Rewrite the expectation (``--check``: only say whether it is stale, exit 1 if it is)."""
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    before = json.loads(EXPECTED.read_text(encoding="utf-8")) if EXPECTED.exists() else {}
    text = render(merged(conclusions(), before))
    stale = not EXPECTED.exists() or EXPECTED.read_text(encoding="utf-8") != text
    if "--check" in argv:
        print("stale" if stale else "current")
        return 1 if stale else 0
    EXPECTED.write_text(text, encoding="utf-8")
    unjudged = sum(1 for traces in json.loads(text).values() for t in traces.values()
                   if not t["judged"] and any(f.startswith(("warning ", "failure ")) for f in t["findings"]))
    print(f"wrote {EXPECTED.relative_to(ROOT)}; {unjudged} trace(s) with a warning or failure to judge")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
