"""Values a trace file may hold but the trace database cannot: repaired on import, each with a warning.

Trace files are untrusted, and JSON allows what SQLite and UTF-8 do not:

* **lone surrogates** (``"\\ud800"`` in JSON) are not Unicode scalar values and cannot be encoded
  as UTF-8; each string holding one is stored with U+FFFD (REPLACEMENT CHARACTER) in its place;
* **integers beyond 64 bits** (a wrapped count of 18446744073709551615, ``max_tokens`` of 1e300)
  do not fit an SQLite INTEGER; such a field becomes ``None`` ("not recorded").

:func:`repair` walks a :class:`~ctxviewer.model.trace.RequestTrace` (dataclass fields, tuples, mappings)
and returns the repaired trace with one message per field, named by its dotted path
(``items[2].content``, ``endpoint.capacity``). It also leaves out each proposed tool call without
a tool name (``tool_calls[0]: no tool name; the tool call was left out``): the native record
requires one, and a provider response or span may lack it. Implausible but storable values
(capacity 0) are not repaired: :mod:`ctxviewer.assess.plausibility` names them.

:func:`unreadable` is the last gate before the store: why the store could not read a trace back
(what :func:`~ctxviewer.model.serialize.trace_from_dict` of its :func:`~ctxviewer.model.serialize.trace_to_dict`
would refuse, e.g. ``items[2].id: duplicate item id 'system'``), or ``None``. The import pipeline
leaves out a trace it names, so no importer can store a trace that ``show`` cannot open. No Qt here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from frozendict import frozendict

from ctxviewer.model.serialize import WIRE, TraceFormatError, trace_from_dict, trace_to_dict
from ctxviewer.model.trace import (
    ContextItem,
    Endpoint,
    Kind,
    RequestTrace,
    SourceRef,
    Status,
    TokenProvenance,
    TokenSource,
    Trust,
)

IMPLAUSIBLE_KEY = "ctxviewer.implausible"
"""Attribute listing recorded numbers the store could not keep (``"endpoint.capacity: 1.000e+30
does not fit in 64 bits; stored as not recorded"``): :func:`ctxviewer.assess.plausibility.implausible`
reports them, so an impossible recorded C stays a finding instead of becoming "not recorded"."""
RECORDED_NUMBERS = ("endpoint.", "reserved_output_tokens", "input_tokens", "safety_margin", "budget")
"""Paths of the recorded budget numbers whose loss changes what eq. 3.1 decides."""
INT_MIN = -(2**63)
"""Smallest integer SQLite stores (signed 64-bit)."""
INT_MAX = 2**63 - 1
"""Largest integer SQLite stores (signed 64-bit)."""


def _bad_text(s: str) -> bool:
    if s.isascii():
        return False
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _fix_text(s: str) -> str:
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)


def _walk(value: Any, path: str, out: list[str]) -> Any:
    """``value`` repaired (the same object when nothing changed); messages appended to ``out``."""
    if isinstance(value, str):
        if _bad_text(value):
            n = sum(1 for c in value if 0xD800 <= ord(c) <= 0xDFFF)
            out.append(f"{path}: {n} lone surrogate(s) (not Unicode text) replaced with U+FFFD")
            return _fix_text(value)
        return value
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        if INT_MIN <= value <= INT_MAX:
            return value
        shown = str(value) if abs(value) < 10**24 else f"{value:.3e}"
        out.append(f"{path}: {shown} does not fit in 64 bits; stored as not recorded")
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            old = getattr(value, f.name)
            new = _walk(old, f"{path}.{f.name}" if path else f.name, out)
            if new is not old:
                changes[f.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, tuple):
        items = [_walk(v, f"{path}[{i}]", out) for i, v in enumerate(value)]
        return tuple(items) if any(a is not b for a, b in zip(items, value)) else value
    if isinstance(value, Mapping):
        changed = False
        pairs = []
        for k, v in value.items():
            nk = _fix_text(k) if isinstance(k, str) and _bad_text(k) else k
            nv = _walk_json(v, f"{path}.{nk}" if isinstance(nk, str) else f"{path}[{nk!r}]", out)
            changed = changed or nk is not k or nv is not v
            pairs.append((nk, nv))
        if not changed:
            return value
        return frozendict(pairs) if isinstance(value, frozendict) else dict(pairs)
    return value


def _walk_json(value: Any, path: str, out: list[str]) -> Any:
    """Like :func:`_walk` for free-form attribute values: only text is repaired (JSON keeps big integers)."""
    if isinstance(value, str):
        return _walk(value, path, out)
    if isinstance(value, (tuple, list)):
        items = [_walk_json(v, f"{path}[{i}]", out) for i, v in enumerate(value)]
        return type(value)(items) if any(a is not b for a, b in zip(items, value)) else value
    if isinstance(value, Mapping):
        return _walk(value, path, out)
    return value


_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _dataclass_fields(t: type) -> tuple[str, ...] | None:
    """Field names of dataclass type ``t`` (cached per type), ``None`` for any other type."""
    try:
        return _FIELDS[t]
    except KeyError:
        names = tuple(f.name for f in dataclasses.fields(t)) if dataclasses.is_dataclass(t) else None
        _FIELDS[t] = names
        return names


def _clean(value: Any) -> bool:
    """True when :func:`_walk` would change nothing in ``value`` (the same rules, no paths built:
    the common case, checked first at a fraction of the cost; the exact types first)."""
    t = type(value)
    if t is str:
        return not _bad_text(value)  # (its own ASCII test comes first)
    if t is int:
        return bool(INT_MIN <= value <= INT_MAX)
    if value is None or t is bool or t is float:
        return True
    names = _dataclass_fields(t)
    if names is not None:
        return all(_clean(getattr(value, name)) for name in names)
    if isinstance(value, str):
        return not _bad_text(value)
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return INT_MIN <= value <= INT_MAX
    if isinstance(value, tuple):
        return all(_clean(v) for v in value)
    if isinstance(value, Mapping):
        return all((not isinstance(k, str) or not _bad_text(k)) and _clean_json(v) for k, v in value.items())
    return True


def _clean_json(value: Any) -> bool:
    if isinstance(value, str):
        return not _bad_text(value)
    if isinstance(value, (tuple, list)):
        return all(_clean_json(v) for v in value)
    if isinstance(value, Mapping):
        return _clean(value)
    return True


def repair(trace: RequestTrace) -> tuple[RequestTrace, list[str]]:
    """``trace`` with lone surrogates replaced, out-of-range integers dropped and tool calls
    without a name left out (see the module docstring), and one message per repaired field
    (``"items[0].content: 1 lone surrogate(s) ..."``, ``"tool_calls[0]: no tool name; the tool
    call was left out"``), paths indexing ``trace`` as given. Returns ``trace`` itself and ``[]``
    when nothing needed repair. Never raises."""
    nameless = [n for n, call in enumerate(trace.tool_calls) if not _named(call)]
    clean = _clean(trace)
    if clean and not nameless:
        return trace, []
    out: list[str] = []
    fixed = trace if clean else _walk(trace, "", out)
    if nameless:
        out.extend(f"tool_calls[{n}]: no tool name; the tool call was left out" for n in nameless)
        fixed = dataclasses.replace(fixed, tool_calls=tuple(c for n, c in enumerate(fixed.tool_calls)
                                                            if n not in nameless))
    dropped = [m for m in out if m.startswith(RECORDED_NUMBERS) and "does not fit in 64 bits" in m]
    if dropped:  # the recorded value was impossible: kept as a finding, not silently "not recorded"
        attrs = dict(fixed.attributes)
        attrs[IMPLAUSIBLE_KEY] = [*attrs.get(IMPLAUSIBLE_KEY, []), *dropped]
        fixed = dataclasses.replace(fixed, attributes=attrs)
    return (fixed if out else trace), out


def _named(call: Any) -> bool:
    """Whether a tool call has the non-empty string name the native record requires."""
    name = getattr(call, "name", None)
    return isinstance(name, str) and bool(name)


def unreadable(trace: RequestTrace) -> str | None:
    """Why the store could not read ``trace`` back -- the error
    :func:`~ctxviewer.model.serialize.trace_from_dict` raises for
    :func:`~ctxviewer.model.serialize.trace_to_dict` of it (``"tool_calls[0].name: is required"``,
    ``"items[2].id: duplicate item id 'system'"``), or the error writing it raises -- or ``None``
    when it can. Items whose every value is plainly readable (:func:`_plain_items`: the common
    case) are not converted; the rest of the trace always is. Never raises."""
    return checked(trace)[0]


def checked(trace: RequestTrace) -> tuple[str | None, dict[str, Any] | None]:
    """:func:`unreadable` of ``trace`` and, when it is readable and its items were not converted,
    the JSON form of the rest of it that was read back -- ``trace_to_dict(replace(trace, items=()))``,
    what the store writes as the trace's record (:meth:`~ctxviewer.store.TraceStore.add`'s
    ``details``: converted once, not again when written); ``None`` otherwise. Never raises."""
    try:
        if _plain_items(trace.items):
            rest = trace_to_dict(dataclasses.replace(trace, items=()))
            trace_from_dict(rest)
            return None, rest
        trace_from_dict(trace_to_dict(trace))
    except TraceFormatError as exc:
        return str(exc), None
    except Exception as exc:  # a value the writer cannot convert (an importer plug-in's odd type)
        return f"cannot be stored: {type(exc).__name__}: {exc}", None
    return None, None


def _count(value: Any) -> bool:
    return value is None or (type(value) is int and value >= 0)


def _text(value: Any) -> bool:
    return value is None or type(value) is str


def _plain_items(items: Any) -> bool:
    """True when every item surely reads back unchanged -- exact types, non-empty unique ids,
    counts not negative (what :func:`~ctxviewer.model.serialize.item_from_dict` and the unique-id rule
    accept) -- so :func:`unreadable` need not convert them; False also when unsure."""
    if type(items) is not tuple:
        return False
    seen: set[str] = set()
    for it in items:
        if type(it) is not ContextItem or type(it.id) is not str or not it.id or it.id in seen:
            return False
        seen.add(it.id)
        if type(it.kind) is not Kind or type(it.status) is not Status or type(it.trust) is not Trust:
            return False
        if not (_count(it.tokens) and _count(it.position) and _text(it.content) and _text(it.omission_reason)
                and _text(it.role)):
            return False
        if it.priority is not None and type(it.priority) not in (int, float):
            return False
        src = it.source
        if src is not None and (type(src) is not SourceRef or not _count(src.turn)
                                or not (_text(src.store) and _text(src.document_id) and _text(src.url))):
            return False
        prov = it.tokens_provenance
        if prov is not None and (type(prov) is not TokenProvenance or type(prov.source) is not TokenSource
                                 or not _text(prov.encoding)):
            return False
    return True


_REST_FIELDS = tuple(f.name for f in dataclasses.fields(RequestTrace) if f.name != "items")


class CheckedForms:
    """The JSON forms :func:`checked` made for the traces of an import, handed to the store when
    it writes them (``TraceStore.add(details=forms.take)``) so each trace is converted once. A
    form is given only for the very trace it was made of, items aside: each other field the same
    object -- counting tokens replaces the items and may record the endpoint's encoding, which
    the form then takes -- otherwise the store converts anew. Holds only the traces read and not
    yet written (the import's read-ahead)."""

    def __init__(self) -> None:
        self._forms: dict[str, tuple[RequestTrace, dict[str, Any]]] = {}

    def keep(self, trace: RequestTrace, form: dict[str, Any] | None) -> None:
        """Remember ``form`` (from :func:`checked`) for ``trace``; ``None`` forgets an earlier one."""
        if form is None:
            self._forms.pop(trace.trace_id, None)
        else:
            self._forms[trace.trace_id] = (trace, form)

    def take(self, trace: RequestTrace) -> dict[str, Any] | None:
        """The form kept for ``trace`` (then forgotten), or ``None`` when none was or ``trace``
        differs from the checked one outside its items."""
        kept = self._forms.pop(trace.trace_id, None)
        if kept is None:
            return None
        was, form = kept
        if was is trace:
            return form
        for name in _REST_FIELDS:
            before, now = getattr(was, name), getattr(trace, name)
            if before is now:
                continue
            if name == "endpoint" and "endpoint" in form and dataclasses.replace(before, encoding=now.encoding) == now:
                form["endpoint"] = WIRE.unstructure(now, Endpoint)  # the encoding the counts used, recorded
                continue
            return None
        return form
