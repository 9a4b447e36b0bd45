"""The string values of a JSON file, each with its JSON path and line, for ``ctxviewer scan``.

A trace export is JSON; scanned as raw text, its escaped line breaks (``\\n``) glue words of two
lines into one and its ``\\u0049gnore`` escapes hide the words from every rule. :func:`read`
decodes the file -- one JSON document, or JSON Lines -- and :func:`strings` yields every string
value decoded, in document order, with its JSON path (``$.samples[0].messages[2].content``) and
the 1-based line of the file it starts on. A repeated key keeps every value (``json.loads`` keeps
only the last, which would hide the earlier ones from the scan). A string that itself holds a JSON
object or array (a tool call's ``arguments``) is read as JSON too, its strings under
``PATH<json>``. Object keys are names, not data: not yielded. No Qt here.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"(\s*:)?', re.DOTALL)
"""A JSON string token and, when it is an object key, the colon after it."""


class Pairs(list):  # type: ignore[type-arg]
    """A JSON object as its ``(key, value)`` pairs in file order, repeated keys kept."""


def _pairs(items: list[tuple[str, Any]]) -> Pairs:
    return Pairs(items)


def loads(text: str) -> Any:
    """``json.loads`` of ``text`` with every object a :class:`Pairs`. Raises what it raises:
    ``ValueError`` (``json.JSONDecodeError``) for text that is not JSON, ``RecursionError`` for
    nesting deeper than the interpreter's limit."""
    return json.loads(text, object_pairs_hook=_pairs)


@dataclass
class JsonFile:
    """A JSON file read for scanning: its documents, and the lines that are not JSON."""

    documents: list[tuple[int, Any, str]] = field(default_factory=list)
    """``(line, value, text)``: each document (one for a JSON file; one per line of JSON Lines),
    the 1-based line its text starts on, and that text (the file, or the line)."""
    bad_lines: list[tuple[int, str, str]] = field(default_factory=list)
    """``(line, text, why)`` of the JSON Lines lines that are not JSON (scanned as text instead)."""


def read(data: str, json_lines: bool = False) -> JsonFile | None:
    """``data`` as JSON: one document (an object or array), or JSON Lines -- every non-blank line
    an object or array; with ``json_lines`` (the file is named ``.jsonl``/``.ndjson``) the first
    must be and the other lines that are not JSON are listed in :attr:`JsonFile.bad_lines`.
    ``None`` when it is neither (plain text -- a log whose first line is JSON and the rest prose
    -- or a document that does not parse: the caller says so). Lines are split at line feeds only:
    JSON allows U+2028, U+2029 and U+0085 raw inside strings. Raises ``RecursionError`` for a
    document nested deeper than the interpreter reads."""
    head = data.lstrip()[:1]
    if head not in ("{", "["):
        return None
    try:
        return JsonFile([(1, loads(data), data)])
    except ValueError:
        pass
    out = JsonFile()
    for n, line in enumerate(data.split("\n"), 1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        try:
            value = loads(line)
            if not isinstance(value, list):  # Pairs is a list too: an object or an array
                raise ValueError("not an object or array")
        except (ValueError, RecursionError) as exc:
            if not json_lines or (not out.documents and not out.bad_lines):
                return None  # not every line a JSON record (or the first is none): not JSON Lines
            why = (f"{exc.msg}: column {exc.colno}" if isinstance(exc, json.JSONDecodeError)
                   else "nested too deep" if isinstance(exc, RecursionError) else str(exc))
            out.bad_lines.append((n, line, why))
            continue
        out.documents.append((n, value, line))
    return out


def strings(value: Any, text: str, line: int = 1, where: str = "$") -> Iterator[tuple[str, str, int]]:
    """``(JSON path, string, line)`` of every non-blank string value inside ``value`` (read by
    :func:`loads` from ``text``, which starts on ``line`` of its file), depth first in document
    order. The line of a string is where its token starts; a string read from inside another
    string (``<json>``) has the line of that string."""
    tokens = (m.start() for m in _STRING.finditer(text) if not m.group(1))
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line_of(pos: int) -> int:
        return line + bisect.bisect_right(newlines, pos)

    stack: list[tuple[str, Any, int | None]] = [(where, value, None)]
    while stack:
        path, v, at = stack.pop()
        if isinstance(v, str):
            here = at if at is not None else line_of(next(tokens, 0))
            if not v.strip():
                continue
            if v.lstrip()[:1] in ("{", "["):
                try:
                    inner = loads(v)
                except (ValueError, RecursionError):
                    inner = None
                if isinstance(inner, list):  # an object (Pairs) or array
                    stack.extend(reversed(_children(path + "<json>", inner, here)))
                    continue
            yield path, v, here
        elif isinstance(v, list):
            stack.extend(reversed(_children(path, v, at)))


def _children(path: str, v: list[Any], at: int | None) -> list[tuple[str, Any, int | None]]:
    if isinstance(v, Pairs):
        return [(f"{path}.{k}" if k.isidentifier() else f"{path}[{json.dumps(k, ensure_ascii=False)}]", x, at)
                for k, x in v]
    return [(f"{path}[{i}]", x, at) for i, x in enumerate(v)]
