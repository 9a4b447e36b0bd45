"""The account of every field of a native record (``ctxviewer.trace/1``, also the ``ctxviewer.trace``
attribute of a ctxviewer OTLP export): the keys the model does not know.

The native reader ignores unknown keys (a newer writer's field, a typo: :func:`ctxviewer.model.serialize.trace_from_dict`);
:func:`unknown_keys` names them instead, as dotted paths with list indices written ``N``
(``items.N.score``, ``usage.audio_tokens``, ``colour``), walking the record beside the model's
dataclasses (:class:`~ctxviewer.model.trace.RequestTrace` and the classes of its fields). Free-form
mappings (``attributes``, ``budget``) hold any key and are not walked. No Qt here.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import cache
from typing import Any

from ctxviewer.importers.common.field_account import UNMAPPED_ATTRIBUTE, unmapped_attribute
from ctxviewer.model.trace import RequestTrace

Shape = tuple[frozenset[str], dict[str, tuple[type, bool]]]
"""A dataclass's field names and, for each field holding a dataclass (or a tuple of them), that
class and whether it is a list."""


def _dataclass_in(hint: Any) -> tuple[type, bool] | None:
    """The dataclass a field's type holds (``X | None``, ``tuple[X, ...]``) and whether as a list."""
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return hint, False
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        for a in args:
            found = _dataclass_in(a)
            if found is not None:
                return found
    if origin is tuple and args and dataclasses.is_dataclass(args[0]) and isinstance(args[0], type):
        return args[0], True
    return None


@cache
def _shape(cls: type) -> Shape:
    hints = typing.get_type_hints(cls)
    names = frozenset(f.name for f in dataclasses.fields(cls))
    nested = {n: found for n in names if (found := _dataclass_in(hints[n])) is not None}
    return names, nested


def unknown_keys(record: Mapping[str, Any], cls: type = RequestTrace, prefix: str = "") -> list[str]:
    """The keys of ``record`` (a native record of ``cls``) the model does not know, as dotted
    paths under ``prefix`` (list indices as ``N``), distinct (in no set order: callers sort). The ``format``
    tag of a native line is known. Values are not checked here (the reader does that)."""
    names, nested = _shape(cls)
    out: dict[str, None] = {}
    for key in record.keys() - names:
        if key != "format" or prefix:
            out[f"{prefix}{key}"] = None
    for key, (sub, is_list) in nested.items():
        value = record.get(key)
        if is_list and isinstance(value, list):
            for v in value:
                if isinstance(v, Mapping):
                    out.update(dict.fromkeys(unknown_keys(v, sub, f"{prefix}{key}.N.")))
        elif isinstance(value, Mapping):
            out.update(dict.fromkeys(unknown_keys(value, sub, f"{prefix}{key}.")))
    return list(out)


def with_unknown_keys(trace: RequestTrace, record: Mapping[str, Any], more: Iterable[str] = ()) -> RequestTrace:
    """``trace`` with the keys of its native ``record`` the model does not know (:func:`unknown_keys`)
    and ``more`` added to its ``ctxviewer.unmapped`` (a list the record already carried from the
    trace's first import is kept); ``trace`` itself when there are none."""
    unknown = [*unknown_keys(record), *more]
    if not unknown:
        return trace
    had = trace.attributes.get(UNMAPPED_ATTRIBUTE)
    keys = [*unknown, *(str(k) for k in had)] if isinstance(had, (list, tuple)) else unknown
    return replace(trace, attributes={**trace.attributes, **unmapped_attribute(keys)})
