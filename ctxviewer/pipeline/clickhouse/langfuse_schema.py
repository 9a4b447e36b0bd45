"""Langfuse's ClickHouse tables, read on open, and the SQL chosen from them: the second table kind
beside the OpenTelemetry exporter's ``otel_traces`` (:mod:`~ctxviewer.pipeline.clickhouse.schema`).

Two generations of tables (facts from langfuse/langfuse: ``packages/shared/clickhouse/migrations``
for v3, ``packages/shared/clickhouse/scripts/dev-tables.sh`` for v4's events tables):

* **v3** -- ``observations`` (``id``, ``trace_id``, ``parent_observation_id``, ``type``,
  ``start_time``...), ``traces`` (``id``, ``timestamp``, ``session_id``, ``user_id``, ``tags``...),
  ``scores`` (``trace_id``, ``observation_id``, ``name``, ``value``, ``data_type``...);
* **v4** -- ``events_full`` (``span_id``, ``parent_span_id``, the trace's ``trace_name``,
  ``user_id``, ``session_id``, ``tags`` on every row; ``metadata_names`` / ``metadata_values``)
  and ``scores``; ``events_core`` is its copy with input and output cut to 200 characters, so
  content is always read from ``events_full``.

Every table is a ``ReplacingMergeTree(event_ts, is_deleted)``: a row's versions are merged only
eventually, so every read de-duplicates -- ``FINAL`` (:data:`FINAL`, the default for windows up to
:data:`FINAL_UP_TO`) or the latest version by ``event_ts`` with ``LIMIT 1 BY id``
(:data:`LATEST`, larger windows: no merge of whole parts at read time) -- and drops a row whose
latest version has ``is_deleted = 1``. Every query is bounded by ``project_id`` and a time
window on the table's time column (``start_time``; ``timestamp`` for traces and scores), values
are bound parameters, lists are keyed on ``(start_time, id)`` and never use ``OFFSET``.

A model call is a ``GENERATION`` observation with no ``GENERATION`` child (the importer's rule,
:mod:`ctxviewer.importers.formats.langfuse`); its trace id is the observation id. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ctxviewer.pipeline.clickhouse.schema import SETTINGS, quote_name
from ctxviewer.store import StoreError

OBSERVATIONS_V3 = ("id", "trace_id", "project_id", "type", "parent_observation_id", "start_time", "end_time",
                   "name", "input", "output", "event_ts", "is_deleted")
"""The v3 ``observations`` columns this backend needs (a table without one is not this kind)."""
EVENTS_V4 = ("span_id", "trace_id", "project_id", "type", "parent_span_id", "start_time", "end_time", "name",
             "input", "output", "event_ts", "is_deleted")
"""The v4 ``events_full`` columns this backend needs."""
TABLES = ("observations", "events_full", "events_core")
"""Table names that are Langfuse's observations (``traces`` and ``scores`` are read beside them)."""
FINAL = "final"
LATEST = "latest"
FINAL_UP_TO = timedelta(hours=24)
"""Windows up to this long read with ``FINAL``; longer ones take each id's latest version."""
TRACE_MARGIN_NS = 24 * 3600 * 10**9
"""How far before the window a model call's trace row, ancestors and scores are looked for (ns):
a trace starts before its calls."""


def is_langfuse(columns: dict[str, str]) -> bool:
    """Whether a table's columns are Langfuse's observations (v3) or events (v4)."""
    return all(c in columns for c in OBSERVATIONS_V3) or all(c in columns for c in EVENTS_V4)


@dataclass(frozen=True)
class LangfuseSchema:
    """Langfuse's tables in one database as read on open (module docstring)."""

    database: str
    table: str
    """The observations table: ``observations`` (v3) or ``events_full`` (v4; ``events_core`` is read as it)."""
    columns: dict[str, str]
    version: str
    traces: bool
    """Whether a ``traces`` table is there (v3: the trace's session, user, tags)."""
    scores: bool
    """Whether a ``scores`` table is there."""
    dedup: str = FINAL
    """:data:`FINAL` or :data:`LATEST`."""

    @property
    def v4(self) -> bool:
        """Whether the table is v4's ``events_full`` (``span_id``, ``parent_span_id``)."""
        return "span_id" in self.columns

    @property
    def id_col(self) -> str:
        return "span_id" if self.v4 else "id"

    @property
    def parent_col(self) -> str:
        return "parent_span_id" if self.v4 else "parent_observation_id"

    def _name(self, table: str) -> str:
        return f"{quote_name(self.database)}.{quote_name(table)}"

    # -- the de-duplicated rows of a table
    def _latest(self, table: str, key: str, where: str, columns: str = "*") -> str:
        """``table``'s rows matching ``where``, one per ``key`` (its latest version), none deleted."""
        if self.dedup == FINAL:
            return f"(SELECT {columns} FROM {self._name(table)} FINAL WHERE {where} AND is_deleted = 0)"
        return (f"(SELECT {columns} FROM (SELECT * FROM {self._name(table)} WHERE {where} ORDER BY event_ts DESC "
                f"LIMIT 1 BY {key}) WHERE is_deleted = 0)")

    @staticmethod
    def window(column: str = "start_time", margin: bool = False) -> str:
        """``project_id`` and the time window (``{lo:Int64}``, ``{hi:Int64}`` ns) on ``column``;
        with ``margin`` the window starts :data:`TRACE_MARGIN_NS` earlier."""
        lo = "{lo:Int64} - {margin:Int64}" if margin else "{lo:Int64}"
        return (f"project_id = {{project:String}} AND {column} >= fromUnixTimestamp64Nano({lo}) "
                f"AND {column} <= fromUnixTimestamp64Nano({{hi:Int64}})")

    def generations(self, extra: str = "") -> str:
        """The model calls of the window (a ``GENERATION`` with no ``GENERATION`` child), de-duplicated."""
        gens = f"{self.window()} AND type = 'GENERATION'"
        parents = self._latest(self.table, self.id_col, gens, self.parent_col)
        return self._latest(self.table, self.id_col, f"{gens}{extra}") + (
            f" AS g WHERE g.{self.id_col} NOT IN (SELECT {self.parent_col} FROM {parents} "
            f"WHERE {self.parent_col} IS NOT NULL AND {self.parent_col} != '')")

    def row_select(self) -> str:
        """The narrow columns of a list row (:func:`ctxviewer.pipeline.clickhouse.langfuse_source.list_row`)."""
        return (f"toUnixTimestamp64Nano(toDateTime64(start_time, 9)), trace_id, {self.id_col}, "
                "ifNull(provided_model_name, ''), level, ifNull(status_message, ''), name")

    def page_sql(self, after: bool, descending: bool = False) -> str:
        """One page of model calls in ``(start_time, id)`` order after the key ``({ts:Int64},
        {span:String})`` when ``after``; ``{limit:UInt64}`` rows. Never OFFSET."""
        op, direction = ("<", " DESC") if descending else (">", "")
        keyset = (f" AND (start_time, {self.id_col}) {op} (fromUnixTimestamp64Nano({{ts:Int64}}), {{span:String}})"
                  if after else "")
        return (f"SELECT {self.row_select()} FROM {self.generations()}{keyset} "
                f"ORDER BY start_time{direction}, {self.id_col}{direction} LIMIT {{limit:UInt64}}")

    def count_sql(self) -> str:
        """The exact number of model calls in the window."""
        return f"SELECT count() FROM {self.generations()}"

    def call_sql(self) -> str:
        """The narrow row of one model call, by ``{span:String}`` (its observation id)."""
        return (f"SELECT {self.row_select()} FROM {self.generations()} AND g.{self.id_col} = {{span:String}} "
                "LIMIT 1")

    def trace_sql(self) -> str:
        """Every observation of one Langfuse trace (``{trace:String}``), whole (the only query that
        reads input and output), from the margin before the window on."""
        return (f"SELECT * FROM {self._latest(self.table, self.id_col, f'{self.window(margin=True)} AND trace_id = {{trace:String}}')} "
                f"ORDER BY start_time, {self.id_col}")

    def trace_row_sql(self) -> str:
        """The ``traces`` row of ``{trace:String}`` (v3)."""
        return f"SELECT * FROM {self._latest('traces', 'id', self.window('timestamp', True) + ' AND id = {trace:String}')}"

    def scores_sql(self) -> str:
        """The scores of ``{trace:String}``, in time order."""
        where = self.window("timestamp", True) + " AND trace_id = {trace:String}"
        return f"SELECT * FROM {self._latest('scores', 'id', where)} ORDER BY timestamp, id"

    def session_sql(self) -> str:
        """The model calls of one session (``{session:String}``) in send order: ``id``s."""
        if self.v4:
            extra = " AND session_id = {session:String}"
        elif self.traces:
            trace_ids = self._latest("traces", "id", self.window("timestamp", True) + " AND session_id = {session:String}", "id")
            extra = f" AND trace_id IN (SELECT id FROM {trace_ids})"
        else:
            return "SELECT '' WHERE 0"
        return f"SELECT {self.id_col} FROM {self.generations(extra)} ORDER BY start_time, {self.id_col}"


def _columns(client: Any, database: str, table: str, settings: dict[str, Any]) -> dict[str, str]:
    rows = client.query("SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String}",
                        parameters={"db": database, "t": table}, settings=settings).result_rows
    return {str(n): str(t) for n, t in rows}


def read_langfuse_schema(client: Any, database: str, table: str, name: str, timeout: int = 30,
                         window: timedelta = FINAL_UP_TO, dedup: str | None = None) -> LangfuseSchema | None:
    """The :class:`LangfuseSchema` of ``database.table`` from ``system.columns`` and ``version()``,
    or ``None`` when the table's columns are not Langfuse's (another kind). ``events_core`` is read
    as ``events_full`` (its input and output are cut). ``dedup`` ``final`` / ``latest`` (``None``:
    by the ``window`` length). Raises :class:`~ctxviewer.store.StoreError` naming ``name`` for a
    missing table or an ``events_core`` without its ``events_full``."""
    settings: dict[str, Any] = dict(SETTINGS, max_execution_time=timeout)
    columns = _columns(client, database, table, settings)
    if not columns:
        raise StoreError(name, f"no table {database}.{table} (or no columns visible to this user)")
    if not is_langfuse(columns):
        return None
    if table == "events_core":
        table = "events_full"
        columns = _columns(client, database, table, settings)
        if not is_langfuse(columns):
            raise StoreError(name, f"events_core holds input and output cut to 200 characters, and "
                             f"{database}.events_full (the whole rows) is not there")
    has = {t: bool(_columns(client, database, t, settings)) for t in ("traces", "scores")}
    version = str(client.query("SELECT version()", settings=settings).result_rows[0][0])
    mode = dedup or (FINAL if window <= FINAL_UP_TO else LATEST)
    if mode not in (FINAL, LATEST):
        raise StoreError(name, f"dedup={mode!r}: expected {FINAL} or {LATEST}")
    return LangfuseSchema(database, table, columns, version, has["traces"], has["scores"], mode)
