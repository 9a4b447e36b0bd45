"""The files of a Langfuse blob-storage export, read as rows: JSON Lines, JSON, their gzip forms,
and Parquet (with the optional ``parquet`` extra: pyarrow).

Layout (langfuse-docs ``export-to-blob-storage.mdx``, "File organization in blob storage")::

    {prefix}{project_id}/
      observations_v2/{timestamp}.{parquet|json|jsonl|csv}[.gz]   enriched: the trace's fields on every row
      observations/{timestamp}....                                  legacy
      traces/{timestamp}....                                        legacy
      scores/{timestamp}....                                        always
      manifests/{timestamp}.json                                    one per completed run: files[].key

A file's table is its folder's name when it sits in that layout, else read from each row's
columns (:func:`table_of_row`). Rows are plain dicts with the export's column names; a line or row
that cannot be read is a :class:`~ctxviewer.importers.contract.ImportProblem` naming the file and
the line, and reading goes on. CSV is not read yet (its values are all text; say so). No Qt here.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ctxviewer.importers.common.parquet import PARQUET_EXTRA, PARQUET_MAGIC, parquet_columns, parquet_rows
from ctxviewer.importers.common.parquet import magic as _magic
from ctxviewer.importers.common.peek import cut_short
from ctxviewer.importers.contract import ImportFailed, ImportProblem

__all__ = ["PARQUET_EXTRA", "PARQUET_MAGIC", "TABLES", "Row", "manifest_files", "parquet_columns", "read_rows",
           "siblings", "table_of_path", "table_of_row"]

TABLES = ("observations_v2", "observations", "traces", "scores")
"""The export's table folders (``manifests`` holds the run manifests)."""
Row = tuple[str, dict[str, Any]]
"""``(where, row)``: ``where`` names the file and line (``"observations/2026-01-01.jsonl line 3"``)."""


def table_of_path(path: Path) -> str | None:
    """The export table ``path`` holds by its folder (``observations_v2`` ... ``scores``), or ``None``."""
    return path.parent.name if path.parent.name in TABLES else None


def table_of_row(row: Mapping[str, Any]) -> str | None:
    """The table a row belongs to by its columns: a score names ``data_type`` or ``string_value``
    beside ``value``; an observation ``start_time`` with ``type`` (``span_id`` in v4); a trace
    ``timestamp`` without ``trace_id``. ``None`` for none of these."""
    if "value" in row and ("data_type" in row or "string_value" in row):
        return "scores"
    if "start_time" in row and "type" in row and ("trace_id" in row or "span_id" in row):
        return "observations_v2" if "trace_name" in row or "user_id" in row else "observations"
    if "timestamp" in row and "id" in row and "trace_id" not in row:
        return "traces"
    return None


def _text_lines(path: Path) -> Iterator[tuple[int, str]]:
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
            yield from enumerate(fh, 1)
    except (OSError, EOFError) as exc:  # a cut-off gzip member raises EOFError
        raise ImportFailed(f"{path}: cannot read: {exc}") from None


def _label(path: Path) -> str:
    table = table_of_path(path)
    return f"{table}/{path.name}" if table else path.name


def read_rows(path: Path, file: str) -> Iterator[Row | ImportProblem]:
    """The rows of one export file, each as ``(where, row)``, and a problem (naming ``file`` and
    the line or row, ``dropped=1``) for each one that is not a JSON object. Raises
    :class:`ImportFailed` for a file that cannot be read at all (CSV; Parquet without pyarrow,
    naming the extra to install)."""
    name = path.name.removesuffix(".gz")
    label = _label(path)
    if name.endswith(".csv"):
        raise ImportFailed(f"{path}: CSV exports are not read (their values are all text); set the export "
                           "to JSONL, JSON or Parquet")
    if name.endswith(".parquet") or _magic(path) == PARQUET_MAGIC:
        yield from parquet_rows(path, label, "or set the export to JSONL")
        return
    if name.endswith(".json"):
        text = "".join(line for _, line in _text_lines(path))
        try:
            doc = json.loads(text) if text.strip() else []
        except ValueError as exc:
            raise ImportFailed(f"{path}: not JSON: {exc}{cut_short(exc)}") from None
        rows = doc if isinstance(doc, list) else [doc]
        for i, row in enumerate(rows, 1):
            if isinstance(row, Mapping):
                yield f"{label} row {i}", dict(row)
            else:
                yield ImportProblem(file, f"{label} row {i}", f"not an object ({type(row).__name__})", dropped=1)
        return
    for n, line in _text_lines(path):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            yield ImportProblem(file, f"{label} line {n}", f"not JSON: {exc}", dropped=1)
            continue
        if isinstance(row, Mapping):
            yield f"{label} line {n}", dict(row)
        else:
            yield ImportProblem(file, f"{label} line {n}", f"not an object ({type(row).__name__})", dropped=1)


def manifest_files(path: Path, doc: Mapping[str, Any]) -> list[Path]:
    """The data files a run manifest lists (``files[].key``, full object keys), found beside the
    manifest: ``{project}/manifests/{ts}.json`` -> ``{project}/{table}/{name}`` (the key's last
    two parts). Raises :class:`ImportFailed` naming a listed file that is not there."""
    project = path.parent.parent
    out = []
    for entry in doc.get("files") or []:
        key = str(entry.get("key") or "") if isinstance(entry, Mapping) else ""
        parts = [p for p in key.split("/") if p]
        if len(parts) < 2:
            raise ImportFailed(f"{path}: files[] entry {entry!r} has no object key")
        found = project / parts[-2] / parts[-1]
        if not found.is_file():
            raise ImportFailed(f"{path}: lists {key}, which is not at {found}")
        out.append(found)
    return out


def siblings(path: Path) -> list[Path]:
    """The other tables' files of the same export window as ``path`` (same file name in the
    sibling table folders), for the join by trace id; ``[]`` outside the layout."""
    table = table_of_path(path)
    if table is None:
        return []
    return sorted(p for t in TABLES if t != table for p in [path.parent.parent / t / path.name] if p.is_file())
