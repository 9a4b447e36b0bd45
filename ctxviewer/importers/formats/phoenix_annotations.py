"""Phoenix span annotations (``phoenix-annotations``): the response of Phoenix's REST
``GET /v1/projects/{project_identifier}/span_annotations`` (``{"data": [SpanAnnotation...],
"next_cursor"}``; one page per line for JSON Lines), read beside the spans they annotate.

A ``SpanAnnotation`` is ``{id, span_id, name, annotator_kind (LLM | CODE | HUMAN), result: {label,
score, explanation}, metadata, identifier, source (API | APP), user_id, created_at, updated_at}``
(Arize-ai/phoenix ``routers/v1/annotations.py``). Given in one import with the Phoenix spans file
(``/spans`` or ``/spans/otlpv1``, read by ``openinference``), each annotation becomes a score of
the trace of its span (``ctxviewer.scores``: name, value = the score, else the label; source
``phoenix ANNOTATOR_KIND``; comment = the explanation; the label beside a score as
``phoenix.annotations`` with the annotation's other fields). This importer then names the
annotations whose span no LLM span of the import is, in one warning (they are not imported);
alone, a file of annotations imports nothing and says so. No Qt here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ctxviewer.importers.common.containers import head_text
from ctxviewer.importers.common.peek import starts_as_json
from ctxviewer.importers.common.phoenix_annotations import NAME, read_annotations
from ctxviewer.importers.contract import SPECIFIC, Companions, ImportProblem, Record


class PhoenixAnnotationsImporter:
    """The ``phoenix-annotations`` importer (module docstring)."""

    name = NAME
    records_omissions = False
    description = "Phoenix span annotations (REST /v1/projects/{id}/span_annotations JSON), with their spans"

    def sniff(self, path: Path, head: bytes) -> float:
        """:data:`SPECIFIC` for a ``data`` list of objects with ``span_id`` and ``annotator_kind``; else 0."""
        text = head_text(head)
        return SPECIFIC if (starts_as_json(text) and '"data"' in text and '"annotator_kind"' in text
                            and '"span_id"' in text) else 0.0

    def load(self, path: Path, companions: Companions | None = None) -> Iterator[Record]:
        """No traces: the annotations go to the traces of their spans (module docstring). One
        warning naming the annotations whose span was not in the import (``dropped``: they are lost)."""
        file = str(path)
        found = read_annotations(path)
        joined = companions.joined.get(path, set()) if companions is not None else set()
        rest = [a for a in found if a["span_id"] not in joined]
        if len(rest) < len(found):
            hosts = ", ".join(companions.hosts.get(path, [])) if companions is not None else ""
            yield ImportProblem(file, "whole file", f"{len(found) - len(rest)} annotation(s) joined their spans in "
                                f"{hosts}: kept as the scores of those calls", info=True)  # a note: nothing wrong
        if rest:
            spans = sorted({a["span_id"] or "(no span id)" for a in rest})
            yield ImportProblem(file, "whole file", f"{len(rest)} annotation(s) of span(s) no LLM span of this import "
                                f"is ({', '.join(spans)}): not imported; import them with the Phoenix spans file "
                                "(GET /v1/projects/{id}/spans)", dropped=len(rest))


IMPORTER = PhoenixAnnotationsImporter()
"""The ``phoenix-annotations`` importer (listed in ``ctxviewer.importers.registry.BUILTIN``)."""
