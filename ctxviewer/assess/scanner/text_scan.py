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
from typing import Iterator

from ctxviewer.assess.scanner import json_strings
from ctxviewer.assess.scanner.patterns import Hit
from ctxviewer.assess.scanner.registry import scan_text, scan_text_cached
from ctxviewer.util.file_kind import binary_kind


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
    is JSON scanned string by string (:func:`.json_strings.strings`); ``None`` otherwise."""


@dataclass
class FileScan:
    """All results of a file plus the problems met while reading it."""

    results: list[TextResult] = field(default_factory=list)
    """The units scanned (for a JSON file: only the strings with hits)."""
    problems: list[str] = field(default_factory=list)
    """What could not be read as it should, naming the file and line (a partial scan)."""
    strings: int | None = None
    """For a file scanned string by string: how many strings were scanned; ``None`` otherwise."""


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
        kind = binary_kind(exc.object[:16])
        raise ScanInputError(f"{path}: {'not text: ' + kind if kind else 'not UTF-8 text'} "
                             f"({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ScanInputError(f"{path}: {exc.strerror or exc}") from None
    out = FileScan()
    if jsonl_field is None:
        _scan_whole(path, data, out)
        return out
    for n, text, rid, problem in _records(path, data, jsonl_field):
        if problem:
            out.problems.append(problem)
        else:
            out.results.append(TextResult(n, text, tuple(scan_text(text)), rid))
    return out


JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")
"""File names that say the file is JSON: one that does not parse is a problem, not plain text."""
JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")
"""File names that say the file is JSON Lines: a line that is not JSON is named, the rest read as
JSON (any other file is JSON Lines only when every line is a JSON record)."""


def _scan_whole(path: Path, data: str, out: FileScan) -> None:
    """Scan ``data`` whole, or string by string when it is JSON (:mod:`.json_strings`): only the
    strings with hits are kept (:attr:`FileScan.strings` counts them all). JSON that cannot be
    read -- a ``.json`` file cut short, nesting too deep, a JSON Lines line that is not JSON -- is
    a problem naming the file and line, and that text is scanned as plain text instead."""
    try:
        found = json_strings.read(data, json_lines=path.suffix.lower() in JSON_LINES_SUFFIXES)
    except RecursionError:
        out.problems.append(f"{path}: JSON nested too deep to read; scanned as plain text, its escapes (\\uXXXX) "
                            "not decoded")
        found = None
    else:
        if found is None and path.suffix.lower() in JSON_SUFFIXES and data.strip():
            scalar, why = _scalar_or_error(data)
            if why is None:  # a .json holding one string, number or literal: read as such
                found = json_strings.JsonFile([(1, scalar, data)])
            else:
                out.problems.append(f"{path}: not JSON ({why}); scanned as plain text, its escapes (\\uXXXX) not "
                                    "decoded")
    if found is None:
        out.results.append(TextResult(1, data, tuple(scan_text(data))))
        return
    out.strings = 0
    for line, doc, text in found.documents:
        for where, value, at in json_strings.strings(doc, text, line):
            out.strings += 1
            hits = scan_text_cached(value)
            if hits:
                out.results.append(TextResult(at, value, hits, path=where))
    for line, text, why in found.bad_lines:
        out.problems.append(f"{path}:{line}: not JSON ({why}); this line scanned as plain text")
        hits = tuple(scan_text(text))
        if hits:
            out.results.append(TextResult(line, text, hits))


def _scalar_or_error(data: str) -> tuple[object, str | None]:
    """``(value, None)`` when ``data`` is JSON holding one string, number, boolean or null, else
    ``(None, why)``: why it is not JSON, in words with its line and column (one parse either way)."""
    try:
        value = json.loads(data)
    except json.JSONDecodeError as exc:
        cut = " -- was the file cut short?" if exc.pos >= len(data.rstrip()) else ""
        return None, f"{exc.msg} at line {exc.lineno}, column {exc.colno}{cut}"
    except (ValueError, RecursionError) as exc:
        return None, str(exc) or type(exc).__name__
    return (None, "not an object or array") if isinstance(value, (dict, list)) else (value, None)


def _records(path: Path, data: str, name: str) -> Iterator[tuple[int, str, str | None, str | None]]:
    """``(line number, the field's text, the record's id, None)`` per JSON Lines record of ``data``,
    or ``(line number, "", None, warning)`` for a line that is not a record with a text field
    ``name``. Lines end at ``\n`` only (a trailing ``\r`` dropped): a U+2028 or U+0085 inside a
    string is JSON text, not a line break, as the JSON Lines reader of the plain scan reads it."""
    for n, line in enumerate(data.split("\n"), 1):
        line = line[:-1] if line.endswith("\r") else line
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
