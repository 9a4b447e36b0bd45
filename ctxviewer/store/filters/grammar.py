"""The display-filter grammar: filter text -> lark's tree (:func:`parse_filter`), built once
(:func:`prepare_parser`), with errors at their column; and :func:`quote` for filter text built by
code. The grammar in words is in :mod:`ctxviewer.store.filters`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ctxviewer.store.filters.errors import FilterError, pos_or_end

if TYPE_CHECKING:
    from lark import Lark, Token, Tree

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
        tree = _parser().parse(text)
    except UnexpectedToken as exc:
        tok = exc.token
        expected = _describe_expected(exc.expected)
        if tok.type == "$END":
            raise FilterError(f"filter ends early: expected {expected}", len(text), text) from None
        raise FilterError(f"unexpected {str(tok)!r}: expected {expected}", pos_or_end(tok.start_pos, text), text) from None
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
    check_escapes(tree, text)
    return tree


ESCAPES = "\"'\\"
"""The characters a backslash may stand before in a quoted value: the two quotes and the backslash."""

_ESCAPE = re.compile(r"\\(.)", re.S)


def check_escapes(tree: Tree[Token], text: str) -> None:
    """Refuse a quoted value of ``tree`` with a backslash before any character but ``"``, ``'``
    and ``\\`` (``"gpt\\x4o"``, ``"a\\nb"``: taken as ``x``, ``n`` before, silently): raises
    :class:`FilterError` at the backslash's column. Source of the rule: the README's "Display
    filters" (values are quoted with backslash escapes) and :func:`quote`, which writes only these."""
    from lark import Token

    stack: list[Any] = [tree]  # no recursion: a chain of a thousand 'not's is a deep tree
    while stack:
        node = stack.pop()
        if not isinstance(node, Token):
            stack.extend(reversed(node.children))
            continue
        if node.type != "STRING":
            continue
        tok = node
        for m in _ESCAPE.finditer(str(tok), 1, len(tok) - 1):
            if m.group(1) not in ESCAPES:
                shown = m.group(1) if m.group(1).isprintable() else repr(m.group(1))[1:-1]
                raise FilterError(f"unknown escape '\\{shown}' in a quoted value: only \\\" \\' and \\\\ are "
                                  "escapes (a backslash itself is \\\\)", pos_or_end(tok.start_pos, text) + m.start(), text)


def _describe_expected(names: Iterable[Any]) -> str:
    names = {str(n) for n in names}
    if {"WORD", "STRING"} <= set(names) and "OP" not in names and "_NOT" not in names:
        return "a value"
    if "_NOT" in names or "LPAR" in names:
        return "a field, a word or '('"
    words = sorted({_EXPECTED.get(n, n.lower()) for n in names if n != "STRING"})
    return " or ".join(words) if words else "something else"


KEYWORDS = frozenset({"and", "or", "in"})
"""Operator words that the lexer takes as a plain word where no operator can stand."""


def quote(value: str) -> str:
    """``value`` as a double-quoted filter value (backslash before ``"`` and ``\\``), for filter
    text built by code: ``f"id ~ {quote(prefix)}"``."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
