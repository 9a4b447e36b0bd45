"""Damaged copies of ``sample_traces/samples.db`` for the store and CLI tests (newuser s5 #2)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[1] / "sample_traces" / "samples.db"


def flipped_copy(tmp_path: Path) -> Path:
    """The new user's ``flip.db``: ``samples.db`` with 200 random bytes after byte 4096 replaced (seed 1)."""
    bad = tmp_path / "flip.db"
    shutil.copyfile(SAMPLES, bad)
    d = bytearray(bad.read_bytes())
    r = random.Random(1)
    for _ in range(200):
        d[r.randrange(4096, len(d))] = r.randrange(256)
    bad.write_bytes(bytes(d))
    return bad
