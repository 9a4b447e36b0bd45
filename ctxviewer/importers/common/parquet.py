"""Parquet files read row by row with pyarrow (the optional ``parquet`` extra), for the bulk
exports written as Parquet: Langfuse's blob-storage export and Phoenix's spans dataframe /
``TraceDataset``. Without pyarrow, reading says what to install; sniffing just says "not known".
No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ctxviewer.importers.contract import ImportFailed

PARQUET_MAGIC = b"PAR1"
"""The first (and last) four bytes of a Parquet file."""
PARQUET_EXTRA = "pip install 'ctxviewer[parquet]'"
"""What to install to read Parquet exports (the ``parquet`` extra brings pyarrow)."""

Row = tuple[str, dict[str, Any]]
"""``(where, row)``: ``where`` names the file and row (``"observations/2026-01-01.parquet row 3"``)."""


def magic(path: Path) -> bytes:
    """The first four bytes of ``path`` (``b""`` when it cannot be read)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4)
    except OSError:
        return b""


def parquet_rows(path: Path, label: str, instead: str = "or export JSON") -> Iterator[Row]:
    """The rows of Parquet file ``path`` as dicts, batch by batch (1,024 rows), ``MAP`` columns as
    dicts, each named ``"{label} row N"``. Raises :class:`ImportFailed` without pyarrow (naming the
    extra, then ``instead``) or for a file pyarrow cannot read."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportFailed(f"{path}: reading Parquet exports needs pyarrow ({PARQUET_EXTRA}); {instead}") from None
    import pyarrow as pa

    try:
        pf = pq.ParquetFile(path)
        maps = {f.name for f in pf.schema_arrow if pa.types.is_map(f.type)}
        n = 0
        for batch in pf.iter_batches(batch_size=1024):
            for row in batch.to_pylist():
                n += 1
                for key in maps:
                    if isinstance(row.get(key), list):
                        row[key] = dict(row[key])
                yield f"{label} row {n}", row
    except (OSError, pa.ArrowException) as exc:
        raise ImportFailed(f"{path}: not a readable Parquet file: {exc}") from None


def parquet_columns(path: Path) -> list[str] | None:
    """The column names of a Parquet file (its footer), or ``None`` without pyarrow or for a file
    pyarrow cannot read."""
    try:
        import pyarrow.parquet as pq

        return [str(n) for n in pq.read_schema(path).names]
    except Exception:  # no pyarrow, or not Parquet: the sniffer only asks
        return None
