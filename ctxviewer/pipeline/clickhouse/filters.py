"""Display filters compiled for a ClickHouse spans table: the fields a span's own columns hold.

The grammar is the one of :mod:`ctxviewer.store.filters` (parsed by
:func:`~ctxviewer.store.filters.parse_filter`); this compiler turns its tree into a ClickHouse
boolean expression over the span's columns (:meth:`TableSchema.attr
<ctxviewer.pipeline.clickhouse.schema.TableSchema.attr>`), with every value a bound parameter
``{f0:String}``, ``{f1:String}``... (the params list, in order). It keeps the SQLite store's
meanings: ``==`` exact, ``~`` a case-insensitive (ASCII) substring, a field that is not recorded
matches neither ``==`` nor ``!=`` nor ``!~``, a lone word is looked for in the trace id, model,
service and provider.

Served: ``id``, ``service``, ``provider``, ``model``, ``conversation`` (the span's own
``gen_ai.conversation.id``), ``status`` (``StatusCode``), ``operation``, ``format``. Every other
field -- the assessment's (``state``, ``omitted``, ``finding`` ...), item fields, ``text``, what a
span inherits from its ancestors (``agent``) and ``created`` -- raises
:class:`~ctxviewer.store.filters.FilterError` at its position, saying to import the window first.
No Qt here.
"""

from __future__ import annotations

import re
from typing import Any

from ctxviewer.pipeline.clickhouse.schema import TableSchema
from ctxviewer.store.filters import FilterError, parse_filter

NOT_SERVED = ("is not served on a ClickHouse store yet (pull the window into a database first: "
              "ctxviewer import URL -o local.db)")
"""The end of the message for a field this compiler does not serve."""


def _field_sql(schema: TableSchema, name: str) -> str | None:
    a = schema.attr
    return {
        "id": "concat(TraceId, ':', SpanId)", "trace_id": "concat(TraceId, ':', SpanId)",
        "service": "ServiceName",
        "provider": f"if({a('gen_ai.provider.name')} != '', {a('gen_ai.provider.name')}, {a('gen_ai.system')})",
        "model": a("gen_ai.request.model"),
        "conversation": a("gen_ai.conversation.id"), "session": a("gen_ai.conversation.id"),
        "status": "if(StatusCode = '', '', replaceOne(lower(StatusCode), 'status_code_', ''))",
        "operation": a("gen_ai.operation.name"),
        "format": "'otel'",
    }.get(name.lower())


class _ClickHouseCompiler:
    def __init__(self, schema: TableSchema, text: str) -> None:
        self.schema = schema
        self.text = text
        self.params: list[Any] = []

    def fail(self, message: str, tok: Any) -> FilterError:
        pos = getattr(tok, "start_pos", None)
        if pos is None:
            pos = getattr(getattr(tok, "meta", None), "start_pos", 0)
        return FilterError(message, int(pos or 0), self.text)

    def param(self, value: str) -> str:
        self.params.append(value)
        return f"{{f{len(self.params) - 1}:String}}"

    @staticmethod
    def value(tok: Any) -> str:
        raw = str(tok)
        if tok.type == "STRING":
            raw = re.sub(r"\\(.)", r"\1", raw[1:-1])
        return raw

    def column(self, tok: Any) -> str:
        col = _field_sql(self.schema, str(tok))
        if col is None:
            raise self.fail(f"{str(tok)!r} {NOT_SERVED}", tok)
        return col

    def expr(self, node: Any) -> str:
        rule = node.data
        if rule in ("or_expr", "and_expr"):
            joined = f" {'OR' if rule == 'or_expr' else 'AND'} ".join(self.expr(c) for c in node.children)
            return f"({joined})"
        if rule == "negation":
            return f"(NOT {self.expr(node.children[0])})"
        if rule == "item_group":
            raise self.fail(f"item(...) {NOT_SERVED}", node.children[0])
        tok = node.children[0]
        if rule == "quick" or (rule == "word" and _field_sql(self.schema, str(tok)) is None
                               and str(tok).lower() not in _ALL_FIELDS):
            term = self.param(self.value(tok))
            cols = [_field_sql(self.schema, n) for n in ("id", "model", "service", "provider")]
            return "(" + " OR ".join(f"positionCaseInsensitive({c}, {term}) > 0" for c in cols) + ")"
        if rule == "word":
            return f"({self.column(tok)} != '')"
        col = self.column(tok)
        if rule == "membership":
            values = ", ".join(self.param(self.value(v)) for v in node.children[1:])
            return f"({col} IN ({values}))"
        op, value = str(node.children[1]), self.param(self.value(node.children[2]))
        if op in ("==", "="):
            return f"({col} = {value})"
        if op == "!=":
            return f"({col} != '' AND {col} != {value})"
        if op == "~":
            return f"(positionCaseInsensitive({col}, {value}) > 0)"
        if op == "!~":
            return f"({col} != '' AND positionCaseInsensitive({col}, {value}) = 0)"
        raise self.fail(f"{op} on {str(tok)!r} {NOT_SERVED}", node.children[1])


def _all_fields() -> frozenset[str]:
    from ctxviewer.store.filters import FIELDS

    return frozenset([*FIELDS, "finding", "text", "trace_id", "session"])


_ALL_FIELDS = _all_fields()


def compile_filter(schema: TableSchema, text: str) -> tuple[str, list[Any]]:
    """``text`` compiled for ``schema``'s table: ``(where, params)`` -- a ClickHouse boolean
    expression (``""`` for no filter) and the values of its ``{fN:String}`` parameters. Raises
    :class:`~ctxviewer.store.filters.FilterError` (message and column) for a syntax error or a
    field not served here (module docstring)."""
    if not text.strip():
        return "", []
    tree = parse_filter(text)
    if not tree.children:
        return "", []
    compiler = _ClickHouseCompiler(schema, text)
    return compiler.expr(tree.children[0]), compiler.params
