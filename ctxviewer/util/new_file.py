"""A new file under a unique name, made like any file the user's programs make: its mode is
0o666 less the umask (``tempfile.mkstemp`` makes 0o600 whatever the umask, so a database
written through it was private to its owner where every other output is not). No Qt here.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

ATTEMPTS = 100
"""Names tried before giving up (each a fresh random suffix; another file of that name is skipped)."""


def create_unique(folder: Path | str, prefix: str, suffix: str = "") -> Path:
    """Create an empty file ``folder/PREFIX<16 hex digits>SUFFIX`` that did not exist
    (``O_CREAT | O_EXCL``: never an existing file or a symlink's target), mode 0o666 less the
    process umask, and return its path. Raises ``FileExistsError`` after :data:`ATTEMPTS` names
    that all existed, and ``OSError`` when the folder cannot be written."""
    for _ in range(ATTEMPTS):
        path = Path(folder) / f"{prefix}{secrets.token_hex(8)}{suffix}"
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return path
    raise FileExistsError(f"{folder}: no free name {prefix}…{suffix} after {ATTEMPTS} tries")
