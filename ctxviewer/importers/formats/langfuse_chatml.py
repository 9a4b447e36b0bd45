"""Langfuse's normalised ChatML per observation (``worker/src/__tests__/chatml/...chatml.json``:
``{observation id: {input: {success, data: [messages]}, output: {success, data: [messages]}}}``)
-> one :class:`~ctxviewer.model.trace.RequestTrace` per observation.

Langfuse writes these as the expected result of its ChatML normaliser; the messages are OpenAI
ChatML (``{role, content, tool_calls[{id, name, arguments, type}], tool_call_id}``). The first
assistant output message is the response; ``tool`` messages in the output are the tool results
the framework appended and are kept as attributes (``langfuse.output_tool_results``). There is no
model, usage or time in this format: all "not recorded". Keys not read are named in
``ctxviewer.unmapped`` (:func:`entry_unmapped`). No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.containers import read_text, sniff_document
from ctxviewer.importers.common.field_account import mapped, unmapped_attribute, unmapped_keys
from ctxviewer.importers.common.llm_call import LLMCall, build_trace
from ctxviewer.importers.common.peek import cut_short
from ctxviewer.importers.contract import SPECIFIC, ImportFailed, ImportProblem, Record

ENTRY_READ = mapped("input.success", "input.data", "output.success", "output.data")
"""The keys of one observation entry read."""

MESSAGE_READ = mapped("role", "content", "tool_calls", "tool_call_id", "name", "refusal", "function_call")
"""The keys of one ChatML message read (:func:`~ctxviewer.importers.common.provider_messages.openai_message`)."""


def entry_unmapped(entry: Mapping[str, Any]) -> list[str]:
    """The keys of one observation entry not read: ``input.KEY`` / ``output.KEY`` beside
    ``success`` and ``data``, ``input.data.N.KEY`` for message keys, and any other entry key."""
    out = unmapped_keys(entry, ENTRY_READ)
    for side in ("input", "output"):
        data = entry.get(side, {}).get("data") if isinstance(entry.get(side), Mapping) else None
        for m in data if isinstance(data, list) else []:
            if isinstance(m, Mapping):
                out += unmapped_keys(m, MESSAGE_READ, f"{side}.data.N.")
    return out


def _is_chatml(doc: Any) -> bool:
    return isinstance(doc, Mapping) and bool(doc) and all(
        isinstance(v, Mapping) and isinstance(v.get("input"), Mapping) and "success" in v["input"] for v in doc.values())


class LangfuseChatMLImporter:
    """The ``langfuse-chatml`` importer (see module docstring)."""

    name = "langfuse-chatml"
    records_omissions = False
    description = "Langfuse normalised ChatML per observation (expected-chatml test oracles)"

    def sniff(self, path: Path, head: bytes) -> float:
        """:data:`~ctxviewer.importers.contract.SPECIFIC` for an object of ``{input: {success, data}}`` entries; else 0."""
        return SPECIFIC if _is_chatml(sniff_document(head)) else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        """One trace per observation entry, in file order."""
        file = str(path)
        try:
            doc = json.loads(read_text(path))
        except ValueError as exc:
            raise ImportFailed(f"{path}: not JSON: {exc}{cut_short(exc)}") from None
        if not _is_chatml(doc):
            raise ImportFailed(f"{path}: not Langfuse ChatML ({{id: {{input: {{success, data}}}}}})")
        for oid, entry in doc.items():
            inp, out = entry.get("input") or {}, entry.get("output") or {}
            if not inp.get("success"):
                yield ImportProblem(file, oid, "input not normalised by Langfuse (success false)")
                continue
            outs = [pm.openai_message(m) for m in out.get("data") or [] if isinstance(m, Mapping)]
            call = LLMCall(trace_id=oid, source_format=self.name,
                           messages=[pm.openai_message(m) for m in inp.get("data") or []],
                           output=[m for m in outs if m.get("role") == "assistant"][:1] or None)
            call.attributes.update(unmapped_attribute(entry_unmapped(entry)))
            results = [m for m in outs if m.get("role") == "tool"]
            if results:
                call.attributes["langfuse.output_tool_results"] = len(results)
            trace, warnings = build_trace(call)
            yield trace
            for w in warnings:
                yield ImportProblem(file, oid, w)


IMPORTER = LangfuseChatMLImporter()
