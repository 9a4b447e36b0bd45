"""Phoenix span annotations read as scores: the shared part of the ``phoenix-annotations``
importer (:mod:`ctxviewer.importers.formats.phoenix_annotations`, which documents the shape) and
the ``openinference`` importer, which gives each LLM span's trace its annotations. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxviewer.importers.common.containers import load_documents
from ctxviewer.importers.common.scores import score
from ctxviewer.importers.common.values import normalise_id
from ctxviewer.importers.contract import Companions, ImportFailed

NAME = "phoenix-annotations"


def read_annotations(path: Path) -> list[dict[str, Any]]:
    """The span annotations of ``path`` (every page), each with ``span_id`` normalised (hex) and
    ``record`` naming it. Raises :class:`ImportFailed` when the file holds none."""
    out: list[dict[str, Any]] = []
    for record, doc in load_documents(path):
        data = doc.get("data") if isinstance(doc, Mapping) else None
        for i, a in enumerate(data if isinstance(data, list) else []):
            if isinstance(a, Mapping) and "span_id" in a and "name" in a:
                out.append(dict(a, span_id=normalise_id(a.get("span_id"), 8),
                                record=f"{'' if record == 'document' else record + ' '}data[{i}]"))
    if not out:
        raise ImportFailed(f"{path}: no Phoenix span annotations (data[].span_id, name, annotator_kind)")
    return out


def as_score(a: Mapping[str, Any]) -> dict[str, Any]:
    """One annotation in the shared score shape (module docstring)."""
    raw = a.get("result")
    result: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    value = result.get("score") if result.get("score") is not None else result.get("label")
    return score(a.get("name"), value, f"phoenix {a.get('annotator_kind') or 'annotation'}", result.get("explanation"))


def detail(a: Mapping[str, Any]) -> dict[str, Any]:
    """What an annotation holds beyond its score (label, identifier, source, user, metadata, times)."""
    raw = a.get("result")
    result: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    row = {"name": a.get("name"), "label": result.get("label"), "identifier": a.get("identifier"),
           "source": a.get("source"), "user_id": a.get("user_id"), "metadata": a.get("metadata"),
           "created_at": a.get("created_at"), "updated_at": a.get("updated_at")}
    return {k: v for k, v in row.items() if v not in (None, "", {}, [])}


def by_span(companions: Companions | None) -> dict[str, list[dict[str, Any]]]:
    """The annotations of the run's ``phoenix-annotations`` files by span id (file order)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for path in companions.of(NAME) if companions is not None else ():
        key = (NAME, path)
        if key not in companions.cache:  # type: ignore[union-attr]
            try:
                companions.cache[key] = read_annotations(path)  # type: ignore[union-attr]
            except ImportFailed:
                companions.cache[key] = []  # type: ignore[union-attr]
        for a in companions.cache[key]:  # type: ignore[union-attr]
            out.setdefault(a["span_id"], []).append(dict(a, file=path))
    return out
