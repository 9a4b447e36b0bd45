"""Table 3.1 row 4, "valid JSON with unsupported values" (first evidence "Evidence and
application-rule checks").

When the response text is JSON (optionally inside a Markdown code fence):

* ``output.cited_id_not_retained`` (failure) -- an identifier in a citation field (a key naming
  ``cite``, ``source``, ``reference``, ``evidence`` or ``doc``) is not a retained evidence item
  (by item id or source document id). The message says whether it was omitted or is unknown.
* ``output.value_unsupported`` (warning) -- a claimed value in the other fields does not occur in
  the cited retained text (nor in the user's own request): numbers (``60``, ``179.95``) and
  capitalised multi-word names (``Trail Promise``) are the claims checked, case-insensitively for
  names. Checked only when the output cites something that was retained.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Iterator

from ctxviewer.assess.checks._common import answer_text, document_ids, table_finding
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import Kind, RequestTrace, Status

_CITE_KEY = re.compile(r"cit|source|reference|evidence|doc", re.IGNORECASE)
_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n```\s*$", re.DOTALL)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w])")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b")


def parse_output(text: str) -> Any | None:
    """The JSON object or array in ``text`` (bare or in a code fence); ``None`` if it is not JSON."""
    m = _FENCE.match(text)
    body = m.group(1) if m else text
    if body.lstrip()[:1] not in ("{", "["):
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for n, v in enumerate(value):
            yield from _leaves(v, f"{path}[{n}]")
    else:
        yield path, value


def _is_cite_path(path: str) -> bool:
    last = re.sub(r"\[\d+\]", "", path).split(".")[-1]
    return _CITE_KEY.search(last) is not None


def claims(value: str) -> list[str]:
    """The checkable claims in a string value: its numbers and capitalised multi-word names."""
    return _NUMBER.findall(value) + _NAME.findall(value)


class JsonOutputCheck:
    """Table 3.1 row 4 (see the module docstring)."""

    id = "output"
    title = "valid JSON with unsupported values (Table 3.1 row 4)"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The ``output.*`` findings for ``trace``."""
        text = answer_text(trace)
        data = parse_output(text) if text else None
        if data is None:
            return
        evidence = [i for i in trace.items if i.kind is Kind.EVIDENCE]
        by_id = {x: i for i in evidence for x in document_ids(i)}
        leaves = list(_leaves(data, ""))
        cited = [(p, v) for p, v in leaves if isinstance(v, str) and _is_cite_path(p)]
        supported: list[str] = []
        for path, ident in cited:
            item = by_id.get(ident)
            if item is not None and item.status is Status.RETAINED:
                supported.append(item.id)
                continue
            why = (f"omitted ({item.omission_reason or 'reason not recorded'})" if item is not None
                   else "not in the trace at all")
            yield table_finding(
                "output.cited_id_not_retained", Severity.FAILURE,
                f"output cites {ident} ({path}), which is not in the retained evidence: {why}",
                Evidence(item_ids=(item.id,) if item else (), fields=("response.text", path)), 4,
            )
        if not supported:
            return
        items = [trace.item(i) for i in dict.fromkeys(supported)]
        haystack = " ".join([*(i.content or "" for i in items), trace.user_request or ""]).lower()
        numbers = set(_NUMBER.findall(haystack))
        for path, value in leaves:
            if not isinstance(value, str) or _is_cite_path(path):
                continue
            missing = [c for c in claims(value)
                       if (c not in numbers if c[0].isdigit() else c.lower() not in haystack)]
            if missing:
                yield table_finding(
                    "output.value_unsupported", Severity.WARNING,
                    f"{path} claims {', '.join(repr(c) for c in dict.fromkeys(missing))}, which the cited "
                    f"text ({', '.join(i.id for i in items)}) does not contain",
                    Evidence(item_ids=tuple(i.id for i in items), positions=tuple(i.position for i in items if i.position),
                             fields=("response.text", path)), 4,
                )


CHECK = JsonOutputCheck()
"""The check this module adds to the registry (listed in :data:`ctxviewer.assess.checks.BUILTIN`)."""
