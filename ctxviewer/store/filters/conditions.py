"""The display-filter conditions: one term of lark's tree (a comparison, ``in``, a bare field, a
quick search, ``not``, ``item(...)``) -> an SQL boolean expression over ``traces``, its values
appended to the parameters (:class:`ConditionCompiler`); value checks (numbers, times, choices) and
the SQL building blocks (``LIKE`` patterns, the loose index scan, balanced ``AND`` / ``OR`` runs).
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

from ctxviewer.store.filters.errors import FilterError, pos_or_end
from ctxviewer.store.filters.fields import (
    FIELDS,
    FINDING,
    ITEM_FIELDS,
    QUICK_COLUMNS,
    SCORE,
    STATUS_COUNTS,
    TEXT,
    Field,
)
from ctxviewer.store.filters.grammar import KEYWORDS

_TIME = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:\.\d+)?)?)?)?)?)?Z?")


def _valid_time(text: str) -> bool:
    """True when ``text`` is an ISO-8601 date or time prefix that exists: ``2026``, ``2026-11``,
    ``2026-11-02``, ``2026-11-02T09:14:05.120Z`` (month 1-12, a day of that month, hour < 24,
    minute and second < 60)."""
    m = _TIME.fullmatch(text)
    if m is None:
        return False
    from datetime import datetime

    year, month, day, hour, minute, second = (int(g) if g else None for g in m.groups())
    try:
        datetime(year or 1, month or 1, day or 1, hour or 0, minute or 0, second or 0)
    except ValueError:
        return False
    return True


def balanced(parts: list[str], op: str) -> str:
    """``parts`` joined by ``op`` (``AND`` / ``OR``), parenthesised, as a tree of flat runs of at most
    :data:`_FAN_OUT`: the same condition as ``a op b op c ...``, but SQLite's expression depth grows
    with the run length plus log(len(parts)), not with len(parts) (SQLite refuses a depth over
    1,000: "Expression tree is too large"), and each level costs one parenthesis."""
    if len(parts) == 1:
        return parts[0]
    while len(parts) > _FAN_OUT:
        parts = ["(" + f" {op} ".join(parts[i:i + _FAN_OUT]) + ")" for i in range(0, len(parts), _FAN_OUT)]
    return "(" + f" {op} ".join(parts) + ")"


_FAN_OUT = 64


_INT_LIMIT = 2**63
"""SQLite's integers are 64-bit: a whole number outside ``[-2**63, 2**63)`` cannot be a parameter."""
_NUM = re.compile(r"[+-]?(\d[\d_]*)(\.\d+)?([eE][+-]?\d+)?$")
_SQL_OP = {"==": "=", "=": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _like(term: str) -> str:
    return "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _distinct_like(table: str, column: str) -> str:
    """SQL selecting the distinct values of ``table.column`` containing the ``?`` LIKE pattern, by
    one index hop per distinct value (a loose index scan) instead of a walk over every row."""
    return (
        f"WITH RECURSIVE v(x) AS (SELECT min({column}) FROM {table} UNION ALL "
        f"SELECT (SELECT min({column}) FROM {table} WHERE {column} > v.x) FROM v WHERE v.x IS NOT NULL) "
        "SELECT x FROM v WHERE x LIKE ? ESCAPE '\\'"
    )


def _status_required(node: Any) -> str | None:
    """The item status an ``item(...)`` condition requires (``status == omitted`` alone or as a
    term of its top-level ``and``), or None."""
    terms = node.children if node.data == "and_expr" else [node]
    for t in terms:
        if t.data == "comparison" and str(t.children[0]).lower().removeprefix("item.") == "status" \
                and str(t.children[1]) in {"==", "="}:
            return str(t.children[2]).strip("\"'")
    return None


def _guarded(exists: str, status: str | None) -> str:
    """``exists`` (an item subquery) behind the trace row's count of items with ``status``, when
    there is one: ``omitted_count > 0 AND EXISTS (...)`` is the same filter (the counts are the
    trace's items by status), and a trace without omitted items is then rejected from its row
    instead of by reading its items -- an item filter's first page 10x faster."""
    column = STATUS_COUNTS.get(status or "")
    return exists if column is None else f"({column} > 0 AND {exists})"


class ConditionCompiler:
    """Compiles terms of one filter ``text`` to SQL (:meth:`expr`), appending their values to
    ``params`` in placeholder order; raises :class:`FilterError` at the term's column."""

    def __init__(self, text: str, params: list[Any]) -> None:
        self.text = text
        self.params = params
        self.rules_named: list[str] = []
        """The rule ids or families ``finding ==``, ``!=`` and ``in`` named, in filter order."""

    def fail(self, message: str, node: Any) -> FilterError:
        pos = getattr(node, "start_pos", None)
        if pos is None:
            pos = getattr(getattr(node, "meta", None), "start_pos", None)
        return FilterError(message, pos_or_end(pos, self.text), self.text)

    def expr(self, node: Any, *, item: bool) -> str:
        rule = node.data
        if rule == "or_expr":
            return balanced([self.expr(c, item=item) for c in node.children], "OR")
        if rule == "and_expr":
            return balanced([self.expr(c, item=item) for c in node.children], "AND")
        if rule == "negation":  # a chain of nots is one test: odd -> IS NOT 1, even -> IS 1 (NULL is false)
            count = 0
            while node.data == "negation":
                count, node = count + 1, node.children[0]
            return f"(({self.expr(node, item=item)}) IS {'NOT ' if count % 2 else ''}1)"
        if rule == "item_group":
            if item:
                raise self.fail("item(...) cannot be nested", node.children[0])
            inner = self.expr(node.children[1], item=True)
            return _guarded(f"EXISTS (SELECT 1 FROM items i WHERE i.trace_id = traces.trace_id AND {inner})",
                            _status_required(node.children[1]))
        field_tok = node.children[0]
        name = str(field_tok)
        if rule == "quick":
            return self.quick(field_tok, self.value(TEXT, field_tok), item=item)
        if rule == "word":
            if name.lower() in KEYWORDS:  # unquoted: 'and' alone is a mistake, "and" a word search
                raise self.fail(f"{name!r} needs a condition on each side (quote it to search for the word)",
                                field_tok)
            if self.is_field(name, item=item):
                return self.present(field_tok, name, item=item)
            return self.quick(field_tok, name, item=item)
        if rule == "comparison":
            op, value = str(node.children[1]), node.children[2]
            return self.comparison(field_tok, name, op, [value], item=item)
        if rule == "membership":
            return self.comparison(field_tok, name, "in", node.children[1:], item=item)
        raise self.fail(f"cannot compile {rule}", node)  # pragma: no cover - grammar and compiler agree

    # -------------------------------------------------------------- fields

    def is_field(self, name: str, *, item: bool) -> bool:
        low = name.lower()
        if item:
            return low.removeprefix("item.") in ITEM_FIELDS
        return (low in FIELDS or low in {"finding", "text", "trace_id", "session", "score"}
                or low.startswith(("item.", "score.")))

    def quick(self, tok: Any, term: str, *, item: bool) -> str:
        """A lone word or quoted text: contained in the trace id, model, service or provider."""
        if item:
            raise self.fail(f"unknown item field {term!r}; item fields: {', '.join(ITEM_FIELDS)}", tok)
        self.params.extend([_like(term)] * len(QUICK_COLUMNS))
        return "(" + " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in QUICK_COLUMNS) + ")"

    def lookup(self, tok: Any, name: str, *, item: bool) -> tuple[str, Field]:
        """``("trace" | "item" | "finding" | "text", field)`` for the name written at ``tok``."""
        low = name.lower()
        if item:
            f = ITEM_FIELDS.get(low.removeprefix("item."))
            if f is None:
                raise self.fail(f"unknown item field {name!r}; item fields: {', '.join(ITEM_FIELDS)}", tok)
            return "item", f
        if low.startswith("item."):
            f = ITEM_FIELDS.get(low[5:])
            if f is None:
                raise self.fail(f"unknown item field {name!r}; item fields: {', '.join(ITEM_FIELDS)}", tok)
            return "item", f
        if low == "finding":
            return "finding", FINDING
        if low == "score" or low.startswith("score."):
            if low == "score.":
                raise self.fail("score. needs a score name: score.correctness < 1", tok)
            return "score", SCORE
        if low == "text":
            return "text", TEXT
        f = FIELDS.get(low) or FIELDS.get({"trace_id": "id", "session": "conversation"}.get(low, ""))
        if f is None:
            names = ", ".join([*FIELDS, "finding", "score", "score.<name>", "text", "item.<field>"])
            raise self.fail(f"unknown field {name!r}; fields: {names}", tok)
        return "trace", f

    def present(self, tok: Any, name: str, *, item: bool) -> str:
        where, f = self.lookup(tok, name, item=item)
        if where == "finding":
            return "EXISTS (SELECT 1 FROM trace_findings f WHERE f.trace_id = traces.trace_id)"
        if where == "score":
            return f"EXISTS (SELECT 1 FROM trace_scores s WHERE s.trace_id = traces.trace_id{self.score_name(name)})"
        if where == "text":
            raise self.fail("text needs a value: text ~ \"words\"", tok)
        col = f"i.{f.column}" if where == "item" else f.column
        if f.kind == "bool":
            test = f"{col} = 1"
        elif f.kind == "text":
            test = f"{col} IS NOT NULL AND {col} != ''"
        else:
            test = f"{col} IS NOT NULL AND {col} != 0"
        if where == "item" and not item:
            return f"EXISTS (SELECT 1 FROM items i WHERE i.trace_id = traces.trace_id AND {test})"
        return f"({test})"

    def value(self, f: Field, tok: Any, *, exact: bool = True) -> Any:
        """The parameter for value token ``tok`` of field ``f``; ``exact=False`` for ``~``/``!~``
        (a part of a value: no check against :attr:`Field.choices` / :attr:`Field.time`)."""
        raw = str(tok)
        quoted = tok.type == "STRING"
        if quoted:
            raw = re.sub(r"\\(.)", r"\1", raw[1:-1])
        if f.kind == "text":
            raw = next((stored for word, stored in f.aliases if word == raw.lower()), raw)
            if exact and f.choices and raw not in f.choices:
                raise self.fail(f"{f.name} is one of {', '.join(f.choices)}, not {raw!r}", tok)
            if exact and f.time and not _valid_time(raw):
                raise self.fail(f"{f.name} takes an ISO-8601 UTC date or time (2026-11-02, "
                                f"2026-11-02T09:14:05Z), not {raw!r}", tok)
            return raw
        if f.kind == "bool":
            low = raw.lower()
            if low in {"yes", "true", "1"}:
                return 1
            if low in {"no", "false", "0"}:
                return 0
            raise self.fail(f"{f.name} is yes or no, not {raw!r}", tok)
        if not _NUM.match(raw):
            raise self.fail(f"{f.name} takes a number ({f.doc}), not {raw!r}", tok)
        digits = raw.replace("_", "")
        number = float(digits)
        if math.isinf(number) and f.kind != "int":  # 1e400 overflows to inf, which every value is below
            end = "large" if number > 0 else "small"
            raise self.fail(f"{f.name}: number too {end}: {raw!r} (beyond the largest float, {sys.float_info.max:.3g})", tok)
        if f.kind == "int" and (number.is_integer() or math.isinf(number)):
            whole = (int(digits) if digits.lstrip("+-").isdigit()  # exact for long digit runs
                     else (_INT_LIMIT if number > 0 else -_INT_LIMIT - 1) if math.isinf(number) else int(number))
            if whole < -_INT_LIMIT:  # SQLite integers are 64-bit (say which end)
                raise self.fail(f"{f.name}: number too small: {raw!r} (at least {-_INT_LIMIT:,})", tok)
            if whole >= _INT_LIMIT:
                raise self.fail(f"{f.name}: number too large: {raw!r} (at most {_INT_LIMIT - 1:,})", tok)
            return whole
        return number

    def comparison(self, tok: Any, name: str, op: str, values: list[Any], *, item: bool) -> str:
        where, f = self.lookup(tok, name, item=item)
        if where == "text":
            return self.text_search(tok, op, values)
        if op in {"~", "!~"} and f.kind != "text":
            raise self.fail(f"{op} (contains) works on text fields; {f.name} is a number", tok)
        if where == "finding":
            return self.finding(op, values)
        if where == "score":
            return self.score(tok, name, op, values)
        col = f"i.{f.column}" if where == "item" else f.column
        if op == "in":
            vals = [self.value(f, v) for v in values]
            self.params.extend(vals)
            cond = f"{col} IN ({', '.join('?' * len(vals))})"
        elif op in {"~", "!~"}:
            term = self.value(f, values[0], exact=False)
            if f.few and where == "trace":
                cond = f"{col} IN ({_distinct_like('traces', f.column)})"
            else:
                cond = f"{col} LIKE ? ESCAPE '\\'"
            self.params.append(_like(term))
            if op == "!~":
                cond = f"({col} IS NOT NULL AND NOT ({cond}))"
        else:
            self.params.append(self.value(f, values[0]))
            cond = f"{col} {_SQL_OP[op]} ?"
        if where == "item" and not item:
            status = str(values[0]).strip("\"'") if f.column == "status" and op in {"==", "="} else None
            return _guarded(f"EXISTS (SELECT 1 FROM items i WHERE i.trace_id = traces.trace_id AND {cond})", status)
        return f"({cond})"

    def finding(self, op: str, values: list[Any]) -> str:
        exists = "EXISTS (SELECT 1 FROM trace_findings f WHERE f.trace_id = traces.trace_id AND {})"
        member = "traces.trace_id IN (SELECT f.trace_id FROM trace_findings f WHERE {})"
        if op in {"==", "=", "!=", "in"}:
            conds = []
            for v in values:
                rule = self.value(FINDING, v)
                self.rules_named.append(rule)
                conds.append("(f.rule = ? OR (f.rule > ? AND f.rule < ?))")
                self.params.extend([rule, rule + ".", rule + "/"])  # the family: '/' follows '.'
            cond = " OR ".join(conds)
            if op == "!=":
                return f"(NOT {exists.format('(' + cond + ')')})"
            return f"({member.format('(' + cond + ')')})"
        if op in {"~", "!~"}:
            self.params.append(_like(self.value(FINDING, values[0])))
            cond = f"f.rule IN ({_distinct_like('trace_findings', 'rule')})"
            if op == "!~":
                return f"(NOT {exists.format(cond)})"
            return f"({member.format(cond)})"
        raise FilterError(f"finding takes ==, !=, ~, !~ or in, not {op}", 0, self.text)

    def score_name(self, name: str) -> str:
        """`` AND s.name = ?`` for ``score.NAME`` (the name as written: score names are data), "" for ``score``."""
        if "." not in name:
            return ""
        self.params.append(name.split(".", 1)[1])
        return " AND s.name = ?"

    def score(self, tok: Any, name: str, op: str, values: list[Any]) -> str:
        """Some recorded score (``score``) or the score named NAME (``score.NAME``) satisfies the
        comparison: a number compares its numeric meaning (``score.correctness < 1``; Inspect's
        ``C`` is 1, ``I`` 0), text its value as recorded (``score == C``); ``!=`` is a score of
        that name with another value."""
        exists = "EXISTS (SELECT 1 FROM trace_scores s WHERE s.trace_id = traces.trace_id{} AND {})"
        named = self.score_name(name)
        if op in {"~", "!~"}:
            self.params.append(_like(self.value(SCORE, values[0], exact=False)))
            cond = "CAST(s.value AS TEXT) LIKE ? ESCAPE '\\'"
            return f"({exists.format(named, cond if op == '~' else 'NOT (' + cond + ')')})"
        raws = [re.sub(r"\\(.)", r"\1", str(v)[1:-1]) if v.type == "STRING" else str(v) for v in values]
        numeric = [bool(_NUM.match(r)) for r in raws]
        if op not in {"==", "=", "!=", "in"} and not all(numeric):
            raise self.fail(f"{name} {op} takes a number (the score's value as a number), not {raws[0]!r}", values[0])
        conds = []
        for raw, is_num in zip(raws, numeric):
            self.params.append(float(raw.replace("_", "")) if is_num else raw)
            col = "s.number" if is_num else "s.value"
            conds.append(f"{col} {_SQL_OP.get(op, '=')} ?")
        return f"({exists.format(named, '(' + ' OR '.join(conds) + ')')})"

    def text_search(self, tok: Any, op: str, values: list[Any]) -> str:
        from ctxviewer.store.fts import match_expression

        if op not in {"~", "!~"}:
            raise self.fail(f"text takes ~ (contains the words) or !~, not {op}", tok)
        words = self.value(TEXT, values[0])
        expr = match_expression(words)
        if expr is None:
            raise self.fail("text ~ needs at least one word", values[0])
        self.params.append(expr)
        sub = (
            "traces.trace_id IN (SELECT i.trace_id FROM content_fts JOIN blobs b ON b.rowid = content_fts.rowid "
            "JOIN items i ON i.content_hash = b.hash WHERE content_fts MATCH ?)"
        )
        return f"(NOT {sub})" if op == "!~" else f"({sub})"
