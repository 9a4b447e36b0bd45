"""The corpus unmapped report: every file of ``../shared/corpus`` imported, and the source keys its
importer did not map (``ctxviewer.unmapped``), counted per format (one count per trace holding
the key). Each key listed is in the "deliberately left out" table of ``docs/unmapped-fields.md``
with the reason a user of the source tool would not miss it; ``test_corpus_unmapped.py`` holds the
report (``corpus_unmapped_expected.json``) and the table against a fresh import.

    python -m tests.importers.corpus_unmapped          # print the report and rewrite the expected file
    python -m tests.importers.corpus_unmapped --check  # exit 1 when stale
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from ctxviewer.importers import ImportFailed, detect, load_records
from ctxviewer.importers.common.field_account import tally
from ctxviewer.model.trace import RequestTrace

try:
    from corpus_table import CORPUS, corpus_files  # run by pytest (rootdir-relative imports)
except ImportError:  # python -m tests.importers.corpus_unmapped
    from tests.importers.corpus_table import CORPUS, corpus_files

EXPECTED = Path(__file__).resolve().parent / "corpus_unmapped_expected.json"


def report(root: Path = CORPUS) -> dict[str, dict[str, int]]:
    """``{format: {key: traces holding it}}`` over every corpus file (formats and keys sorted;
    a format whose files left nothing unmapped maps to ``{}``)."""
    per: dict[str, Counter[str]] = {}
    for path in corpus_files(root):
        try:
            importer = detect(path)
        except ImportFailed:
            continue
        traces = [r for r in load_records(importer, path) if isinstance(r, RequestTrace)]
        per.setdefault(importer.name, Counter()).update(tally(t.attributes for t in traces))
    return {fmt: dict(sorted(c.items())) for fmt, c in sorted(per.items())}


def dumps(rep: dict[str, dict[str, int]]) -> str:
    """The report as JSON, one line per format (diff-friendly)."""
    return "{\n" + ",\n".join(f" {json.dumps(f)}: {json.dumps(k)}" for f, k in rep.items()) + "\n}\n"


def main(argv: list[str]) -> int:
    rep = report()
    for fmt, keys in rep.items():
        print(f"{fmt}: " + (", ".join(f"{k} ×{n}" for k, n in keys.items()) or "nothing unmapped"))
    got = dumps(rep)
    if "--check" in argv:
        stale = not EXPECTED.exists() or EXPECTED.read_text(encoding="utf-8") != got
        print("stale: run python -m tests.importers.corpus_unmapped" if stale else "up to date")
        return 1 if stale else 0
    EXPECTED.write_text(got, encoding="utf-8")
    print(f"wrote {EXPECTED}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
