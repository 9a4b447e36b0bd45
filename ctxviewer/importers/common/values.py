"""OTLP/JSON value decoding: ``AnyValue``, key/value lists, trace and span ids, times, enums.

Rules from the OTLP specification's "JSON Protobuf Encoding" (opentelemetry-proto) and
``common/v1/common.proto``, relaxed for what real captures do: ``intValue``
as a string or a number, enums as integers or names (``"SPAN_KIND_CLIENT"``), ids as hex, ``0x``
hex or base64, times as Unix nanoseconds, JS ``HrTime`` pairs or ISO-8601. No Qt here.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_HEX = re.compile(r"[0-9a-fA-F]+")

SPAN_KINDS = ("unspecified", "internal", "server", "client", "producer", "consumer")
"""Normalised span kinds, indexed by the OTLP ``SpanKind`` enum number."""
STATUS_CODES = ("unset", "ok", "error")
"""Normalised status codes, indexed by the OTLP ``Status.StatusCode`` enum number."""


def decode_any_value(value: Any, path: str = "value") -> Any:
    """Decode an OTLP/JSON ``AnyValue`` object to a plain JSON value.

    ``stringValue`` -> ``str``; ``intValue`` (a decimal string or a number) -> ``int``;
    ``doubleValue`` -> ``float`` (also ``"NaN"``/``"Infinity"`` strings); ``boolValue`` -> ``bool``;
    ``arrayValue{values[]}`` -> ``list``; ``kvlistValue{values[{key,value}]}`` -> ``dict``;
    ``bytesValue`` -> its base64 text unchanged; ``{}`` -> ``None``.
    Raises ``ValueError`` naming ``path`` for a value of none of these shapes.
    """
    if not isinstance(value, Mapping):
        raise ValueError(f"{path}: expected an AnyValue object, got {type(value).__name__}")
    if "stringValue" in value:
        text = value["stringValue"]
        return None if text is None else str(text)
    if "intValue" in value:
        raw = value["intValue"]
        if isinstance(raw, bool) or not isinstance(raw, (int, str)):
            raise ValueError(f"{path}: intValue {raw!r} is not an integer")
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"{path}: intValue {raw!r} is not an integer") from None
    if "doubleValue" in value:
        raw = value["doubleValue"]
        try:
            return float(raw)
        except (TypeError, ValueError):
            raise ValueError(f"{path}: doubleValue {raw!r} is not a number") from None
    if "boolValue" in value:
        raw = value["boolValue"]
        return raw if isinstance(raw, bool) else str(raw).lower() == "true"
    if "arrayValue" in value:
        values = _values(value["arrayValue"], f"{path}.arrayValue")
        return [decode_any_value(v, f"{path}[{i}]") for i, v in enumerate(values)]
    if "kvlistValue" in value:
        return decode_key_values(_values(value["kvlistValue"], f"{path}.kvlistValue"), path)
    if "bytesValue" in value:
        return str(value["bytesValue"])
    if not value:
        return None
    raise ValueError(f"{path}: unknown AnyValue {sorted(value)!r}")


def _values(container: Any, path: str) -> list[Any]:
    """The ``values`` list of an ``arrayValue``/``kvlistValue``; ``ValueError`` naming ``path`` otherwise."""
    if container is None:
        return []
    if not isinstance(container, Mapping):
        raise ValueError(f"{path}: expected an object with values, got {type(container).__name__}")
    values = container.get("values") or []
    if not isinstance(values, list):
        raise ValueError(f"{path}.values: expected a list, got {type(values).__name__}")
    return values


def decode_key_values(kvs: Any, path: str = "attributes", skipped: list[str] | None = None) -> dict[str, Any]:
    """Decode an OTLP ``[{key, value: AnyValue}]`` list to ``{key: plain value}``.

    Raises ``ValueError`` naming the entry (``attributes[3] (gen_ai.usage.input_tokens)``). With
    ``skipped`` given, a bad entry is left out instead and its message (ending ``"; attribute left
    out"``) appended, so one unknown value never drops the span.
    """
    if kvs is None:
        return {}
    if not isinstance(kvs, list):
        raise ValueError(f"{path}: expected a list of key/value objects")
    out: dict[str, Any] = {}
    for i, kv in enumerate(kvs):
        try:
            if not isinstance(kv, Mapping) or not isinstance(kv.get("key"), str):
                raise ValueError(f"{path}[{i}]: expected {{key, value}}")
            out[kv["key"]] = decode_any_value(kv.get("value") or {}, f"{path}[{i}] ({kv['key']})")
        except ValueError as exc:
            if skipped is None:
                raise
            skipped.append(re.sub(r"(\[0\]){4,}", "[0]\u2026[0]", f"{exc}; attribute left out"))
    return out


def normalise_id(value: Any, nbytes: int) -> str | None:
    """A trace id (``nbytes=16``) or span id (``nbytes=8``) as lower-case hex.

    Accepts hex (the OTLP/JSON rule), ``0x``-prefixed hex (OTel Python console) and base64 of the
    binary id (some producers). ``None`` or ``""`` -> ``None``. A string of another form (a UUID, a
    redacted value) is returned unchanged so it still identifies the span.
    """
    if value is None or value == "":
        return None
    s = str(value).strip()
    if s.lower().startswith("0x"):  # only when hex follows: base64 may start with "0x" too ("0XL12ARx...==")
        digits = s[2:].rjust(nbytes * 2, "0")
        if len(digits) == nbytes * 2 and _HEX.fullmatch(digits):
            return digits.lower()
    if len(s) == nbytes * 2 and _HEX.fullmatch(s):
        return s.lower()
    try:
        raw = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return s
    return raw.hex() if len(raw) == nbytes else s


MIN_NANOS = 10**17
"""Smallest Unix-nanoseconds time taken as one (1973-03-03): below it an exporter wrote seconds,
milliseconds or microseconds in a nanoseconds field (1733500000 reads as 1970-01-01 00:00:01)."""
MAX_NANOS = 7_258_118_400 * 10**9
"""Largest Unix-nanoseconds time taken as one (2200-01-01): above it, not a real time (2**64 - 1
reads as the year 2554)."""
_UNITS = (("microseconds", 10**14), ("milliseconds", 10**11), ("seconds", 0))
"""The unit a too-small nanoseconds value most likely was, by its size (a 2024 time is ~1.7e15 µs,
~1.7e12 ms, ~1.7e9 s)."""


def parse_time(value: Any) -> datetime | None:
    """A span time as aware UTC (microsecond precision).

    Accepts Unix nanoseconds as a decimal string or number (OTLP ``startTimeUnixNano``) or as a
    protobuf.js ``Long`` (``{low, high}``: 64 bits as two 32-bit halves), a JS
    ``HrTime`` pair ``[seconds, nanos]``, or an ISO-8601 string (naive taken as UTC). ``None``,
    ``""`` and OTLP's ``"0"`` (unset) -> ``None``. Raises ``ValueError`` for anything else (also a
    number of nanoseconds beyond the dates Python holds, and one outside :data:`MIN_NANOS` ..
    :data:`MAX_NANOS`: seconds or milliseconds written as nanoseconds, or no real time).
    """
    if value is None or value == "" or value == "0" or value == 0:
        return None
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        return _EPOCH + timedelta(seconds=int(value[0]), microseconds=int(value[1]) // 1000)
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a time")
    if isinstance(value, Mapping) and isinstance(value.get("low"), int) and isinstance(value.get("high"), int):
        value = (value["high"] << 32) + (value["low"] & 0xFFFFFFFF)  # a protobuf.js Long: {low, high, unsigned}
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        ns = int(value)
        try:
            when = _EPOCH + timedelta(seconds=ns // 1_000_000_000, microseconds=(ns % 1_000_000_000) // 1000)
        except OverflowError:
            raise ValueError(f"{value!r} nanoseconds is out of the range of dates") from None
        if not MIN_NANOS <= ns <= MAX_NANOS:  # 1970-01-01 00:28:53 is milliseconds read as nanoseconds
            unit = next((u for u, lo in _UNITS if ns >= lo), "seconds") if 0 < ns < MIN_NANOS else None
            why = f"seconds, milliseconds or microseconds? ({unit}, by its size)" if unit else "not a real time"
            raise ValueError(f"{value!r} is not Unix nanoseconds (it reads as {when:%Y-%m-%d %H:%M:%S}): {why}")
        return when
    if isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"{value!r} is not a time") from None
        return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
    raise ValueError(f"{value!r} is not a time")


def enum_name(value: Any, names: tuple[str, ...], prefixes: tuple[str, ...]) -> str | None:
    """An OTLP enum given as a number (index into ``names``) or a name (``prefixes`` stripped),
    lower-cased; ``None`` if absent."""
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return names[value] if 0 <= value < len(names) else str(value)
    s = str(value)
    for p in prefixes:
        if s.upper().startswith(p):
            s = s[len(p):]
            break
    return s.lower()


def span_kind(value: Any) -> str | None:
    """A span kind (int or name) as ``client``, ``server``, ``internal``...; ``None`` if absent."""
    return enum_name(value, SPAN_KINDS, ("SPAN_KIND_", "SPANKIND."))


def span_status(value: Any) -> tuple[str | None, str | None]:
    """A span ``status`` object as ``(code, message)``: code ``unset``/``ok``/``error`` (int or name).
    A status object without a code is ``unset``, the empty one too: OTLP JSON leaves the default
    code (0, UNSET) out, so ``"status": {}`` is a recorded UNSET. No object: ``(None, None)``."""
    if not isinstance(value, Mapping):
        return None, None
    code = value.get("code", value.get("status_code"))
    message = value.get("message", value.get("description")) or None
    if code is None:
        return "unset", message
    return enum_name(code, STATUS_CODES, ("STATUS_CODE_", "STATUSCODE.")), message
