"""Container decoding shared by every importer: compression, text encoding, JSON document framing.

Trace files reach us in more wrappers than formats:

* **compression** -- gzip (magic ``1f 8b``), detected by content, never by file name, and
  decompressed to at most :data:`~.compressed.MAX_GUNZIPPED_BYTES` (:mod:`.compressed`);
* **text encoding** -- UTF-8 with or without a BOM, UTF-16 LE/BE with a BOM (PowerShell's
  ``Out-File`` writes it), UTF-32 with a BOM;
* **framing** -- one JSON document; JSON Lines (one document per line); or pretty-printed JSON
  objects concatenated with blank lines between them (OTel Python ``ConsoleSpanExporter``).

:func:`read_text` undoes compression and encoding; :func:`iter_documents` frames the text into
``(record, document)`` pairs; :func:`head_text` / :func:`sniff_document` do the same on the first
bytes of a file for sniffing. Binary containers with their own structure (``.eval`` zips, OTLP
protobuf) are opened by their importers. No Qt here.
"""

from __future__ import annotations

import codecs
import io
import json
import re
import threading
import zlib
from pathlib import Path
from typing import IO, Any, Iterator

from ctxviewer.importers.common import notes
from ctxviewer.importers.common.compressed import GZIP_MAGIC, capped_gzip, gunzip, head_bytes
from ctxviewer.importers.common.peek import cut_short
from ctxviewer.importers.contract import ImportFailed

ZIP_MAGIC = b"PK\x03\x04"

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def encoding_of(data: bytes) -> str:
    """The codec for ``data`` by its BOM (``utf-8-sig``, ``utf-16``, ``utf-32``); ``utf-8`` without one."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec
    return "utf-8"


def decode_text(data: bytes, errors: str = "strict") -> str:
    """``data`` as text under :func:`encoding_of`; the BOM is removed. Raises ``UnicodeDecodeError``."""
    return data.decode(encoding_of(data), errors)


def read_bytes(path: Path) -> bytes:
    """The file's bytes, gunzipped when it starts with the gzip magic (at most
    :data:`MAX_GUNZIPPED_BYTES`). Raises :class:`ImportFailed` naming the file."""
    try:
        data = Path(path).read_bytes()
        if data.startswith(GZIP_MAGIC):
            data = gunzip(data, path)
    except (OSError, EOFError, zlib.error) as exc:
        raise ImportFailed(f"{path}: cannot read file: {getattr(exc, 'strerror', None) or exc}") from None
    return data


MAX_BAD_BYTES_NOTED = 5
"""Undecodable byte runs named one by one in a file; the rest are counted in the last warning."""


def read_text(path: Path) -> str:
    """The file as text: gunzipped, BOM-decoded (see module docstring). Raises :class:`ImportFailed`
    naming the file when it cannot be read.

    Bytes that are not valid in the file's encoding become U+FFFD (REPLACEMENT CHARACTER), each run
    with a warning (:func:`ctxviewer.importers.common.notes.warn`) naming its line and byte offset and the
    text around it, so one cut character never loses the file."""
    return repair_text(read_bytes(path))


def repair_text(data: bytes) -> str:
    """``data`` decoded as :func:`decode_text` does, with undecodable bytes replaced by U+FFFD and
    each replaced run noted (see :func:`read_text`). Never raises."""
    try:
        return decode_text(data)
    except UnicodeDecodeError:
        pass
    codec = encoding_of(data)
    text, found = decode_noting(data, codec)
    utf8 = codec.startswith("utf-8")
    noted = found[:MAX_BAD_BYTES_NOTED]
    fields: list[str | None] = [None] * len(noted)
    if utf8 and data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):  # JSON: name the field too
        from ctxviewer.importers.common.json_where import (
            field_paths,  # ijson: loaded only when there are bad bytes (start-up)
        )

        fields = field_paths(data, [(start, end) for start, end, _reason in noted])
    for (start, end, reason), field in zip(noted, fields):
        where = f"line {data.count(_NEWLINE, 0, start) + 1}" if utf8 else f"byte {start}"
        around = f" in {data[max(0, start - 24):end + 24].decode('utf-8', 'replace')!r}" if utf8 else ""
        notes.warn(where, (f"{field}: " if field else "") + f"byte {start}: {end - start} byte(s) not valid "
                          f"{codec.replace('-sig', '')} ({reason}); replaced with U+FFFD{around}")
    if len(found) > MAX_BAD_BYTES_NOTED:
        notes.warn("whole file", f"{len(found) - MAX_BAD_BYTES_NOTED} more run(s) of invalid bytes replaced with U+FFFD")
    return text


_NEWLINE = b"\n"
_BAD = threading.local()
_NOTE_BAD = "ctxviewer.replace-and-note"


def decode_noting(data: bytes, codec: str = "utf-8") -> tuple[str, list[tuple[int, int, str]]]:
    """``data`` decoded with ``codec``, each undecodable run of bytes replaced by U+FFFD, and the
    runs replaced: ``(start, end, reason)`` byte offsets into ``data`` with the decoder's reason
    (``"invalid start byte"``), in order. Never raises for bad bytes."""
    found: list[tuple[int, int, str]] = []
    _BAD.found = found
    try:
        text = data.decode(codec, _NOTE_BAD)
    finally:
        _BAD.found = None
    return text, found


def _note_bad(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    found = getattr(_BAD, "found", None)
    if found is not None:
        found.append((exc.start, exc.end, exc.reason))
    return "\ufffd", exc.end


codecs.register_error(_NOTE_BAD, _note_bad)


def head_text(head: bytes) -> str:
    """The first bytes of a file as text (gzip undone, BOM decoded, a cut character dropped)."""
    data = head_bytes(head)
    return decode_text(data, errors="ignore")


MAX_DEPTH = 100
"""JSON nesting kept by :func:`loads`: arrays and objects deeper than this are replaced by
:data:`TOO_DEEP` (Python's parser and every recursive reader stop near 1,000 levels)."""

TOO_DEEP = f"\u2026 nested deeper than {MAX_DEPTH} levels; left out on import"
"""The string that stands in for a JSON value nested deeper than :data:`MAX_DEPTH`."""

_STRUCTURE = re.compile(r'["\\\[\]{}]')


def loads(text: str, record: str | None = "document") -> Any:
    """``json.loads(text)`` that survives any nesting: when the text is nested too deep for the
    parser, every array or object deeper than :data:`MAX_DEPTH` is replaced by :data:`TOO_DEEP`
    and a warning names ``record`` and the JSON path of the first cut
    (:func:`ctxviewer.importers.common.notes.warn`). Raises ``ValueError`` (``json.JSONDecodeError``)
    when the text is not JSON."""
    try:
        return json.loads(text)
    except RecursionError:
        pass
    doc, message = loads_bounded(text)
    notes.warn(record, message)
    return doc


def loads_bounded(text: str) -> tuple[Any, str]:
    """Parse ``text`` with every array/object deeper than :data:`MAX_DEPTH` replaced by
    :data:`TOO_DEEP`; returns the value and a message naming the JSON path of the first cut
    (shortened in the middle when long). Raises ``ValueError`` when the text is not JSON."""
    cut, count = _cut_deep(text)
    doc = json.loads(cut)
    where = path_of(doc, TOO_DEEP) or "a value"
    if len(where) > 100:
        where = f"{where[:40]}\u2026{where[-40:]}"
    return doc, f"{where}: JSON nested deeper than {MAX_DEPTH} levels; {count} deeper value(s) left out"


def nested_too_deep(text: str) -> bool:
    """True when ``text`` is JSON nested too deep for the parser (cheap unless it has many brackets)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    try:
        json.loads(text)
    except RecursionError:
        return True
    except ValueError:
        return False
    return False


def _cut_deep(text: str) -> tuple[str, int]:
    """``text`` with each array/object that opens deeper than :data:`MAX_DEPTH` replaced by the
    JSON string :data:`TOO_DEEP`; returns the text and the number of values replaced."""
    out: list[str] = []
    depth, pos, in_string, skip, cut_start, count = 0, 0, False, -1, -1, 0
    for m in _STRUCTURE.finditer(text):
        i = m.start()
        if i <= skip:
            continue
        ch = m.group()
        if in_string:
            if ch == "\\":
                skip = i + 1
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth == MAX_DEPTH + 1 and cut_start < 0:
                cut_start = i
        else:
            depth -= 1
            if depth == MAX_DEPTH and cut_start >= 0:
                out.append(text[pos:cut_start])
                out.append(json.dumps(TOO_DEEP))
                pos = i + 1
                cut_start = -1
                count += 1
    if cut_start >= 0:  # never closed: cut to the end, the parser reports what is missing
        out.append(text[pos:cut_start])
        out.append(json.dumps(TOO_DEEP))
        pos = len(text)
        count += 1
    out.append(text[pos:])
    return "".join(out), count


def path_of(doc: Any, value: str, limit: int = 100_000) -> str | None:
    """The JSON path (``resourceSpans[0].spans[1].name``) of the first string in ``doc`` equal to
    ``value``, or containing it when ``value`` is one character; ``None`` if none within ``limit``
    nodes. Iterative (safe at any depth)."""
    stack: list[tuple[str, Any]] = [("", doc)]
    seen = 0
    while stack and seen < limit:
        path, node = stack.pop()
        seen += 1
        if isinstance(node, str):
            if node == value or (len(value) == 1 and value in node):
                return path.lstrip(".") or "(top)"
        elif isinstance(node, dict):
            stack.extend((f"{path}.{k}", v) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(node))))
    return None


def iter_documents(text: str) -> Iterator[tuple[str, Any]]:
    """Frame ``text`` into JSON documents: ``(record, document)`` in file order.

    One JSON document yields ``("document", doc)``. Otherwise the text is read as a sequence of
    JSON values (JSON Lines or concatenated pretty-printed objects) and each yields
    ``("line N", doc)`` with N the 1-based line it starts on: JSON Lines when the first line is a
    whole JSON value, else concatenated (pretty-printed) values. A value that does not parse yields
    ``("line N", ValueError(...))`` and reading resumes on the next line. Raises ``ValueError``
    when no JSON value at all can be read.
    """
    try:
        yield "document", loads(text)
        return
    except json.JSONDecodeError as whole:
        first_error = whole
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if len(lines) >= 2 and _parses(lines[0][1]):  # JSON Lines: one document per line
        for n, line in lines:
            try:
                yield f"line {n}", loads(line, f"line {n}")
            except json.JSONDecodeError as exc:
                yield f"line {n}", ValueError(f"not valid JSON: {exc.msg} (column {exc.colno})")
        return
    yield from _concatenated(text, first_error)


def _parses(line: str) -> bool:
    try:
        json.loads(line)
    except RecursionError:
        return True
    except ValueError:
        return False
    return True


def _concatenated(text: str, first_error: json.JSONDecodeError) -> Iterator[tuple[str, Any]]:
    """Pretty-printed JSON values one after another (the OTel Python console exporter)."""
    decoder = json.JSONDecoder()
    pos, n, found = 0, len(text), 0
    while pos < n:
        while pos < n and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= n:
            break
        line = text.count("\n", 0, pos) + 1
        try:
            doc, end = decoder.raw_decode(text, pos)
        except RecursionError:
            yield f"line {line}", ValueError(f"JSON nested too deep to read (over {MAX_DEPTH} levels); "
                                             "the rest of the file is left out")
            return
        except json.JSONDecodeError as exc:
            if not found:
                raise ValueError(f"not JSON or JSON Lines: {first_error.msg} (line {first_error.lineno}){cut_short(first_error)}") from None
            yield f"line {line}", ValueError(f"not valid JSON: {exc.msg} (column {exc.colno})")
            nl = text.find("\n", pos)
            pos = n if nl < 0 else nl + 1
            continue
        found += 1
        yield f"line {line}", doc
        pos = end
    if not found:
        raise ValueError(f"not JSON or JSON Lines: {first_error.msg} (line {first_error.lineno}){cut_short(first_error)}")


def load_documents(path: Path) -> list[tuple[str, Any]]:
    """:func:`iter_documents` of :func:`read_text`; raises :class:`ImportFailed` naming the file
    when it holds no JSON."""
    text = read_text(path)
    try:
        return list(iter_documents(text))
    except ValueError as exc:
        raise ImportFailed(f"{path}: {exc}") from None


def sniff_document(head: bytes) -> Any:
    """The first JSON document in a file head (the whole head, or else its first value), or ``None``.

    Never raises. A head cut inside a large document gives ``None``; callers then fall back to a
    byte or text search of :func:`head_text`.
    """
    text = head_text(head)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    try:
        return json.JSONDecoder().raw_decode(text.lstrip())[0]
    except (ValueError, RecursionError):
        return None


def open_text(path: Path) -> IO[str]:
    """The file as a text stream read lazily: gzip undone (by content), decoded under
    :func:`encoding_of` of its first bytes (the BOM removed), universal newlines -- for JSON Lines
    files too big to hold in memory. Raises :class:`ImportFailed` naming the file when it cannot be
    opened; decoding errors surface while reading (``UnicodeDecodeError``, ``zlib.error``, ``EOFError``;
    :func:`too_big`'s :class:`ImportFailed` past :data:`MAX_GUNZIPPED_BYTES` of a gzipped file)."""
    try:
        with open(path, "rb") as fh:
            gzipped = fh.read(2) == GZIP_MAGIC
        binary: IO[bytes] = capped_gzip(path) if gzipped else open(path, "rb")
        try:
            first = binary.read(4)
            binary.seek(0)
        except BaseException:
            binary.close()
            raise
    except (OSError, EOFError, zlib.error) as exc:
        raise ImportFailed(f"{path}: cannot read file: {getattr(exc, 'strerror', None) or exc}") from None
    return io.TextIOWrapper(binary, encoding=encoding_of(first), errors="strict")


def first_line_is_json(path: Path) -> bool:
    """True when the file's first non-blank line is a whole JSON value and more lines follow
    (JSON Lines, which :func:`stream_lines` reads one line at a time)."""
    try:
        with open_text(path) as fh:
            first = next((line for line in fh if line.strip()), None)
            more = next((line for line in fh if line.strip()), None)
    except (UnicodeDecodeError, OSError, EOFError, zlib.error):
        return False
    return first is not None and more is not None and _parses(first)


def iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a text file, read one at a time: ``(N, line)`` with N 1-based (blank
    lines counted; the newline removed). Memory stays bounded by the longest line, whatever the file size. Raises
    :class:`ImportFailed` naming the file when it cannot be read or decoded."""
    try:
        with open_text(path) as fh:
            for n, line in enumerate(fh, 1):
                if line.strip():
                    yield n, line.rstrip("\n")
    except (UnicodeDecodeError, EOFError, OSError, zlib.error) as exc:
        raise ImportFailed(f"{path}: cannot read file: {exc}") from None
