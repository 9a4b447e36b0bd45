"""The corpus table: what every file of ``../shared/corpus`` imports to, per file and per trace,
and the command that rewrites it (``tests/importers/corpus_expected.json``).

Per file: the detected importer (``null`` for the JSON Schemas and the markdown examples, which are
not traces), the count of traces the database holds after importing that file alone, their items,
and the count of warnings. Per trace (sorted by id): model, each item's role in final order
(``tool-def`` for a tool definition), tool definitions, proposed tool calls by name, the normalised
usage of ``show --json`` as ``[input (cache included), output (reasoning included), cached input,
cache creation, reasoning]`` (``null`` = not reported) and the span status code.

Rewrite after an intended importer change, then review the diff::

    python -m tests.importers.corpus_table          # rewrite
    python -m tests.importers.corpus_table --check  # exit 1 when stale

``tests/importers/test_corpus_table.py`` holds the file against a fresh import.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from ctxviewer.importers import ImportFailed, detect
from ctxviewer.pipeline.importing import import_into
from ctxviewer.report.trace_report import trace_summary
from ctxviewer.store import TraceStore

EXPECTED = Path(__file__).resolve().parent / "corpus_expected.json"
CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
NOT_CORPUS = {"FORMATS.md", "PROVENANCE.md"}  # the corpus's own documentation


def corpus_files(root: Path = CORPUS) -> list[Path]:
    """The 47 corpus files (everything but FORMATS.md and PROVENANCE.md), sorted by path."""
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name not in NOT_CORPUS)


def _trace_row(trace: Any) -> dict[str, Any]:
    s = trace_summary(trace)
    u = s["usage"]
    return {
        "id": trace.trace_id,
        "model": trace.endpoint.model,
        "roles": ["tool-def" if i["kind"] == "tool" else i.get("role") or i["kind"] for i in s["items"]],
        "tool_defs": sum(1 for i in trace.items if i.kind.value == "tool"),
        "tool_calls": [c["name"] for c in s["tool_calls"]],
        "usage": [u["input_tokens"], u["output_tokens"], u["cached_input_tokens"],
                  u["cache_creation_input_tokens"], u["reasoning_tokens"]],
        "status": (s.get("status") or {}).get("code"),
    }


def file_row(path: Path, workdir: Path) -> dict[str, Any]:
    """What importing ``path`` alone into a fresh database gives (see the module docstring)."""
    try:
        importer: str | None = detect(path).name
    except ImportFailed:
        importer = None
    db = workdir / "one.db"
    if db.exists():
        db.unlink()
    report = import_into(db, [path])
    row: dict[str, Any] = {"importer": importer, "traces": report.imported, "items": 0,
                           "warnings": len(report.problems), "per_trace": []}
    if report.imported:
        with TraceStore.open(db) as store:
            traces = [_trace_row(store.load(r.trace_id)) for r in store.list(limit=-1)]
        row["per_trace"] = sorted(traces, key=lambda t: (t["id"], json.dumps(t)))
        row["items"] = sum(len(t["roles"]) for t in traces)
        db.unlink()
    return row


def table(root: Path = CORPUS) -> dict[str, dict[str, Any]]:
    """``{relative path: file_row}`` for every corpus file."""
    with tempfile.TemporaryDirectory() as tmp:
        return {p.relative_to(root).as_posix(): file_row(p, Path(tmp)) for p in corpus_files(root)}


def dumps(rows: dict[str, dict[str, Any]]) -> str:
    """The table as JSON with one line per file header and one per trace (diff-friendly)."""
    out = []
    for rel, row in rows.items():
        head = json.dumps({k: v for k, v in row.items() if k != "per_trace"}, ensure_ascii=False)[1:-1]
        traces = ",\n".join("   " + json.dumps(t, ensure_ascii=False) for t in row["per_trace"])
        out.append(f" {json.dumps(rel)}: {{{head}, \"per_trace\": [" + (f"\n{traces}\n ]}}" if traces else "]}"))
    return "{\n" + ",\n".join(out) + "\n}\n"


def main(argv: list[str]) -> int:
    got = dumps(table())
    if "--check" in argv:
        stale = not EXPECTED.exists() or EXPECTED.read_text(encoding="utf-8") != got
        print("corpus table stale: run python -m tests.importers.corpus_table" if stale else "corpus table up to date")
        return 1 if stale else 0
    EXPECTED.write_text(got, encoding="utf-8")
    print(f"wrote {EXPECTED}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
