"""What a ClickHouse spans table holds, read on open, and the SQL chosen from it.

The stable contract is the exporter's INSERT column list (:data:`INSERT_COLUMNS`,
``exporter/clickhouseexporter/internal/sqltemplates/traces_insert.sql`` of
opentelemetry-collector-contrib); the DDL around it changed many times and teams run their own.
:func:`read_schema` reads ``system.columns`` and ``version()`` and refuses a table without those
columns, naming the missing ones. The attribute columns are ``Map(LowCardinality(String),
String)`` (the exporter's default DDL) or ``JSON`` (its JSON flavour); :meth:`TableSchema.attr`
is the one place that reads a span attribute in SQL.

Optional accelerators an admin may add (README "Team store") are read on open too and used when
present, with the same results: a ``MATERIALIZED`` ``String`` / ``LowCardinality(String)`` column
whose expression is ``SpanAttributes['gen_ai.operation.name']`` (``gen_ai.request.model``,
``gen_ai.conversation.id``; :data:`ACCELERATED`) is read in place of that attribute
(:attr:`TableSchema.materialized`: the list's columns, the chat-span predicate, the display
filters, a session's spans), and the exact count is then the sum over two disjoint branches (an
operation name of a chat; none, with input messages) so spans with an operation name are counted
from that column alone. A ``text`` skipping index on ``lower(SpanAttributes['gen_ai.input.messages'])``
(:data:`INPUT_INDEX_EXPR`) is recorded (:attr:`TableSchema.input_index`) but search does not use
it: a word may be in any attribute or event of the OTel trace, so the rest of ``SpanAttributes``
is read anyway, and matching the input messages by ``LIKE`` through the index (exact, and
answered from the index) made a no-hit search slower as the table grew on chDB 26.9: 1.3x faster
at 2M spans, 0.9x at 10M, 0.42x at 24M (``benchmarks/bench_clickhouse.py --accelerators`` of
commit 668d661). ``hasToken`` / ``hasAllTokens`` would miss a word right after an escaped newline
(the exporter's JSON text holds ``\\nrefund``).

Every query this backend runs is built here and keeps three rules, asserted on the query text and
``EXPLAIN`` in the tests: the time window (``Timestamp`` between the window's nanosecond bounds)
is in its ``WHERE``; lists are keyed on ``(Timestamp, SpanId)`` -- the next page starts after the
last row's key -- and never use ``OFFSET``; values are bound parameters, never spliced text. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ctxviewer.importers.common.spans.conventions import SEMANTIC_KERNEL_OPERATIONS
from ctxviewer.store import StoreError

INSERT_COLUMNS = (
    "Timestamp", "TraceId", "SpanId", "ParentSpanId", "TraceState", "SpanName", "SpanKind", "ServiceName",
    "ResourceAttributes", "ScopeName", "ScopeVersion", "SpanAttributes", "Duration", "StatusCode",
    "StatusMessage", "Events.Timestamp", "Events.Name", "Events.Attributes", "Links.TraceId", "Links.SpanId",
    "Links.TraceState", "Links.Attributes",
)
"""The OpenTelemetry Collector ClickHouse exporter's INSERT column list (both flavours)."""
NEEDED = ("Timestamp", "TraceId", "SpanId", "ParentSpanId", "SpanName", "SpanKind", "ServiceName",
          "ResourceAttributes", "ScopeName", "ScopeVersion", "SpanAttributes", "Duration", "StatusCode",
          "StatusMessage", "Events.Timestamp", "Events.Name", "Events.Attributes")
"""The columns this backend reads: a table without one is refused on open."""
CHAT_OPERATIONS = ("chat", "generate_content", "text_completion", *sorted(SEMANTIC_KERNEL_OPERATIONS))
"""``gen_ai.operation.name`` values of a model call (as :mod:`ctxviewer.importers.formats.otel.mapping`:
the semconv's, then Semantic Kernel's)."""
ACCELERATED = ("gen_ai.operation.name", "gen_ai.request.model", "gen_ai.conversation.id")
"""The span attributes a materialized column may stand for (README: ``gen_ai_operation_name`` ...)."""
INPUT_INDEX_EXPR = "lower(SpanAttributes['gen_ai.input.messages'])"
"""The expression of the ``text`` index search uses (spaces ignored when compared)."""
SETTINGS = {"readonly": 2}
"""Settings of every query (with ``max_execution_time``): read-only, settings still changeable."""


def quote_name(name: str) -> str:
    """``name`` as a ClickHouse identifier in backticks (backticks and backslashes escaped)."""
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def quote_string(text: str) -> str:
    """``text`` as a ClickHouse string literal (for attribute names only; values are parameters)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True)
class TableSchema:
    """One spans table as read on open: its columns and the server version."""

    database: str
    table: str
    columns: dict[str, str]
    """Column name -> ClickHouse type, as ``system.columns`` gives them."""
    version: str
    """``version()`` of the server (chDB: its engine version)."""
    materialized: dict[str, str] = field(default_factory=dict)
    """Span attribute (of :data:`ACCELERATED`) -> the materialized column read in its place."""
    input_index: str = ""
    """Name of the ``text`` index on :data:`INPUT_INDEX_EXPR` (``""``: none)."""

    @property
    def flavour(self) -> str:
        """``map`` (``SpanAttributes Map(...)``) or ``json`` (``SpanAttributes JSON``)."""
        return "json" if self.columns["SpanAttributes"].startswith("JSON") else "map"

    @property
    def table_sql(self) -> str:
        """``` `db`.`table` ``` for a FROM clause."""
        return f"{quote_name(self.database)}.{quote_name(self.table)}"

    def attr(self, name: str) -> str:
        """SQL for span attribute ``name`` as a ``String`` (``''`` when the span has none): its
        materialized column when the table has one (:attr:`materialized`)."""
        if name in self.materialized:
            return quote_name(self.materialized[name])
        if self.flavour == "json":
            path = ".".join(quote_name(p) for p in name.split("."))
            return f"ifNull(toString(SpanAttributes.{path}), '')"
        return f"SpanAttributes[{quote_string(name)}]"

    def attributes_sql(self, column: str) -> str:
        """SQL reading attribute column ``column`` whole: a Map as is, JSON as its JSON text."""
        if self.columns.get(column, "").startswith("JSON") or self.columns.get(column, "").startswith("Array(JSON"):
            return f"toJSONString({column})"
        return column

    # -- predicates
    def window(self) -> str:
        """The time window: ``Timestamp`` within the bound nanosecond parameters ``lo``, ``hi``."""
        return "Timestamp >= fromUnixTimestamp64Nano({lo:Int64}) AND Timestamp <= fromUnixTimestamp64Nano({hi:Int64})"

    def chat(self) -> str:
        """A model-call span: ``gen_ai.operation.name`` of a chat, or none with input messages."""
        op = self.attr("gen_ai.operation.name")
        ops = ", ".join(quote_string(o) for o in CHAT_OPERATIONS)
        return f"({op} IN ({ops}) OR ({op} = '' AND {self.attr('gen_ai.input.messages')} != ''))"

    # -- queries
    def row_select(self) -> str:
        """The narrow columns of a list row (:func:`ctxviewer.pipeline.clickhouse.spans.list_row`)."""
        a = self.attr
        return (f"toUnixTimestamp64Nano(Timestamp), TraceId, SpanId, ServiceName, {a('gen_ai.request.model')}, "
                f"if({a('gen_ai.provider.name')} != '', {a('gen_ai.provider.name')}, {a('gen_ai.system')}), "
                f"{a('gen_ai.conversation.id')}, {a('gen_ai.operation.name')}, StatusCode, StatusMessage, "
                f"{a('gen_ai.agent.name')}")

    def page_sql(self, after: bool, descending: bool = False, where: str = "") -> str:
        """One page of chat spans in ``(Timestamp, SpanId)`` order, after the key
        ``({ts:Int64}, {span:String})`` when ``after``; ``{limit:UInt64}`` rows; ``where`` a compiled
        display filter (:mod:`ctxviewer.pipeline.clickhouse.filters`) or ``""``. Never OFFSET."""
        op = "<" if descending else ">"
        direction = " DESC" if descending else ""
        keyset = (f" AND (Timestamp, SpanId) {op} (fromUnixTimestamp64Nano({{ts:Int64}}), {{span:String}})"
                  if after else "")
        filt = f" AND {where}" if where else ""
        return (f"SELECT {self.row_select()} FROM {self.table_sql} WHERE {self.window()} AND {self.chat()}{filt}"
                f"{keyset} ORDER BY Timestamp{direction}, SpanId{direction} LIMIT {{limit:UInt64}}")

    def count_sql(self, where: str = "") -> str:
        """The exact number of chat spans in the window (matching ``where`` when given). With a
        materialized operation column, the sum of the two disjoint halves of :meth:`chat` (each
        ``where`` a conjunction, so the engine reads ``SpanAttributes`` only for the spans
        without an operation name)."""
        filt = f" AND {where}" if where else ""
        if "gen_ai.operation.name" not in self.materialized:
            return f"SELECT count() FROM {self.table_sql} WHERE {self.window()} AND {self.chat()}{filt}"
        op = self.attr("gen_ai.operation.name")
        ops = ", ".join(quote_string(o) for o in CHAT_OPERATIONS)
        halves = (f"{op} IN ({ops})", f"{op} = '' AND {self.attr('gen_ai.input.messages')} != ''")
        counts = [f"(SELECT count() FROM {self.table_sql} WHERE {self.window()} AND {h}{filt})" for h in halves]
        return f"SELECT {' + '.join(counts)}"

    @staticmethod
    def ids_where(param: str) -> str:
        """A WHERE fragment keeping the chat spans whose trace ids (``TraceId:SpanId``) are in the
        array parameter ``param`` (``{f0:Array(String)}``)."""
        return f"concat(TraceId, ':', SpanId) IN {param}"

    def span_sql(self) -> str:
        """The narrow row of one chat span, by ``{trace:String}`` and ``{span:String}``."""
        return (f"SELECT {self.row_select()} FROM {self.table_sql} WHERE {self.window()} AND TraceId = {{trace:String}} "
                f"AND SpanId = {{span:String}} AND {self.chat()} LIMIT 1")

    def trace_sql(self) -> str:
        """Every span of one OTel trace (``{trace:String}``), whole: the chat span's content and
        its ancestors and tools (the only query that reads attribute and event content)."""
        cols = ", ".join("arrayMap(x -> toUnixTimestamp64Nano(x), Events.Timestamp)" if c == "Events.Timestamp"
                         else self.attributes_sql(c) if "Attributes" in c else c for c in NEEDED)
        return (f"SELECT toUnixTimestamp64Nano(Timestamp), {cols} FROM {self.table_sql} WHERE {self.window()} "
                f"AND TraceId = {{trace:String}} ORDER BY Timestamp, SpanId")

    def content_sql(self) -> str:
        """SQL for all the attribute and event text of a span, one ``String`` (a superset of its
        items' text: the exporter's values, JSON inside; a search narrows spans with it)."""
        if self.flavour == "json":
            events = "arrayStringConcat(arrayMap(x -> toJSONString(x), `Events.Attributes`), ' ')"
            return f"concat(toJSONString(SpanAttributes), ' ', {events})"
        events = "arrayStringConcat(arrayMap(m -> arrayStringConcat(mapValues(m), ' '), `Events.Attributes`), ' ')"
        return f"concat(arrayStringConcat(mapValues(SpanAttributes), ' '), ' ', {events})"

    def search_candidates_sql(self, words: int, after: bool) -> str:
        """``Timestamp`` ns, ``TraceId``, ``SpanId`` of the chat spans started within the slice
        ``[{s_lo:Int64}, {s_hi:Int64}]`` (after the key ``({ts:Int64}, {span:String})`` when
        ``after``) whose OTel trace holds each of the ``words`` parameters ``{w0:String}``...
        in some span's text (:meth:`content_sql`, ASCII case-insensitive), in key order,
        ``{limit:UInt64}`` rows. The trace's other spans are looked for in the whole window."""
        in_slice = ("Timestamp >= fromUnixTimestamp64Nano({s_lo:Int64}) "
                    "AND Timestamp <= fromUnixTimestamp64Nano({s_hi:Int64})")
        keyset = (" AND (Timestamp, SpanId) > (fromUnixTimestamp64Nano({ts:Int64}), {span:String})" if after else "")
        chats = f"{self.window()} AND {in_slice} AND {self.chat()}{keyset}"
        holds = ""
        if words:
            content = self.content_sql()
            preds = [f"positionCaseInsensitive({content}, {{w{i}:String}}) > 0" for i in range(words)]
            holds = (f" AND TraceId IN (SELECT TraceId FROM {self.table_sql} WHERE {self.window()} "
                     f"AND TraceId IN (SELECT TraceId FROM {self.table_sql} WHERE {chats}) AND ({' OR '.join(preds)}) "
                     f"GROUP BY TraceId HAVING {' AND '.join(f'max({p})' for p in preds)})")
        return (f"SELECT toUnixTimestamp64Nano(Timestamp), TraceId, SpanId FROM {self.table_sql} WHERE {chats}{holds} "
                "ORDER BY Timestamp, SpanId LIMIT {limit:UInt64}")

    def trace_of_span_sql(self) -> str:
        """``TraceId`` of the chat span at ``{ts:Int64}`` ns with ``{span:String}`` (a search cursor's)."""
        return (f"SELECT TraceId FROM {self.table_sql} WHERE {self.window()} "
                "AND Timestamp = fromUnixTimestamp64Nano({ts:Int64}) AND SpanId = {span:String} LIMIT 1")

    def session_sql(self) -> str:
        """``TraceId``, ``SpanId`` of the chat spans of one conversation (``{session:String}``), in order."""
        return (f"SELECT TraceId, SpanId FROM {self.table_sql} WHERE {self.window()} AND {self.chat()} "
                f"AND {self.attr('gen_ai.conversation.id')} = {{session:String}} ORDER BY Timestamp, SpanId")


def read_schema(client: Any, database: str, table: str, name: str, timeout: int = 30) -> TableSchema:
    """The :class:`TableSchema` of ``database.table`` from ``system.columns`` and ``version()``.
    Raises :class:`~ctxviewer.store.StoreError` naming ``name`` (the URL) for a missing table or
    a table without the :data:`NEEDED` columns (the exporter's INSERT list). Both queries run with
    :data:`SETTINGS` and ``max_execution_time`` = ``timeout`` seconds."""
    settings: dict[str, Any] = dict(SETTINGS, max_execution_time=timeout)
    rows = client.query("SELECT name, type, default_kind, default_expression FROM system.columns "
                        "WHERE database = {db:String} AND table = {t:String}",
                        parameters={"db": database, "t": table}, settings=settings).result_rows
    if not rows:
        raise StoreError(name, f"no table {database}.{table} (or no columns visible to this user)")
    columns = {str(r[0]): str(r[1]) for r in rows}
    missing = [c for c in NEEDED if c not in columns]
    if missing:
        raise StoreError(name, f"{database}.{table} is not an OpenTelemetry exporter spans table: "
                         f"no column {', '.join(missing)}")
    version = str(client.query("SELECT version()", settings=settings).result_rows[0][0])
    if columns["SpanAttributes"].startswith("JSON"):
        return TableSchema(database, table, columns, version)
    return TableSchema(database, table, columns, version, materialized_columns(rows),
                       input_index(client, database, table, settings))


def _bare(expr: str) -> str:
    return "".join(str(expr).split())


def materialized_columns(rows: list[Any]) -> dict[str, str]:
    """Of ``system.columns`` rows ``(name, type, default_kind, default_expression)``, the
    accelerator columns: attribute of :data:`ACCELERATED` -> the first ``MATERIALIZED`` column
    (in name order) of type ``String`` or ``LowCardinality(String)`` whose expression is
    ``SpanAttributes['ATTRIBUTE']`` (spaces ignored). Another expression or a ``Nullable`` type
    is not used: it might not say what the attribute says."""
    out: dict[str, str] = {}
    for col, typ, kind, expr in sorted((str(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows):
        if kind != "MATERIALIZED" or typ not in ("String", "LowCardinality(String)"):
            continue
        for attr in ACCELERATED:
            if _bare(expr) == f"SpanAttributes[{quote_string(attr)}]" and attr not in out:
                out[attr] = col
    return out


def input_index(client: Any, database: str, table: str, settings: dict[str, Any]) -> str:
    """The name of the table's ``text`` index on :data:`INPUT_INDEX_EXPR` (``system.data_skipping_indices``),
    or ``""`` when it has none or that table cannot be read (an older server, a user without the grant)."""
    try:
        rows = client.query("SELECT name, type, expr FROM system.data_skipping_indices "
                            "WHERE database = {db:String} AND table = {t:String} ORDER BY name",
                            parameters={"db": database, "t": table}, settings=settings).result_rows
    except Exception:  # the driver's errors have no common base below Exception
        return ""
    for idx, typ, expr in rows:
        if str(typ) == "text" and _bare(expr) == _bare(INPUT_INDEX_EXPR):
            return str(idx)
    return ""
