"""Whether two trace databases hold the same thing: a canonical dump of every table, and a compare.

For a change that must not change what an import stores (issue 25's ingest work): import the same
files with the old and the new code, dump both, compare.

    python benchmarks/db_same.py dump DB OUT.txt     # write the dump of DB to OUT.txt
    python benchmarks/db_same.py compare A B         # A, B: two dumps or two databases; exit 1 if they differ

The dump is the schema (every ``sqlite_master`` row, SQL text included) and then every table by
name, its rows sorted (each row's ``repr``), a rowid table's ``rowid`` first (``blobs``' rowid
is the full-text index's ``content_rowid``, so the order blobs were first written shows too).
``content_fts`` itself is left out: it reads ``blobs``, and its shadow tables
(``content_fts_data``, ``_idx``, ``_docsize``, ``_config``) are dumped. Left out as well, the
one column that records when rather than what: ``_sqlite_migrations.applied_at`` (the time each
schema step ran). Nothing else is excluded: the import stores no run id or import time.
"""

from __future__ import annotations

import difflib
import sqlite3
import sys
from pathlib import Path

EXCLUDED = {("_sqlite_migrations", "applied_at")}
"""``(table, column)`` pairs the dump leaves out: when a schema step ran, not what is stored."""


def dump(db: str | Path) -> list[str]:
    """The dump of the database ``db`` (opened read-only), one line per schema entry or row."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        lines = [f"## schema {typ} {name}: {sql}" for typ, name, sql in
                 conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")]
        for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall():
            if name == "content_fts":
                continue
            cols = [f'"{c[1]}"' for c in conn.execute(f'PRAGMA table_info("{name}")') if (name, c[1]) not in EXCLUDED]
            if "WITHOUT ROWID" not in (sql or "").upper():
                cols.insert(0, "rowid")
            rows = sorted(repr(r) for r in conn.execute(f'SELECT {", ".join(cols)} FROM "{name}"'))
            lines.append(f"## table {name}: {len(rows)} rows of {', '.join(cols)}")
            lines.extend(rows)
        return lines
    finally:
        conn.close()


def _lines(path: str) -> list[str]:
    """A dump file's lines, or the dump of a database (an SQLite file)."""
    with open(path, "rb") as fh:
        if fh.read(16) == b"SQLite format 3\x00":
            return dump(path)
    return Path(path).read_text(encoding="utf-8").splitlines()


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "dump":
        Path(argv[2]).write_text("\n".join(dump(argv[1])) + "\n", encoding="utf-8")
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        a, b = _lines(argv[1]), _lines(argv[2])
        if a == b:
            print(f"same: {argv[1]} and {argv[2]} ({len(a)} lines)")
            return 0
        for n, line in enumerate(difflib.unified_diff(a, b, argv[1], argv[2], n=0, lineterm="")):
            if n == 40:
                print("...")
                break
            print(line[:300])
        return 1
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
