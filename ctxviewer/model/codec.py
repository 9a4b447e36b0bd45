"""One JSON form for the core's dataclasses: cattrs, configured strict, plus a short pass for the
domain rules. The native trace record (:mod:`ctxviewer.model.serialize`) and every ``--json`` output use it.

* :func:`to_builtins` turns any model or finding dataclass (a :class:`~ctxviewer.model.trace.RequestTrace`,
  a :class:`~ctxviewer.model.findings.Finding`, ...) into JSON-ready builtins: every field, in field
  order; enums as their values; datetimes as ISO 8601 UTC with ``Z`` (:func:`format_created`, the
  one time format of every surface: native lines, ``show --json``, ``list --json``); frozendicts
  and tuples as dicts and lists; ``None`` kept (= not recorded).
* :func:`from_builtins` is the inverse for a named class, strict about types (no ``"8"`` for 8, no
  ``true`` for 1), raising :class:`TraceFormatError` that names the JSON path of the first bad
  field (``items[3].status: 'kept' is not one of retained, omitted``); cattrs' detailed validation
  supplies the path.

Domain rules applied on reading, beyond types (the rest of the module is cattrs configuration):
``trace_id`` and item ``id`` are non-empty strings; item ids are unique within a trace; token
counts (every integer field) are not negative; a missing item ``trust`` is ``trusted`` for the
policy item and ``untrusted`` otherwise; a missing ``status`` is ``retained``; a missing or null
nested object (``endpoint``, ``usage``, ...) is the empty object, and an empty optional one
(``source``, ``tokens_provenance``, ``response``) is ``None``; a missing check name is ``""``.
Unknown keys are ignored (newer writers may add fields).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from cattrs import Converter
from cattrs.cols import homogenous_tuple_structure_factory, is_sequence
from cattrs.errors import ClassValidationError, IterableValidationError
from cattrs.gen import make_dict_structure_fn, mapping_structure_factory, override
from frozendict import frozendict

from ctxviewer.model.times import InvalidValue as _Invalid
from ctxviewer.model.times import TraceFormatError, format_created, parse_created
from ctxviewer.model.times import datetime_or_none as _datetime
from ctxviewer.model.trace import ContextItem, RequestTrace, ToolCall, ToolCheck, ValidationResult

__all__ = ["TraceFormatError", "format_created", "from_builtins", "make_converter", "parse_created", "to_builtins"]

UnstructureFactory = Callable[[Converter, type], Callable[[Any], Any]]

T = TypeVar("T")


# ---------------------------------------------------------------- times (ctxviewer.model.times)


# ---------------------------------------------------------------- strict scalars


def _required(value: Any) -> None:
    if value is None:
        raise _Invalid("is required")


def _str(value: Any, type_: Any = None) -> str:
    if type_ is not str and _is_enum(type_):
        return _enum_hook(type_)(value, type_)  # type: ignore[return-value]
    _required(value)
    if not isinstance(value, str):
        raise _Invalid(f"expected str, got {type(value).__name__}")
    return value


def _int(value: Any, type_: Any = None) -> int:
    """Integers are token counts, positions and turns: never booleans, never negative."""
    if type_ is not int and _is_enum(type_):
        return _enum_hook(type_)(value, type_)  # type: ignore[return-value]
    _required(value)
    if isinstance(value, bool):
        raise _Invalid("expected an integer, got a boolean")
    if not isinstance(value, int):
        raise _Invalid(f"expected int, got {type(value).__name__}")
    if value < 0:
        raise _Invalid(f"token counts cannot be negative ({value})")
    return value


def _float(value: Any, _: Any = None) -> float:
    _required(value)
    if isinstance(value, bool):
        raise _Invalid("expected a number, got a boolean")
    if not isinstance(value, (int, float)):
        raise _Invalid(f"expected int/float, got {type(value).__name__}")
    return value  # an int stays an int (10 == 10.0; the round trip is exact)


def _bool(value: Any, _: Any = None) -> bool:
    _required(value)
    if not isinstance(value, bool):
        raise _Invalid(f"expected bool, got {type(value).__name__}")
    return value


def _is_enum(type_: Any) -> bool:
    return isinstance(type_, type) and issubclass(type_, enum.Enum)


@functools.cache
def _enum_hook(cls: type[enum.Enum]) -> Callable[[Any, Any], enum.Enum]:
    """The structure hook of enum ``cls``, made once per class (a (str, Enum) field reaches it
    through the str hook for every value read; for import speed)."""
    by_value = {m.value: m for m in cls}

    def structure(value: Any, _: Any) -> enum.Enum:
        try:
            return by_value[value]
        except (KeyError, TypeError):  # TypeError: an unhashable value (a list, an object)
            pass
        _required(value)
        try:
            return cls(value)
        except ValueError:
            allowed = ", ".join(str(m.value) for m in cls)
            raise _Invalid(f"{value!r} is not one of {allowed}") from None

    return structure


def _nonempty(message: str) -> Callable[[Any, Any], str]:
    def structure(value: Any, _: Any) -> str:
        if value is not None and value != "" and not isinstance(value, str):  # there, but not text
            raise _Invalid(f"must be a non-empty string, not {type(value).__name__} {value!r}")
        if not isinstance(value, str) or not value:
            raise _Invalid(message)
        return value

    return structure


def _check_name(value: Any, _: Any) -> str:
    return "" if value is None else _str(value)


def _passed(value: Any, _: Any) -> bool:
    if not isinstance(value, bool):
        raise _Invalid("is required (true or false)")
    return value


FIELD_RULES: dict[tuple[type, str], Callable[[Any, Any], Any]] = {
    (RequestTrace, "trace_id"): _nonempty("is required (a non-empty string)"),
    (ContextItem, "id"): _nonempty("is required (a non-empty string)"),
    (ToolCall, "name"): _nonempty("is required"),
    (ToolCheck, "check"): _check_name,
    (ValidationResult, "check"): _check_name,
    (ValidationResult, "passed"): _passed,
}
"""Per-field rules that differ from the field's type (required words, defaults for names)."""


# ---------------------------------------------------------------- containers and dataclasses


def _list_of(factory_hook: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def structure(value: Any, type_: Any) -> Any:
        if not isinstance(value, list):
            raise _Invalid("expected a list")
        return factory_hook(value, type_)

    return structure


def _object_of(factory_hook: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def structure(value: Any, type_: Any) -> Any:
        if not isinstance(value, Mapping):
            raise _Invalid(f"expected an object, got {type(value).__name__}")
        return factory_hook(value, type_)

    return structure


def _is_optional(tp: Any) -> bool:
    """``X | None`` (``Optional[X]``) for a single ``X``."""
    args = typing.get_args(tp)
    return (typing.get_origin(tp) in (typing.Union, types.UnionType) and len(args) == 2
            and type(None) in args)


def _optional_of(conv: Converter, tp: Any) -> Callable[[Any, Any], Any]:
    """``X | None``: ``None``, or the value structured as ``X`` by ``X``'s hook, found once here
    (cattrs' own optional hook looks it up for every value; for import speed)."""
    a, b = typing.get_args(tp)
    other = a if b is type(None) else b
    inner = conv.get_structure_hook(other)

    def structure(value: Any, _: Any) -> Any:
        return None if value is None else inner(value, other)

    return structure


def _origin(tp: Any) -> Any:
    return typing.get_origin(tp)


def _optional_dataclass(tp: Any) -> bool:
    args = typing.get_args(tp)
    return type(None) in args and any(dataclasses.is_dataclass(a) for a in args)


def _prepare_item(data: dict[str, Any]) -> None:
    """Default trust by kind: the policy item is trusted, everything else untrusted."""
    if data.get("trust") is None:
        data["trust"] = "trusted" if data.get("kind") == "policy" else "untrusted"


PREPARE: dict[type, Callable[[dict[str, Any]], None]] = {ContextItem: _prepare_item}


def _dataclass_hook(conv: Converter, cls: type) -> Callable[[Any, Any], Any]:
    """Structure ``cls`` from a JSON object: missing or null nested objects are empty, empty
    optional objects are ``None``, null means the field's default, unknown keys are ignored."""
    fields = dataclasses.fields(cls)
    hints = typing.get_type_hints(cls)
    without_default = [f.name for f in fields if f.default is dataclasses.MISSING
                       and f.default_factory is dataclasses.MISSING]
    with_default = {f.name for f in fields} - set(without_default)
    optional_objects = {f.name for f in fields if _optional_dataclass(hints[f.name])}
    overrides = {name: override(struct_hook=hook) for (owner, name), hook in FIELD_RULES.items() if owner is cls}
    base: Callable[[Any, Any], Any] = make_dict_structure_fn(cls, conv, **overrides)  # type: ignore[arg-type]
    prepare = PREPARE.get(cls)

    def structure(value: Any, _: Any) -> Any:
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            raise _Invalid(f"expected an object, got {type(value).__name__}")
        data = dict(value)
        if prepare is not None:
            prepare(data)
        for name in optional_objects:
            if data.get(name) == {}:
                data[name] = None
        for name in with_default:
            if name in data and data[name] is None:
                del data[name]
        for name in without_default:
            data.setdefault(name, None)
        return base(data, cls)

    return structure


def _builtins(value: Any) -> Any:
    """Unstructure hook for values typed ``Any`` (trace attributes): frozendict -> dict, tuple -> list."""
    if isinstance(value, Mapping):
        return {k: _builtins(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_builtins(v) for v in value]
    return value


def make_converter(dataclass_unstructure: UnstructureFactory | None = None) -> Converter:
    """A converter with this module's rules; ``dataclass_unstructure(conv, cls)``, if given, makes
    the unstructure hook of every dataclass (:mod:`ctxviewer.model.serialize` writes compact records)."""
    conv = Converter(detailed_validation=True, forbid_extra_keys=False)
    # Class hooks (cattrs' own primitive hooks are class hooks too); a (str, Enum) subclass reaches
    # the str hook, which hands it to the enum rule.
    for scalar, hook in ((str, _str), (int, _int), (float, _float), (bool, _bool), (datetime, _datetime)):
        conv.register_structure_hook(scalar, hook)
    conv.register_structure_hook_func(lambda t: t is Any, lambda v, _: v)
    conv.register_structure_hook_factory(_is_optional, lambda t: _optional_of(conv, t))
    conv.register_structure_hook_factory(_is_enum, _enum_hook)
    conv.register_structure_hook_factory(
        lambda t: _origin(t) is tuple, lambda t: _list_of(homogenous_tuple_structure_factory(t, conv)))
    conv.register_structure_hook_factory(
        lambda t: _origin(t) in (Mapping, dict), lambda t: _object_of(mapping_structure_factory(t, conv)))
    conv.register_structure_hook_factory(dataclasses.is_dataclass, lambda t: _dataclass_hook(conv, t))

    conv.register_unstructure_hook(datetime, format_created)
    conv.register_unstructure_hook(frozendict, _builtins)
    conv.register_unstructure_hook_factory(
        is_sequence, lambda t: lambda v: [conv.unstructure(x) for x in v])
    conv.register_unstructure_hook_func(lambda t: t is tuple, lambda v: [conv.unstructure(x) for x in v])
    if dataclass_unstructure is not None:
        conv.register_unstructure_hook_factory(dataclasses.is_dataclass, lambda t: dataclass_unstructure(conv, t))
    return conv


CONVERTER = make_converter()
"""The converter behind :func:`to_builtins` / :func:`from_builtins` (cattrs, detailed validation)."""


# ---------------------------------------------------------------- errors


def _first_error(exc: BaseException, path: str = "") -> tuple[str, BaseException]:
    """The path and leaf exception of the first error in cattrs' exception groups."""
    if isinstance(exc, (ClassValidationError, IterableValidationError)):
        with_notes, without = exc.group_exceptions()
        if with_notes:
            sub, note = with_notes[0]
            name = getattr(note, "name", None)
            if name is not None:
                return _first_error(sub, f"{path}.{name}".lstrip("."))
            index = note.index
            return _first_error(sub, f"{path}[{index}]" if isinstance(index, int) else f"{path}.{index}".lstrip("."))
        if without:
            return _first_error(without[0], path)
    return path, exc


def _message(exc: BaseException) -> str:
    if isinstance(exc, _Invalid):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


# ---------------------------------------------------------------- the public conversions


def to_builtins(obj: Any) -> Any:
    """``obj`` (any model or finding dataclass, or a list/tuple of them) as JSON-ready builtins.

    Every field in field order; enums as values; datetimes ISO 8601 UTC ``...Z``
    (:func:`format_created`); frozendicts/tuples as dicts/lists; ``None`` kept. ``json.dumps``
    takes the result as is.
    """
    return CONVERTER.unstructure(obj)


def from_builtins(cls: type[T], data: Any) -> T:
    """``data`` (JSON builtins) as an instance of ``cls``, with the rules in the module docstring.

    Raises :class:`TraceFormatError` naming the JSON path of the first bad field.
    """
    try:
        obj = CONVERTER.structure(data, cls)
    except Exception as exc:  # cattrs' exception groups, or a rule's _Invalid at the root
        path, leaf = _first_error(exc)
        raise TraceFormatError(path, _message(leaf)) from None
    rule = DOMAIN_RULES.get(cls)
    if rule is not None:
        rule(obj)
    return obj


def _unique_item_ids(trace: Any) -> None:
    seen: set[str] = set()
    for n, it in enumerate(trace.items):
        if it.id in seen:
            raise TraceFormatError(f"items[{n}].id", f"duplicate item id {it.id!r}")
        seen.add(it.id)


DOMAIN_RULES: dict[type, Callable[[Any], None]] = {RequestTrace: _unique_item_ids}
"""Rules over a whole structured object (after every field is valid)."""
