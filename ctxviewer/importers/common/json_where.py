"""Which JSON field a byte offset of a JSON document falls in, for warnings about bad bytes.

A byte that is not valid UTF-8 inside a JSON container is replaced with U+FFFD and noted
(:func:`ctxviewer.importers.common.containers.repair_text`); the warning names the field it sits in --
``resourceSpans[0].scopeSpans[0].spans[3].attributes[gen_ai.input.messages].value.stringValue`` --
not only the line and byte offset ("every bad record is one warning naming the file,
the record and the field"). An array element that is an object with a string ``key`` member
(OTLP attributes, ``{"key": ..., "value": ...}``) is named by that key instead of its index, when
the key comes before the offset.

:func:`field_paths` feeds ijson's push parser (``basic_parse_coro``, the C backend when present)
the document up to each offset in turn, in one pass, and reads the path of the value being parsed
there. JSON Lines (several documents one after another) work the same way. Stops naming (``None``)
at the first offset the parser cannot reach (the text is not JSON there). No Qt here.
"""

from __future__ import annotations

from typing import Any, Sequence

import ijson

REPLACEMENT = "\ufffd".encode()
"""What each replaced run becomes in the text the importer reads (U+FFFD in UTF-8)."""


class _Path:
    """The container path of the parser's position, kept from ijson's basic events."""

    def __init__(self) -> None:
        self.frames: list[list[Any]] = []  # [kind ("map" | "array"), key or element index, element name]

    def event(self, name: str, value: Any) -> None:
        frames = self.frames
        if name == "map_key":
            frames[-1][1] = value
        elif name in ("start_map", "start_array"):
            frames.append(["map", None, None] if name == "start_map" else ["array", 0, None])
        elif name in ("end_map", "end_array"):
            frames.pop()
            self._done()
        else:  # a scalar value
            if (len(frames) >= 2 and frames[-1][0] == "map" and frames[-1][1] == "key" and isinstance(value, str)
                    and frames[-2][0] == "array"):
                frames[-1][2] = value  # {"key": "gen_ai.input.messages", "value": ...}: named by its key
            self._done()

    def _done(self) -> None:
        """A value ended: an array moves to its next element, a map waits for its next key."""
        if self.frames:
            top = self.frames[-1]
            top[1] = top[1] + 1 if top[0] == "array" else None

    def text(self) -> str:
        """``a[0].b[name].c``; ``""`` at the top level, between documents."""
        out = []
        for i, (kind, key, _name) in enumerate(self.frames):
            if kind == "array":
                child = self.frames[i + 1] if i + 1 < len(self.frames) else None
                label = child[2] if child is not None and child[0] == "map" and child[2] is not None else key
                out.append(f"[{label}]")
            elif key is not None:
                out.append(("." if out else "") + str(key))
        return "".join(out)


def field_paths(data: bytes, runs: Sequence[tuple[int, int]]) -> list[str | None]:
    """For each ``(start, end)`` byte run of ``data`` (UTF-8 JSON or JSON Lines, runs sorted and
    not overlapping, each to be replaced with U+FFFD), the path of the field it falls in
    (``"resourceSpans[0].spans[3].name"``; ``""`` outside any value), or ``None`` where the JSON
    before it cannot be parsed. A leading UTF-8 BOM is skipped."""
    out: list[str | None] = [None] * len(runs)
    events: list[tuple[str, Any]] = ijson.sendable_list()
    coro = ijson.basic_parse_coro(events, multiple_values=True)
    path = _Path()
    pos = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    try:
        for n, (start, end) in enumerate(runs):
            coro.send(data[pos:start])
            for name, value in events:
                path.event(name, value)
            del events[:]
            out[n] = path.text()
            coro.send(REPLACEMENT)
            pos = end
    except (ijson.JSONError, ijson.IncompleteJSONError, IndexError, ValueError):
        pass
    return out
