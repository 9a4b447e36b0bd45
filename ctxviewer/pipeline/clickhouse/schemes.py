"""Whether an argument names a ClickHouse trace store: its URL schemes, told apart without the
client, the store or :mod:`logging` (``ctxviewer list DB`` asks it of every file it opens).
No Qt here.
"""

from __future__ import annotations

SCHEMES = ("clickhouse", "clickhouses", "chdb")
"""URL schemes of a ClickHouse trace store."""


def is_clickhouse_url(text: str) -> bool:
    """True when ``text`` names a ClickHouse store (one of :data:`SCHEMES`), not a file."""
    return text.split("://", 1)[0].lower() in SCHEMES and "://" in text
