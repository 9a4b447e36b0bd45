"""The display-filter compiler: a whole filter text -> :class:`CompiledFilter` (:func:`compile_filter`):
its SQL ``WHERE`` and parameters, the index probes of its top-level ``and`` terms, and the limits
that keep the SQL within what SQLite's parser takes. Each term is compiled by
:mod:`~ctxviewer.store.filters.conditions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ctxviewer.store.filters.conditions import ConditionCompiler, balanced
from ctxviewer.store.filters.errors import FilterError, pos_or_end
from ctxviewer.store.filters.fields import FIELDS, INDEXED_COLUMNS
from ctxviewer.store.filters.grammar import parse_filter


@dataclass(frozen=True)
class CompiledFilter:
    """A filter as SQL for the ``traces`` table (no alias): ``SELECT ... FROM traces WHERE
    (<where>)`` with ``params`` bound in order. Correlated subqueries name ``traces.trace_id``."""

    where: str
    """SQL boolean expression; ``"1"`` for the empty filter (every trace)."""
    params: tuple[Any, ...]
    """Values for the ``?`` placeholders of :attr:`where`, in order."""
    text: str = ""
    """The filter text it was compiled from."""
    probes: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    """The top-level ``and`` terms an index answers alone, each as ``(sql, params)``: a store
    counts each one's rows (up to a bound) and drives the query from the most selective
    (:meth:`ctxviewer.store.TraceStore.filter_where`); the planner cannot tell without statistics
    that ``omitted > 2`` keeps 0.2% of the rows."""
    rules_named: tuple[str, ...] = ()
    """The rule ids or families its ``finding ==`` / ``!=`` / ``in`` terms name, each once, in filter
    order (:meth:`ctxviewer.store.TraceStore.absent_rules_note` says which no trace has)."""

    @property
    def empty(self) -> bool:
        """True when the filter keeps every trace."""
        return self.where == "1"


@lru_cache(maxsize=64)
def compile_filter(text: str) -> CompiledFilter:
    """Parse and compile a display filter. See the module docstring for the grammar.

    Returns a :class:`CompiledFilter` whose ``where`` reads ``traces`` (and, in subqueries,
    ``trace_findings``, ``items``, ``blobs`` and ``content_fts``). Raises :class:`FilterError`
    (message and 0-based column) for a syntax error, an unknown field, an operator a field does
    not take, or a value of the wrong type (``capacity < lots``).
    """
    if not text.strip():  # no filter: no parser built (lark's grammar takes ~0.1 s at start-up)
        return CompiledFilter("1", (), text)
    tree = parse_filter(text)
    if not tree.children:
        return CompiledFilter("1", (), text)
    _check_nesting(tree, text)
    params: list[Any] = []
    compiler = ConditionCompiler(text, params)
    root: Any = tree.children[0]
    conjuncts = root.children if root.data == "and_expr" else [root]
    probes: list[tuple[str, tuple[Any, ...]]] = []
    parts = []
    for node in conjuncts:
        first = len(params)
        part = compiler.expr(node, item=False)
        parts.append(part)
        if _indexed(node):
            probes.append((part, tuple(params[first:])))
    sql = balanced(parts, "AND")
    if _paren_depth(sql) > _MAX_SQL_PARENS:  # wide groups inside deep ones: still too deep for SQLite
        raise FilterError(f"filter nested too deep: simplify its groups (more than {_MAX_SQL_PARENS} "
                          "levels of parentheses in SQL)", 0, text)
    return CompiledFilter(sql, tuple(params), text, tuple(probes), tuple(dict.fromkeys(compiler.rules_named)))


_MAX_SQL_PARENS = 24
"""Parenthesis depth of compiled SQL SQLite's parser is sure to take (its stack overflows from
about 28 with the filters' subqueries; measured with every kind of condition)."""


def _paren_depth(sql: str) -> int:
    """Deepest parenthesis nesting of ``sql`` (our SQL has no literals holding parentheses: user
    values are parameters)."""
    depth = deepest = 0
    for ch in sql:
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth -= 1
    return deepest


MAX_NESTING = 12
"""Groups (``(...)`` switching between ``and`` and ``or``, ``item(...)``) a filter may nest: SQLite's
parser stack overflows at about 28 parentheses (``parser stack overflow``); chains of ``not`` count
once and long runs of ``and`` / ``or`` are joined as a shallow tree (:func:`~ctxviewer.store.filters.conditions.balanced`)."""


def _check_nesting(tree: Any, text: str) -> None:
    """Raise :class:`FilterError` at the group that nests deeper than :data:`MAX_NESTING` (iterative:
    no Python recursion limit on a hostile filter)."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        data = getattr(node, "data", None)
        if data in ("or_expr", "and_expr", "item_group"):
            depth += 1
            if depth > MAX_NESTING:
                pos = getattr(getattr(node, "meta", None), "start_pos", None)
                raise FilterError(f"filter nested too deep: more than {MAX_NESTING} levels of grouping",
                                  pos_or_end(pos, text), text)
        if data is not None:
            stack.extend((c, depth) for c in node.children)


def _indexed(node: Any) -> bool:
    """True for a comparison an index answers alone: an indexed trace field with ``==``, ``<``,
    ``<=``, ``>``, ``>=`` or ``in``, or ``finding ==`` / ``in`` (``trace_findings`` by rule)."""
    if node.data not in {"comparison", "membership"}:
        return False
    name = str(node.children[0]).lower()
    op = str(node.children[1]) if node.data == "comparison" else "in"
    if op not in {"==", "=", "<", "<=", ">", ">=", "in"}:
        return False
    if name == "finding":
        return True
    f = FIELDS.get(name) or FIELDS.get({"trace_id": "id", "session": "conversation"}.get(name, ""))
    return f is not None and f.column in INDEXED_COLUMNS
