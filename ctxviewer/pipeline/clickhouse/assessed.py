"""Assessment on demand for a ClickHouse store, kept in a local sidecar.

A ClickHouse table holds no assessment: its list rows carry the span's own columns only
(``retained_count`` ``None``). The rows a surface shows -- the window's visible page, a page of
``ctxviewer list URL`` -- are assessed as an import would assess them (the trace loaded by the
table kind's mapping, dropped turns derived, :func:`ctxviewer.pipeline.stored_facts.stored_facts`,
the row laid out by :func:`ctxviewer.store.trace_row.trace_row_values`) and kept in a local SQLite
file, the *sidecar* (:func:`sidecar_path`: one per store, in the user's cache directory), keyed by
``(store, trace id, rule-set fingerprint)`` -- the trace id is the span id (``TraceId:SpanId``,
or a Langfuse observation id) and the fingerprint
:attr:`ctxviewer.assess.context.AssessContext.fingerprint` (the rule set and the settings), so a
row assessed with other settings or by another release is assessed again, never reused.

The sidecar holds the store's own ``traces`` columns (:data:`ctxviewer.store.query.ROW_COLUMNS`)
and ``trace_findings`` rows, so a display filter on the assessment (``state``, ``finding``,
``margin`` ...) is the SQLite store's own filter (:func:`ctxviewer.store.filters.compile_filter`),
run on the rows assessed so far (:func:`assessed_matches`) -- and says so: it covers the assessed
rows of the window only (:attr:`AssessedMatches.note`). The source's own
:meth:`~ctxviewer.pipeline.clickhouse.source.ClickHouseSource.filter_where` serves such a filter
this way (the matching span ids sent to the server), so the window's list and ``ctxviewer list``
show the same rows. Item fields, ``text`` and ``score`` are not
kept here (a :class:`~ctxviewer.store.filters.FilterError` names them).

A row of the table that changes after it was assessed (a Langfuse row's newer version under the same
id) keeps its assessed row until the settings change; the sidecar may be deleted at any time (it is
a cache). Nothing here writes to the store. No Qt here.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol, Sequence, cast

from ctxviewer.store.filters import FilterError
from ctxviewer.store.query import ROW_COLUMNS, TraceRow

SIDECAR_VERSION = 2
"""The sidecar's layout version (``PRAGMA user_version``); a file of another is emptied and rebuilt."""
_COLS = ROW_COLUMNS[1:]  # every traces column after trace_id
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS assessed (store TEXT NOT NULL, fingerprint TEXT NOT NULL, trace_id TEXT NOT NULL, "
    + ", ".join(_COLS) + ", PRIMARY KEY (store, fingerprint, trace_id)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS assessed_findings (store TEXT NOT NULL, fingerprint TEXT NOT NULL, "
    "trace_id TEXT NOT NULL, rule TEXT NOT NULL, severity TEXT, count INTEGER, "
    "PRIMARY KEY (store, fingerprint, trace_id, rule)) WITHOUT ROWID",
)
"""The sidecar's tables: ``assessed`` (one ``traces`` row per store, fingerprint and trace id) and
``assessed_findings`` (its ``trace_findings`` rows: rule, worst severity, count)."""


class _Source(Protocol):
    """What this module reads of a ClickHouse source (:class:`~ctxviewer.pipeline.clickhouse.source.ClickHouseSource`)."""

    window: tuple[int, int]

    def load(self, trace_id: str) -> Any: ...


def store_key(target: Any, project: str | None = None) -> str:
    """The name a store's rows are kept under: ``scheme://host:port/database.table`` (the
    ``project_id`` after ``#`` for a Langfuse table). The window, timeout and user are left out:
    the same span assessed with the same settings concludes the same."""
    port = f":{target.port}" if target.port is not None else ""
    name = f"{target.scheme}://{target.host}{port}/{target.database}.{target.table}"
    return f"{name}#{project}" if project else name


def sidecar_path(key: str) -> Path:
    """The sidecar of the store ``key`` (:func:`store_key`): ``<user cache dir>/ctxviewer/
    clickhouse/<16 hex of sha256(key)>.assessed.sqlite`` (platformdirs' ``user_cache_dir``:
    ``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux)."""
    import platformdirs

    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    return Path(platformdirs.user_cache_dir("ctxviewer")) / "clickhouse" / f"{digest}.assessed.sqlite"


@dataclass(frozen=True)
class AssessedMatches:
    """What a filter on the assessment found among the assessed rows (:func:`assessed_matches`)."""

    rows: list[TraceRow]
    """The matching assessed rows of the window, in send order."""
    assessed: int
    """How many rows of the window are assessed with these settings (the rows the filter covered)."""
    note: str
    """In words, what the filter covered: ``"the filter covers the 4 rows assessed so far in this
    window with these settings, not the rows not yet shown"``."""


class AssessedRows:
    """The sidecar file (module docstring), safe to share between threads (one connection, a lock).

    ``path`` ``None`` keeps it in memory. A file that cannot be created or read (a read-only cache
    directory, a damaged file) is replaced by an in-memory one and :attr:`problem` says why."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.problem: str | None = None
        """Why the sidecar is in memory although a file was asked for (``None``: it is not)."""
        self.context: Any = None
        """The :class:`~ctxviewer.assess.context.AssessContext` rows were last assessed in (by
        :func:`assess_rows`): a filter on the assessment reads the rows of its fingerprint."""
        self.notes: dict[str, str] = {}
        """Filter text -> what it covered (:attr:`AssessedMatches.note`), for the last run of each."""
        self._lock = threading.Lock()
        try:
            self._conn = self._open(path)
        except (OSError, sqlite3.Error) as exc:
            self.problem = f"{path}: {exc}; assessed rows are kept in memory for this session"
            self._conn = self._open(None)

    @staticmethod
    def _open(path: Path | None) -> sqlite3.Connection:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(":memory:" if path is None else str(path), check_same_thread=False,
                               isolation_level=None, timeout=5.0)
        if path is not None:
            conn.execute("PRAGMA journal_mode=WAL")
        if conn.execute("PRAGMA user_version").fetchone()[0] not in (0, SIDECAR_VERSION):
            conn.execute("DROP TABLE IF EXISTS assessed")
            conn.execute("DROP TABLE IF EXISTS assessed_findings")
        for ddl in SCHEMA:
            conn.execute(ddl)
        conn.execute(f"PRAGMA user_version = {SIDECAR_VERSION}")
        return conn

    def close(self) -> None:
        """Close the file. Idempotent."""
        with self._lock:
            self._conn.close()

    def get(self, store: str, fingerprint: str, trace_ids: Sequence[str]) -> dict[str, TraceRow]:
        """The assessed rows of ``trace_ids`` (those kept; trace id -> row)."""
        out: dict[str, TraceRow] = {}
        with self._lock:
            for i in range(0, len(trace_ids), 500):
                part = list(trace_ids[i:i + 500])
                marks = ",".join("?" * len(part))
                for r in self._conn.execute(
                        f"SELECT {', '.join(ROW_COLUMNS)} FROM assessed WHERE store = ? AND fingerprint = ? "
                        f"AND trace_id IN ({marks})", (store, fingerprint, *part)):
                    out[r[0]] = TraceRow.from_sql(r)
        return out

    def put(self, store: str, fingerprint: str, values: tuple[Any, ...],
            findings: Iterable[tuple[str, str, int]]) -> None:
        """Keep one assessed row: its ``traces`` values (:data:`~ctxviewer.store.query.ROW_COLUMNS`
        order) and its findings ``(rule, severity, count)``, replacing what was kept for that key."""
        tid = values[0]
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                self._conn.execute(f"INSERT OR REPLACE INTO assessed (store, fingerprint, {', '.join(ROW_COLUMNS)}) "
                                   f"VALUES (?, ?, {', '.join('?' * len(ROW_COLUMNS))})", (store, fingerprint, *values))
                self._conn.execute("DELETE FROM assessed_findings WHERE store = ? AND fingerprint = ? AND trace_id = ?",
                                   (store, fingerprint, tid))
                self._conn.executemany("INSERT INTO assessed_findings VALUES (?, ?, ?, ?, ?, ?)",
                                       [(store, fingerprint, tid, *f) for f in findings])
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def matching(self, store: str, fingerprint: str, text: str, lo: str, hi: str) -> tuple[list[TraceRow], int]:
        """The kept rows of ``store`` with ``created`` in ``[lo, hi]`` (ISO-8601 UTC text) matching
        the display filter ``text`` (the SQLite store's filter, run on them), in send order, and how
        many rows the window has assessed. Raises :class:`~ctxviewer.store.filters.FilterError` for a
        bad filter or a field the sidecar does not keep (items, ``text``, scores)."""
        from ctxviewer.store.filters import compile_filter, quote

        compiled = compile_filter(text)
        keep = f"store = {quote(store)} AND fingerprint = {quote(fingerprint)}"
        with self._lock:
            self._conn.execute("DROP VIEW IF EXISTS temp.traces")  # the filter's tables: this store's rows
            self._conn.execute(f"CREATE TEMP VIEW traces AS SELECT {', '.join(ROW_COLUMNS)} FROM assessed "
                               f"WHERE {keep} AND created >= {quote(lo)} AND created <= {quote(hi)}")
            self._conn.execute("DROP VIEW IF EXISTS temp.trace_findings")
            self._conn.execute("CREATE TEMP VIEW trace_findings AS SELECT trace_id, rule, severity, count "
                               f"FROM assessed_findings WHERE {keep}")
            try:
                rows = [TraceRow.from_sql(r) for r in self._conn.execute(
                    f"SELECT {', '.join(ROW_COLUMNS)} FROM traces WHERE ({compiled.where}) ORDER BY created, trace_id",
                    compiled.params)]
            except sqlite3.OperationalError as exc:
                missing = str(exc).removeprefix("no such table: ")
                raise FilterError(f"{text.strip()}: reads {missing}, which the assessed rows of a ClickHouse "
                                  "store do not keep (only the trace fields and findings)", 0, text) from None
            assessed = int(self._conn.execute("SELECT count(*) FROM traces").fetchone()[0])
        return rows, assessed


def assess_rows(source: _Source, store: str, cache: AssessedRows, rows: Sequence[TraceRow], context: Any,
                cancelled: Callable[[], bool] | None = None) -> list[TraceRow]:
    """``rows`` (list rows of ``source``) as assessed rows, in order: those kept in ``cache`` for
    ``context``'s fingerprint read from it, the others loaded from ``source``, assessed in
    ``context`` (an :class:`~ctxviewer.assess.context.AssessContext`) and kept. A row whose trace
    cannot be loaded (``KeyError``: gone from the window) is left out; ``cancelled()`` is polled
    between rows (the rows done so far are returned). Raises :class:`~ctxviewer.store.StoreError`
    when the source cannot be read."""
    fingerprint = context.fingerprint
    cache.context = context
    kept = cache.get(store, fingerprint, [r.trace_id for r in rows])
    out: list[TraceRow] = []
    for row in rows:
        if row.trace_id in kept:
            out.append(kept[row.trace_id])
            continue
        if cancelled is not None and cancelled():
            break
        try:
            trace = source.load(row.trace_id)
        except KeyError:
            continue
        out.append(_assess(source, store, cache, trace, context))
    return out


def _assess(source: _Source, store: str, cache: AssessedRows, trace: Any, context: Any) -> TraceRow:
    """``trace`` (as loaded from ``source``) assessed as an import assesses it, kept in ``cache``."""
    from ctxviewer.diff.conversation import derive_for_display
    from ctxviewer.pipeline.stored_facts import stored_facts
    from ctxviewer.store.trace_row import trace_row_values

    derived = derive_for_display(source, trace)  # type: ignore[arg-type]
    facts = stored_facts(derived, context)
    values = trace_row_values(derived, facts)
    cache.put(store, context.fingerprint, values, facts.findings)
    return TraceRow.from_sql(values)


def assess_traces(source: _Source, store: str, cache: AssessedRows, traces: Sequence[Any],
                  context: Any) -> dict[str, TraceRow]:
    """Trace id -> assessed row of ``traces`` (already loaded from ``source``: a run's model
    calls), from ``cache`` when kept for ``context``'s fingerprint, else assessed as
    :func:`assess_rows` assesses a row and kept."""
    cache.context = context
    kept = cache.get(store, context.fingerprint, [t.trace_id for t in traces])
    return {t.trace_id: kept.get(t.trace_id) or _assess(source, store, cache, t, context) for t in traces}


def assessed_matches(source: _Source, store: str, cache: AssessedRows, text: str, context: Any) -> AssessedMatches:
    """The rows of ``source``'s window assessed so far in ``context`` that match the display filter
    ``text`` (:meth:`AssessedRows.matching`), with what the filter covered in words. Raises
    :class:`~ctxviewer.store.filters.FilterError` for a bad filter or a field not kept."""
    from ctxviewer.model.times import format_created
    from ctxviewer.pipeline.clickhouse.spans import at_nanos

    lo, hi = (format_created(at_nanos(ns)) or "" for ns in source.window)
    rows, assessed = cache.matching(store, context.fingerprint, text, lo, hi)
    note = (f"the filter reads the assessment: it covers the {assessed:,} "
            f"{'row' if assessed == 1 else 'rows'} of this window assessed so far with these settings, "
            "not the rows not yet shown (list them to assess them, or pull the window: "
            "ctxviewer import URL -o local.db)")
    cache.notes[text.strip()] = note
    return AssessedMatches(rows, assessed, note)


class OnDemand:
    """Assessment on demand, as methods of a ClickHouse source
    (:class:`~ctxviewer.pipeline.clickhouse.source.ClickHouseSource` inherits them): the sidecar
    opened on first use and shared with the source's reader handles."""

    target: Any
    schema: Any
    _lock: threading.Lock
    _assessed: AssessedRows | None

    @property
    def store_key(self) -> str:
        """The name this store's assessed rows are kept under in the sidecar (:func:`store_key`)."""
        return store_key(self.target, getattr(self, "project", None))

    def assessed(self) -> AssessedRows:
        """The sidecar of assessed rows (:func:`sidecar_path`; opened on first use)."""
        with self._lock:
            if self._assessed is None:
                self._assessed = AssessedRows(sidecar_path(self.store_key))
            return self._assessed

    def assess_rows(self, rows: Sequence[TraceRow], context: Any,
                    cancelled: Callable[[], bool] | None = None) -> list[TraceRow]:
        """``rows`` assessed in ``context``, from the sidecar or computed and kept there (:func:`assess_rows`)."""
        return assess_rows(cast(_Source, self), self.store_key, self.assessed(), rows, context, cancelled)

    def assess_traces(self, traces: Sequence[Any], context: Any) -> dict[str, TraceRow]:
        """``traces`` (loaded from this source) assessed in ``context`` (:func:`assess_traces`)."""
        return assess_traces(cast(_Source, self), self.store_key, self.assessed(), traces, context)

    def assessed_matches(self, text: str, context: Any) -> AssessedMatches:
        """The assessed rows of the window matching ``text``, and what they cover (:func:`assessed_matches`)."""
        return assessed_matches(cast(_Source, self), self.store_key, self.assessed(), text, context)

    def _assessed_where(self, text: str) -> tuple[str, list[Any]] | None:
        """A filter on the assessment served from the sidecar (:meth:`assessed_matches`, in the
        context rows were last assessed in): the matching span ids as a WHERE on the table, or
        ``None`` when no row of the window is assessed yet or the sidecar cannot serve ``text`` either."""
        cache = self._assessed
        if cache is None or cache.context is None:
            return None
        try:
            found = self.assessed_matches(text, cache.context)
        except FilterError:
            return None
        if not found.assessed:  # nothing of the window assessed: refused, never an empty answer
            return None
        return self.schema.ids_where("{f0:Array(String)}"), [[r.trace_id for r in found.rows]]

    def filter_note(self, text: str) -> str | None:
        """What a filter served from the sidecar covered (``None``: ``text`` was not one)."""
        return self._assessed.notes.get(text.strip()) if self._assessed is not None else None


__all__ = ["AssessedMatches", "AssessedRows", "OnDemand", "assess_rows", "assess_traces", "assessed_matches",
           "sidecar_path", "store_key"]
