"""Display filters: a small grammar over trace and item fields, compiled to parameterised SQL.

One filter text means the same in the GUI's filter entry and ``ctxviewer list --filter``. It is
parsed by lark (LALR, :data:`GRAMMAR`) and compiled by :func:`compile_filter` into a
:class:`CompiledFilter`: an SQL boolean expression over the narrow ``traces`` table plus its
parameters (user values are never spliced into SQL). Every trace field is a ``traces`` column with
a narrow ``(column, trace_id)`` index (schema 3, :mod:`ctxviewer.store.migrations`); ``finding`` reads
``trace_findings``; item fields test the trace's rows in ``items``; ``text`` searches item content
through the full-text index (:mod:`ctxviewer.store.fts`).

Grammar (case-insensitive keywords)::

    filter     := [or_expr]
    or_expr    := and_expr (("or" | "||") and_expr)*
    and_expr   := not_expr (["and" | "&&"] not_expr)*        (side by side = and)
    not_expr   := ("not" | "!") not_expr | atom
    atom       := FIELD OP value | FIELD "in" "(" value ("," value)* ")" | FIELD
                | WORD | "quoted text" | "(" or_expr ")" | "item" "(" or_expr ")"
    OP         := "==" | "=" | "!=" | "<" | "<=" | ">" | ">=" | "~" | "!~"
    value      := "double quoted" | 'single quoted' | WORD
    WORD       := any run of characters other than space ( ) " ' , = ! < > ~ & |

Meaning (the words of :data:`FIELDS`):

- ``==`` / ``!=`` compare exactly (text is case-sensitive); ``<`` ``<=`` ``>`` ``>=`` compare numbers,
  or text in code-point order (``created >= 2026-11-02`` works because times are stored as
  ISO-8601 UTC); ``~`` / ``!~``: contains / does not contain, case-insensitive (ASCII folding,
  SQLite ``LIKE``); ``in (a, b)``: equal to one of them.
- A comparison on a field the trace did not record is false (``capacity < 16000`` skips traces
  without a capacity); ``not`` negates a whole expression, so ``not capacity < 16000`` keeps them.
- A lone word that is not a field name, or any quoted text on its own, is a quick search: it is
  contained (case-insensitive) in the trace id, model, service or provider (``claude``,
  ``budget-8k``, ``"model"``).
- A bare field is true when the trace recorded it and it is not no, 0 or empty (``omitted``: some
  item was left out; ``conversation``: has a conversation id; ``fits``: eq. 3.1 holds);
  ``finding``: has any finding.
- ``finding == injection`` matches the rule id ``injection`` or any rule of that family
  (``injection.action_linkage``); ``finding != R``: the trace has no finding R; ``finding ~ T``:
  some rule id contains T.
- ``item.F op v`` is true when some item of the trace satisfies it; ``item(expr)`` when one item
  satisfies the whole ``expr`` (field names inside without ``item.``):
  ``item(kind == evidence and status == omitted)``.
- ``score`` / ``score.NAME`` read the recorded scores (``trace_scores``, schema 8): ``score == C``
  some score's value is C (as recorded, case-sensitive), ``score.correctness < 1`` the score named
  correctness is below 1 as a number (a number, a boolean as 1 / 0, Inspect's letters C 1, P 0.5,
  I 0, N 0: :mod:`ctxviewer.store.score_rows`), ``score.match != C`` it has another value,
  ``score`` alone: scored at all. "Wrong answers": ``score.match < 1`` or ``score == I``.
- ``text ~ "ignore previous"``: some item's content contains every word (each as a word prefix,
  the full-text search of :func:`ctxviewer.store.fts.match_expression`).
- ``status`` is the call's span status (:mod:`ctxviewer.model.span_facts`): ``status == error``,
  ``status == unfinished`` (the span never ended; ``"never ended"`` is the same value),
  ``status == ok``, ``status == unset``; ``agent == "planner"`` / ``agent ~ plan`` the agent name
  (``gen_ai.agent.name``), ``operation == chat`` the operation (``gen_ai.operation.name``).
  ``status`` outside ``item(...)`` is the span's; an item's is ``item.status``.
- ``cost`` is the call's cost in US dollars (:mod:`ctxviewer.tokens.cost`, schema 8; a cost not
  known is NULL: ``cost > 0.01`` skips it, ``not cost`` finds it), ``output`` the reported output
  tokens, ``duration`` the span's duration in ms.

Errors raise :class:`FilterError` with the 0-based code-point column where the problem is. No Qt here.
"""

from __future__ import annotations

import math
import re
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lark import Lark, Token, Tree


class FilterError(ValueError):
    """A filter text that cannot be parsed or compiled. ``position`` is the 0-based column (code
    points) where the problem starts (``len(text)`` for "ended too early"); ``message`` says what
    was expected or what is wrong, without the position."""

    def __init__(self, message: str, position: int, text: str = "") -> None:
        super().__init__(f"{message} (at column {position + 1})")
        self.message = message
        self.position = position
        self.text = text

    def caret(self) -> str:
        """Two lines: the filter text and a ``^`` under the error position (for terminals)."""
        return f"{self.text}\n{' ' * self.position}^"


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

    @property
    def empty(self) -> bool:
        """True when the filter keeps every trace."""
        return self.where == "1"


@dataclass(frozen=True)
class Field:
    """A filterable field: its name in the grammar and the column it reads."""

    name: str
    """Name in filter text (``capacity``)."""
    column: str
    """Column of ``traces`` (trace fields) or ``items`` (item fields)."""
    kind: str
    """``text``, ``int``, ``float`` or ``bool``."""
    doc: str
    """What it means, with its unit."""
    few: bool = False
    """Few distinct values (model, provider, ...): ``~`` first finds the matching values by an
    index hop per distinct value, then looks those up in the column's index."""
    choices: tuple[str, ...] = ()
    """The only values the field holds (``state``: ok, warning, failure); any other value in
    ``==``, ``!=``, ``in`` or an ordering is an error at its position. Empty: any value."""
    time: bool = False
    """An ISO-8601 UTC time (``created``): a value compared with it must be a date or time
    prefix that exists (``2026-11-02``, ``2026-11-02T09:14``), else an error at its position."""
    aliases: tuple[tuple[str, str], ...] = ()
    """Other words for a stored value, ``(word, stored)``, compared case-insensitively
    (``status == "never ended"`` means ``status == unfinished``)."""


FIELDS: dict[str, Field] = {f.name: f for f in (
    Field("id", "trace_id", "text", "trace id"),
    Field("created", "created", "text", "send time, ISO-8601 UTC (2026-11-02T09:14:05.120Z)", time=True),
    Field("service", "service", "text", "application / service name", few=True),
    Field("provider", "provider", "text", "endpoint provider (openai, ...)", few=True),
    Field("model", "model", "text", "requested model", few=True),
    Field("capacity", "capacity", "int", "recorded context capacity C, tokens"),
    Field("input", "input_tokens", "int", "counted input tokens"),
    Field("reserved", "reserved_output_tokens", "int", "reserved output tokens B_out"),
    Field("retained", "retained_count", "int", "items sent"),
    Field("omitted", "omitted_count", "int", "items left out"),
    Field("margin", "margin", "int", "eq. 3.1 margin, tokens"),
    Field("fits", "fits", "bool", "eq. 3.1 holds (yes / no)"),
    Field("state", "state", "text", "ok, warning or failure", few=True, choices=("ok", "warning", "failure")),
    Field("worst", "worst_rule", "text", "rule id of the worst finding", few=True),
    Field("conversation", "session_id", "text", "conversation id (gen_ai.conversation.id)"),
    Field("status", "span_status", "text", "span status: ok, error, unset or unfinished (never ended)", few=True,
          aliases=(("never ended", "unfinished"), ("never_ended", "unfinished"))),
    Field("agent", "agent", "text", "agent name (gen_ai.agent.name)", few=True),
    Field("operation", "operation", "text", "operation name (gen_ai.operation.name: chat, execute_tool, ...)",
          few=True),
    Field("replay_of", "replay_of", "text", "trace id this trace replays"),
    Field("format", "source_format", "text", "importer that produced the trace", few=True),
    Field("cost", "cost", "float", "cost, US dollars, from the recorded usage (genai-prices); a cost not known has none"),
    Field("output", "output_tokens", "int", "reported output tokens"),
    Field("duration", "duration_ms", "float", "span duration, ms"),
)}
"""Trace fields by name (columns of ``traces``)."""

FINDING = Field("finding", "rule", "text", "rule id of any finding of the trace (trace_findings)")
"""The ``finding`` field: any finding's rule id, or its family (the part before the first dot)."""

SCORE = Field("score", "value", "text", "a recorded score's value (trace_scores); score.NAME: the score named NAME")
"""The ``score`` field: any recorded score's value; ``score.NAME`` the score named NAME
(:mod:`ctxviewer.store.score_rows`). A number compares the score's numeric meaning, text its value."""

TEXT = Field("text", "text", "text", "item content, full-text: every word as a word prefix")
"""The ``text`` field: item content through the full-text index (``~`` / ``!~`` only)."""

ITEM_FIELDS: dict[str, Field] = {f.name: f for f in (
    Field("id", "item_id", "text", "item id"),
    Field("kind", "kind", "text", "policy, user, history, summary, memory, evidence or tool",
          choices=("policy", "user", "history", "summary", "memory", "evidence", "tool")),
    Field("status", "status", "text", "retained or omitted", choices=("retained", "omitted")),
    Field("trust", "trust", "text", "trusted or untrusted", choices=("trusted", "untrusted")),
    Field("role", "role", "text", "chat role it was sent under"),
    Field("tokens", "tokens", "int", "token count of the content"),
    Field("priority", "priority", "float", "trimming priority"),
    Field("position", "position", "int", "1-based position among retained items"),
    Field("reason", "omission_reason", "text", "why it was omitted (budget, rank, ...)"),
)}
"""Item fields by name (columns of ``items``), written ``item.NAME`` or inside ``item(...)``."""

QUICK_COLUMNS: tuple[str, ...] = ("trace_id", "model", "service", "provider")
"""Columns a lone word (or quoted text) is looked for in, as a case-insensitive substring."""

GRAMMAR = r"""
start: or_expr?
?or_expr: and_expr (_OR and_expr)*
?and_expr: not_expr (_AND? not_expr)*
?not_expr: _NOT not_expr -> negation
         | atom
?atom: WORD OP value -> comparison
     | WORD _IN "(" value ("," value)* ")" -> membership
     | WORD -> word
     | STRING -> quick
     | "(" or_expr ")"
     | ITEM "(" or_expr ")" -> item_group
?value: STRING | WORD
_OR.2: /or\b/i | "||"
_AND.2: /and\b/i | "&&"
_NOT.2: /not\b/i | /!(?![=~])/
_IN.2: /in\b/i
ITEM.2: /item(?=\s*\()/i
OP: "==" | "=" | "!=" | "<=" | ">=" | "<" | ">" | "~" | "!~"
WORD: /[^\s()"',=!<>~&|]+/
STRING: /"(\\.|[^"\\])*"/ | /'(\\.|[^'\\])*'/
%ignore /\s+/
"""
"""The lark grammar of display filters (LALR)."""

_EXPECTED = {
    "WORD": "a word", "STRING": "a value", "OP": "an operator (== != < > ~ ...)",
    "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "_OR": "'or'", "_AND": "'and'", "_NOT": "'not'",
    "_IN": "'in'", "ITEM": "'item('", "$END": "the end",
}


_PARSER_LOCK = threading.Lock()


def _parser() -> Lark:
    with _PARSER_LOCK:  # built once, also when prepare_parser's thread is still building it
        return _build_parser()


@lru_cache(maxsize=1)
def _build_parser() -> Lark:
    from lark import Lark

    return Lark(GRAMMAR, parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=False)


def prepare_parser() -> threading.Thread:
    """Import lark and build the filter parser on a daemon thread (about 0.1 s of pure Python on a
    quiet machine, several times that under load): a window calls it once it is up, so the first
    filter typed does not wait for it. Returns the started thread; :func:`parse_filter` called
    meanwhile waits for the same build instead of making a second one."""
    thread = threading.Thread(target=_parser, name="filter-parser", daemon=True)
    thread.start()
    return thread


def parse_filter(text: str) -> Tree[Token]:
    """Parse ``text`` into lark's tree (rules ``comparison``, ``membership``, ``present``,
    ``negation``, ``and_expr``, ``or_expr``, ``item_group`` under ``start``). Raises
    :class:`FilterError` with the column of the first unexpected character or token."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

    try:
        return _parser().parse(text)
    except UnexpectedToken as exc:
        tok = exc.token
        expected = _describe_expected(exc.expected)
        if tok.type == "$END":
            raise FilterError(f"filter ends early: expected {expected}", len(text), text) from None
        raise FilterError(f"unexpected {str(tok)!r}: expected {expected}", _pos(tok.start_pos, text), text) from None
    except UnexpectedCharacters as exc:
        pos = int(exc.pos_in_stream or 0)
        ch = text[pos] if 0 <= pos < len(text) else ""
        if ch in "\"'":
            raise FilterError("unterminated quoted value", pos, text) from None
        expected = _describe_expected(exc.allowed or set())
        raise FilterError(f"unexpected {ch!r}: expected {expected}", pos, text) from None
    except UnexpectedEOF as exc:
        raise FilterError(f"filter ends early: expected {_describe_expected(exc.expected)}", len(text), text) from None
    except UnexpectedInput as exc:  # pragma: no cover - lark's other subclasses
        raise FilterError(f"cannot parse: {exc}", len(text), text) from None


def _pos(start: int | None, text: str) -> int:
    return len(text) if start is None else start


def _describe_expected(names: Iterable[Any]) -> str:
    names = {str(n) for n in names}
    if {"WORD", "STRING"} <= set(names) and "OP" not in names and "_NOT" not in names:
        return "a value"
    if "_NOT" in names or "LPAR" in names:
        return "a field, a word or '('"
    words = sorted({_EXPECTED.get(n, n.lower()) for n in names if n != "STRING"})
    return " or ".join(words) if words else "something else"


_KEYWORDS = frozenset({"and", "or", "in"})
"""Operator words that the lexer takes as a plain word where no operator can stand."""

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


def quote(value: str) -> str:
    """``value`` as a double-quoted filter value (backslash before ``"`` and ``\\``), for filter
    text built by code: ``f"id ~ {quote(prefix)}"``."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


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
    compiler = _Compiler(text, params)
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
    sql = _balanced(parts, "AND")
    if _paren_depth(sql) > _MAX_SQL_PARENS:  # wide groups inside deep ones: still too deep for SQLite
        raise FilterError(f"filter nested too deep: simplify its groups (more than {_MAX_SQL_PARENS} "
                          "levels of parentheses in SQL)", 0, text)
    return CompiledFilter(sql, tuple(params), text, tuple(probes))


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
once and long runs of ``and`` / ``or`` are joined as a shallow tree (:func:`_balanced`)."""


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
                                  _pos(pos, text), text)
        if data is not None:
            stack.extend((c, depth) for c in node.children)


def _balanced(parts: list[str], op: str) -> str:
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


INDEXED_COLUMNS = frozenset({"trace_id", "created", "model", "input_tokens", "replay_of", "state", "capacity",
                             "omitted_count", "provider", "service", "session_id", "worst_rule",
                             "span_status", "agent", "operation", "cost"})
"""``traces`` columns with an index whose leading column they are (schema 1 to 5, ``cost`` schema 8)."""


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


STATUS_COUNTS = {"omitted": "omitted_count", "retained": "retained_count"}
"""Item status -> the ``traces`` column counting that trace's items of the status."""


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


class _Compiler:
    def __init__(self, text: str, params: list[Any]) -> None:
        self.text = text
        self.params = params

    def fail(self, message: str, node: Any) -> FilterError:
        pos = getattr(node, "start_pos", None)
        if pos is None:
            pos = getattr(getattr(node, "meta", None), "start_pos", None)
        return FilterError(message, _pos(pos, self.text), self.text)

    def expr(self, node: Any, *, item: bool) -> str:
        rule = node.data
        if rule == "or_expr":
            return _balanced([self.expr(c, item=item) for c in node.children], "OR")
        if rule == "and_expr":
            return _balanced([self.expr(c, item=item) for c in node.children], "AND")
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
            if name.lower() in _KEYWORDS:  # unquoted: 'and' alone is a mistake, "and" a word search
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
