"""Damaged copies of ``sample_traces/samples.db`` for the store and CLI tests (newuser s5 #2)."""

from __future__ import annotations

import random
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[1] / "sample_traces" / "samples.db"


def flipped_copy(tmp_path: Path) -> Path:
    """The new user's ``flip.db``: ``samples.db`` with 200 random bytes after byte 4096 replaced (seed 1),
    one of which hit the ``A`` of ``CREATE`` in the ``details`` table's schema text (0x97). Where
    that text lies moves with every schema change, so that byte is placed where it now is."""
    bad = tmp_path / "flip.db"
    shutil.copyfile(SAMPLES, bad)
    d = bytearray(bad.read_bytes())
    with closing(sqlite3.connect(f"file:{SAMPLES}?mode=ro", uri=True)) as conn:
        ddl = conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'details'").fetchone()[0].encode()
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        schema = {int(r[0]) for r in conn.execute("SELECT pageno FROM dbstat WHERE name = 'sqlite_schema'")}
    r = random.Random(1)
    for _ in range(200):  # the schema's own pages keep only the flip below, so SQLite names the same damage
        at = r.randrange(4096, len(d))  # whatever else a new schema version moves around
        if at // size + 1 not in schema:
            d[at] = r.randrange(256)
    at = bytes(d).find(ddl)
    assert at > 4096, "the details schema text is not in samples.db"
    d[at + 3] = 0x97  # CRE\x97TE
    bad.write_bytes(bytes(d))
    return bad
