"""Langfuse blob-storage exports (``langfuse-blob``): the scheduled S3 / GCS / Azure export of a
project's ``traces``, ``observations`` (or enriched ``observations_v2``) and ``scores`` tables, one
file per table and time window (layout and files: :mod:`.blob_files`), joined by trace id and
mapped by the trace download's own code path (:func:`ctxviewer.importers.formats.langfuse.trace_records`
over the rows made ``Observation`` / ``Trace`` / ``Score`` objects by :mod:`.rows`): a generation
that has no generation child is one trace, every observation a step of the run tree, scores kept as
``ctxviewer.scores``, usage and cost as the download's, unmapped columns in ``ctxviewer.unmapped``.

What one import reads:

* a **run manifest** (``manifests/{ts}.json``, Langfuse's unit of work): every file its
  ``files[].key`` lists, joined;
* a **data file** in the export layout: it and the other tables' files of the same window (same
  name in the sibling folders), joined; a ``traces`` / ``scores`` / legacy ``observations`` file
  whose window has an (enriched) observations file is read through that file (a warning says so,
  so a folder import never reads a window twice);
* a data file outside the layout: its own rows (the table of each row told by its columns).

Rows are de-duplicated by id, the latest ``updated_at`` (else ``event_ts``, else the later row)
kept: adjacent windows share an inclusive boundary (export docs, "Deduplicate records by ID").
A row that cannot be read or names no id is a problem naming the file and its line; the rest
still loads. A score about no trace of the import is named and left out. No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ctxviewer.importers.common.containers import head_text
from ctxviewer.importers.common.peek import peek_json
from ctxviewer.importers.contract import SPECIFIC, ImportFailed, ImportProblem, Record, RunRecord
from ctxviewer.importers.formats.langfuse import rows as lr
from ctxviewer.importers.formats.langfuse import trace_records
from ctxviewer.importers.formats.langfuse.blob_files import (
    PARQUET_MAGIC,
    Row,
    manifest_files,
    parquet_columns,
    read_rows,
    siblings,
    table_of_path,
    table_of_row,
)
from ctxviewer.model.run import RunSpan

_OBSERVATION_KEYS = {"trace_id", "start_time", "type"}
_SCORE_KEYS = {"data_type", "value", "name"}


def _row_keys(keys: set[str]) -> str | None:
    """The table a row of these column names is (:func:`.blob_files.table_of_row`)."""
    return table_of_row(dict.fromkeys(keys))


class _Rows:
    """The rows of one import, by table, de-duplicated by id (latest ``updated_at`` wins)."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.tables: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {
            "observations": {}, "traces": {}, "scores": {}}
        self.problems: list[ImportProblem] = []

    def add(self, where: str, row: dict[str, Any], table: str | None) -> None:
        table = table or table_of_row(row)
        if table == "observations_v2":
            table = "observations"
        rid = row.get("span_id") if row.get("id") in (None, "") else row.get("id")
        if table not in self.tables:
            self.problems.append(ImportProblem(self.file, where, "not a row of traces, observations or scores "
                                               f"(columns: {', '.join(sorted(row)[:8])})", dropped=1))
            return
        if rid in (None, "") or (table == "observations" and row.get("trace_id") in (None, "")):
            self.problems.append(ImportProblem(self.file, where, f"{table} row without "
                                               f"{'an id' if rid in (None, '') else 'a trace_id'}", dropped=1))
            return
        held = self.tables[table].get(str(rid))
        if held is None or _version(row) >= _version(held[1]):
            self.tables[table][str(rid)] = (where, row)


def _namer(origin: Mapping[str, str]) -> Callable[[Mapping[str, Any]], str]:
    """How a problem names an observation: the file and line of its row, and its id."""
    return lambda o: f"{origin.get(str(o.get('id')), 'observation')} (observation {o.get('id')})"


def _version(row: Mapping[str, Any]) -> str:
    return str(row.get("updated_at") or row.get("event_ts") or "")


def joined(file: str, rows: _Rows) -> Iterator[RunRecord]:
    """The records of the rows of one import: per trace (in order of its first observation), the
    trace download's mapping (:func:`~ctxviewer.importers.formats.langfuse.trace_records`) over
    its observations, with its trace row (or the trace fields of its enriched rows) and scores."""
    yield from rows.problems
    by_trace: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for where, row in sorted(rows.tables["observations"].values(), key=lambda wr: str(wr[1].get("start_time"))):
        by_trace.setdefault(str(row["trace_id"]), []).append((where, row))
    scores: dict[str, list[dict[str, Any]]] = {}
    for where, row in rows.tables["scores"].values():
        tid = row.get("trace_id")
        if tid in (None, "") or str(tid) not in by_trace:
            about = f"trace {tid}, which has no observations in this import" if tid not in (None, "") else (
                f"session {row.get('session_id')}" if row.get("session_id") else "no trace")
            yield ImportProblem(file, where, f"score {row.get('id')} ({row.get('name')}) is about {about}; "
                                "not imported (scores are kept on the traces of their observations)", dropped=1)
            continue
        scores.setdefault(str(tid), []).append(lr.score(row))
    traces = {tid: row for tid, (_w, row) in rows.tables["traces"].items()}
    for tid, obs in by_trace.items():
        trace = lr.trace_of_observation_row(obs[0][1])
        if tid in traces:
            trace.update(lr.trace(traces[tid]))
        trace["scores"] = scores.get(tid, [])
        mapped = [(w, lr.observation(r)) for w, r in obs]
        yield from trace_records(file, trace, [o for _w, o in mapped], _namer({str(o.get("id")): w for w, o in mapped}))
    for tid, (where, _row) in rows.tables["traces"].items():
        if tid not in by_trace:
            yield ImportProblem(file, where, f"trace {tid} has no observations in this import; nothing to show "
                                "for it (its model calls are observations)")


def table_records(source: str, observations: Iterable[Row], traces: Iterable[Row] = (),
                  scores: Iterable[Row] = ()) -> Iterator[RunRecord]:
    """The records of rows read from Langfuse's tables elsewhere (a ClickHouse store: one trace's
    observations, its trace row and scores), as one import of them (:func:`joined`); problems
    name ``source`` and each row's ``where``."""
    rows = _Rows(source)
    for table, found in (("observations", observations), ("traces", traces), ("scores", scores)):
        for where, row in found:
            rows.add(where, row, table)
    yield from joined(source, rows)


class LangfuseBlobImporter:
    """The ``langfuse-blob`` importer (see module docstring)."""

    name = "langfuse-blob"
    records_omissions = False
    description = "Langfuse blob-storage exports (traces / observations / scores files: JSONL, JSON, Parquet; run manifests)"

    def sniff(self, path: Path, head: bytes) -> float:
        """:data:`~ctxviewer.importers.contract.SPECIFIC` for a run manifest (``files`` with
        object ``key`` s and ``exportSource`` / ``tables`` / ``window``) or a file whose first row
        has the export's snake-case columns (``trace_id`` + ``start_time`` + ``type``; a score's
        ``data_type`` + ``value``; a trace row in a ``traces/`` folder); a Parquet file by its
        footer's columns (0.3 when pyarrow is missing, so loading says what to install); else 0."""
        if head.startswith(PARQUET_MAGIC):
            cols = parquet_columns(path)
            if cols is None:
                return 0.3
            return SPECIFIC if _row_keys(set(cols)) else 0.0
        peek = peek_json(head_text(head).encode("utf-8"))
        if peek.kind == "object":
            keys = set(peek.keys(""))
            if "files" in keys and keys & {"exportSource", "tables", "window"}:
                return SPECIFIC
        elif peek.kind == "array":
            keys = set(peek.keys("item"))
        else:
            return 0.0
        found = _row_keys(keys)
        if found in ("observations", "observations_v2", "scores") and "parentObservationId" not in keys:
            return SPECIFIC
        return SPECIFIC if found == "traces" and table_of_path(path) == "traces" else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        """:meth:`load_runs` without the run steps."""
        for record in self.load_runs(path):
            if not isinstance(record, RunSpan):
                yield record

    def load_runs(self, path: Path) -> Iterator[RunRecord]:
        """The traces of the rows this file stands for (module docstring), the problems, and every
        observation as a step of the run. Raises :class:`ImportFailed` for a file that cannot be
        read (a Parquet file without pyarrow names the extra)."""
        file = str(path)
        files = self._files(path)
        if not files:
            return
        if isinstance(files[0], ImportProblem):
            yield files[0]
            return
        rows = _Rows(file)
        for f in files:
            assert isinstance(f, Path)
            for item in read_rows(f, file):
                if isinstance(item, ImportProblem):
                    yield item
                else:
                    rows.add(item[0], item[1], table_of_path(f))
        yield from joined(file, rows)

    @staticmethod
    def _files(path: Path) -> list[Path] | list[ImportProblem]:
        """The files one import of ``path`` reads (module docstring), or a problem saying which file
        reads this one's rows."""
        if path.parent.name == "manifests" or path.name.endswith(".json"):
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                doc = None
            if isinstance(doc, Mapping) and isinstance(doc.get("files"), list):
                return manifest_files(path, doc)
        table = table_of_path(path)
        others = siblings(path)
        if table is not None and table != "observations_v2":
            reader = next((p for p in others if table_of_path(p) == "observations_v2"), None)
            if reader is None and table != "observations":
                reader = next((p for p in others if table_of_path(p) == "observations"), None)
            if reader is not None:
                return [ImportProblem(str(path), "whole file", f"its rows are read with the observations of the "
                                      f"same window: import {reader.parent.name}/{reader.name} (or the run manifest)")]
        if table == "observations_v2":
            others = [p for p in others if table_of_path(p) != "observations"]  # the legacy copy of the same rows
        return [path, *others]


IMPORTER = LangfuseBlobImporter()

__all__ = ["IMPORTER", "ImportFailed", "LangfuseBlobImporter", "joined", "table_records"]
