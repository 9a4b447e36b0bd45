"""Scanning loose text as untrusted data (``ctxviewer scan``): a text file, every string of a JSON
file, or a field of each JSON Lines record.

:func:`scan_file` yields one :class:`TextResult` per scanned unit -- the whole file (unit line 1),
each string value of a file that is one JSON document or JSON Lines (its JSON path, decoded: an
exported trace's ``\\n`` is a line break, not the letter n glued to the next word, and two
strings are never read as one sentence), or each JSONL record's field (its line number) -- with
its hits; records that are not JSON or lack the field are reported as problems naming the file,
line and field, and the rest still scan.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.assess.scanner.patterns import Hit
from ctxviewer.assess.scanner.registry import scan_text, scan_text_cached


@dataclass(frozen=True)
class TextResult:
    """The hits in one scanned text: the file, or one JSONL record."""

    line: int
    """1-based line of the record (1 for a whole text file)."""
    text: str
    """The text that was scanned (spans index it, in code points)."""
    hits: tuple[Hit, ...]
    """The scanner's hits, by position."""
    record_id: str | None = None
    """The record's ``id`` field, when a JSONL record has one."""
    path: str | None = None
    """The JSON path of the string scanned (``$.samples[0].messages[2].content``), when the file
    is JSON scanned string by string (:func:`json_strings`); ``None`` otherwise."""


@dataclass
class FileScan:
    """All results of a file plus the problems met while reading it."""

    results: list[TextResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class ScanInputError(ValueError):
    """The file cannot be read as UTF-8 text (the message names the file)."""


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (code points) of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def scan_file(path: Path, jsonl_field: str | None = None) -> FileScan:
    """Scan ``path`` as untrusted data. Raises :class:`ScanInputError` if it is not UTF-8 text."""
    try:
        data = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScanInputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ScanInputError(f"{path}: {exc.strerror or exc}") from None
    out = FileScan()
    if jsonl_field is None:
        documents = json_documents(data)
        if documents is None:
            out.results.append(TextResult(1, data, tuple(scan_text(data))))
            return out
        for line, doc in documents:
            for where, text in json_strings(doc):
                out.results.append(TextResult(line, text, scan_text_cached(text), path=where))
        return out
    for n, text, rid, problem in _records(path, data, jsonl_field):
        if problem:
            out.problems.append(problem)
        else:
            out.results.append(TextResult(n, text, tuple(scan_text(text)), rid))
    return out


def json_documents(data: str) -> list[tuple[int, Any]] | None:
    """``[(line, value)]`` when ``data`` is one JSON document (an object or array: line 1) or JSON
    Lines (every non-blank line an object or array: each its line), else ``None`` (plain text,
    scanned whole). A document nested too deep to read counts as text."""
    head = data.lstrip()[:1]
    if head not in ("{", "["):
        return None
    try:
        return [(1, json.loads(data))]
    except RecursionError:
        return None
    except ValueError:
        pass
    out: list[tuple[int, Any]] = []
    for n, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            return None
        if not isinstance(value, (dict, list)):
            return None
        out.append((n, value))
    return out or None


def json_strings(value: Any, where: str = "$") -> Iterator[tuple[str, str]]:
    """``(JSON path, text)`` of every string value inside ``value`` (object keys are names, not
    data: not yielded), depth first in document order; blank strings are skipped. A string that
    itself holds a JSON object or array (a tool call's ``arguments``, an attribute's serialized
    messages) is read as JSON too, its strings under ``PATH<json>``."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, str):
            if not v.strip():
                continue
            inner = v.lstrip()[:1]
            if inner in ("{", "["):
                try:
                    parsed = json.loads(v)
                except (ValueError, RecursionError):
                    parsed = None
                if isinstance(parsed, (dict, list)):
                    stack.append((path + "<json>", parsed))
                    continue
            yield path, v
        elif isinstance(v, dict):
            stack.extend(reversed([(f"{path}.{k}" if _plain_key(k) else f"{path}[{json.dumps(k)}]", x)
                                   for k, x in v.items()]))
        elif isinstance(v, list):
            stack.extend(reversed([(f"{path}[{i}]", x) for i, x in enumerate(v)]))


def _plain_key(key: str) -> bool:
    return key.isidentifier()


def _records(path: Path, data: str, name: str) -> Iterator[tuple[int, str, str | None, str | None]]:
    for n, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            yield n, "", None, f"{path}:{n}: not JSON ({exc.msg}: column {exc.colno}); skipped"
            continue
        except RecursionError:
            yield n, "", None, f"{path}:{n}: not readable JSON (a value is nested too deep); skipped"
            continue
        value = record.get(name) if isinstance(record, dict) else None
        if not isinstance(value, str):
            what = "has no" if not isinstance(record, dict) or name not in record else "has a non-text"
            yield n, "", None, f"{path}:{n}: record {what} field {name!r}; skipped"
            continue
        rid = record.get("id")
        yield n, value, str(rid) if rid is not None else None, None
