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
    (in a quoted value a backslash escapes only " ' and itself; any other escape is an error at its column)

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

What lives where
----------------
* :mod:`~ctxviewer.store.filters.grammar` -- the grammar: text -> lark's tree (:func:`parse_filter`,
  :func:`prepare_parser`, :data:`GRAMMAR`), and :func:`quote` for filter text built by code;
* :mod:`~ctxviewer.store.filters.fields` -- the field table: :data:`FIELDS`, :data:`ITEM_FIELDS`,
  ``finding`` / ``score`` / ``text``, the columns they read and which are indexed;
* :mod:`~ctxviewer.store.filters.compiler` -- :func:`compile_filter`: a whole filter -> a
  :class:`CompiledFilter` (``WHERE``, parameters, index probes) within SQLite's depth limits;
* :mod:`~ctxviewer.store.filters.conditions` -- one term of the tree -> SQL (comparisons, ``in``,
  bare fields, quick search, ``item(...)``, findings, scores, full-text), with its value checks;
* :mod:`~ctxviewer.store.filters.errors` -- :class:`FilterError`.

Import from here (``from ctxviewer.store.filters import compile_filter, FilterError``); the modules
import each other downwards only: compiler -> conditions -> grammar -> errors, and fields.

May import: :mod:`ctxviewer.store.fts` (``text ~``) and lark; nothing above the store. A new field
is a row in :mod:`~ctxviewer.store.filters.fields` (and, for its own operators, a method in
:mod:`~ctxviewer.store.filters.conditions`); a new operator goes into :data:`GRAMMAR` and the
conditions.
"""

from __future__ import annotations

from ctxviewer.store.filters.compiler import MAX_NESTING, CompiledFilter, compile_filter
from ctxviewer.store.filters.errors import FilterError
from ctxviewer.store.filters.fields import (
    FIELDS,
    FINDING,
    INDEXED_COLUMNS,
    ITEM_FIELDS,
    QUICK_COLUMNS,
    SCORE,
    TEXT,
    Field,
)
from ctxviewer.store.filters.grammar import GRAMMAR, parse_filter, prepare_parser, quote

__all__ = [
    "FIELDS", "FINDING", "GRAMMAR", "INDEXED_COLUMNS", "ITEM_FIELDS", "MAX_NESTING", "QUICK_COLUMNS", "SCORE",
    "TEXT", "CompiledFilter", "Field", "FilterError", "compile_filter", "parse_filter", "prepare_parser", "quote",
]
