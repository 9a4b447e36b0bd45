"""JSON text an exporter encoded once too often, read as the characters it stands for.

Exporters JSON-encode values with ASCII escapes (Python's ``json.dumps`` default): a tool result
object becomes ``{"result": "23\\u00b0C"}`` and a plain string becomes the JSON string
``"\\u4f60\\u597d"``; when that text is then stored as a string attribute (a JSON string in a
string), a reader sees the escapes instead of ``23°C`` and ``你好``. :func:`decode_escapes`
decodes such text once:

* a text that is a whole JSON string literal (``"\\u4f60\\u597d"``) -> the string it encodes
  (``你好``);
* a JSON object or array -> the same text with each ``\\uXXXX`` escape of a non-ASCII character
  (a surrogate pair as one character) written as the character; every other byte -- spacing, key
  order, ASCII escapes such as ``\\"`` and ``\\n`` -- stays, and the result parses to the same
  value (checked, else the text is returned unchanged);
* any other text (plain prose, a Windows path ``C:\\new\\u0041``, JSON that does not parse) ->
  unchanged: a genuinely literal backslash in plain text is never touched.

Only text holding at least one escape of a non-ASCII character is decoded at all: that is the mark
of an ASCII-only encoder, so a JSON-quoted path like ``"C:\\\\temp"`` keeps its backslash.

Knows nothing of traces. No Qt here.
"""

from __future__ import annotations

import json
import re

_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u([0-9a-fA-F]{4})(?:\\u([dD][c-fC-F][0-9a-fA-F]{2}))?")
"""A ``\\uXXXX`` escape (after an even run of backslashes, so not an escaped backslash), with the
low half when it is the high half of a surrogate pair."""


def _char(m: re.Match[str]) -> str:
    cp = int(m.group(2), 16)
    low = m.group(3)
    if 0xD800 <= cp <= 0xDBFF and low is not None:
        return m.group(1) + chr(0x10000 + ((cp - 0xD800) << 10) + (int(low, 16) - 0xDC00))
    if cp < 0x80 or 0xD800 <= cp <= 0xDFFF:
        return m.group(0)  # ASCII (may be a quote or a control) or a lone surrogate: keep the escape
    return m.group(1) + chr(cp) + ("\\u" + low if low is not None else "")


def decode_escapes(text: str) -> str:
    """``text`` decoded once where it is JSON an exporter encoded (see the module docstring);
    unchanged otherwise. Never raises."""
    if "\\u" not in text:
        return text
    s = text.strip()
    if not s or s[0] not in "[{\"" or not any(_char(m) != m.group(0) for m in _ESCAPE.finditer(s)):
        return text
    try:
        value = json.loads(s)
    except (ValueError, RecursionError):
        return text
    if isinstance(value, str):
        return value
    if not isinstance(value, (dict, list)):
        return text
    decoded = _ESCAPE.sub(_char, text)
    if decoded == text:
        return text
    try:
        same = json.loads(decoded) == value
    except (ValueError, RecursionError):
        same = False
    return decoded if same else text
