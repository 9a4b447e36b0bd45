"""OpenInference span attributes -> the parts of an :class:`~ctxviewer.importers.common.llm_call.LLMCall`.

Attribute names from Arize-ai/openinference ``spec/semantic_conventions.md`` and
``spec/llm_spans.md`` (the OpenInference semantic conventions). Lists are flattened into indexed keys
(``llm.input_messages.0.message.contents.1.message_content.text``); before ~2024 they were also
written as nested lists ("logical JSON": ``"llm.input_messages": [{"message.role": ...}]``).
:func:`flatten` turns the nested form into the indexed one, so one reader serves both.

* messages: ``llm.input_messages.N.message.{role, content, name, tool_call_id}``,
  ``.message.contents.M.message_content.{type, text, image.image.url}`` (types ``text``,
  ``image``, ``reasoning`` -- a reasoning ``data`` blob or ``signature`` is never text),
  ``.message.tool_calls.K.tool_call.{id, function.name, function.arguments}``;
  role ``model`` (Gemini) -> ``assistant``;
* tools: ``llm.tools.N.tool.json_schema`` (a JSON string of the provider's tool object);
* usage: ``llm.token_count.{prompt, completion}`` with ``prompt_details.{cache_read, cache_write}``
  and ``completion_details.reasoning`` (prompt includes the cache, completion the reasoning);
* documents: ``retrieval.documents.N.document.{id, content, score, metadata}``; a reranker's
  ``reranker.{input,output}_documents.N.document.*`` (:func:`reranker_documents`).

No Qt here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.llm_call import Document, LLMCall
from ctxviewer.importers.common.part_shapes import data_uri_part
from ctxviewer.importers.common.request_params import NOT_PARAMETERS, request_parameters
from ctxviewer.importers.common.usage_rules import RULE as GEMINI_RULE
from ctxviewer.importers.common.usage_rules import thinking_in_total
from ctxviewer.model.trace import Usage

_IDX = re.compile(r"^(\d+)\.(.+)$")


def flatten(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """``attrs`` with nested lists of dicts (logical JSON) rewritten as indexed flat keys."""
    out: dict[str, Any] = {}

    def put(key: str, value: Any) -> None:
        if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            for i, v in enumerate(value):
                for k2, v2 in v.items():
                    put(f"{key}.{i}.{k2}", v2)
        else:
            out[key] = value

    for k, v in attrs.items():
        put(k, v)
    return out


def group(flat: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """The entries ``{prefix}.{i}.{rest}`` as a list (by ``i``) of ``{rest: value}`` dicts."""
    groups: dict[int, dict[str, Any]] = {}
    p = prefix + "."
    for key, value in flat.items():
        if key.startswith(p):
            m = _IDX.match(key[len(p):])
            if m:
                groups.setdefault(int(m.group(1)), {})[m.group(2)] = value
    return [groups[i] for i in sorted(groups)]


def _content_part(c: Mapping[str, Any]) -> dict[str, Any]:
    t = c.get("message_content.type")
    if t == "image" or "message_content.image.image.url" in c:
        return data_uri_part(str(c.get("message_content.image.image.url") or ""), "image")
    if t == "reasoning":
        part: dict[str, Any] = {"type": "reasoning", "content": c.get("message_content.text") or ""}
        if c.get("message_content.data") or c.get("message_content.encrypted_content"):
            part["redacted"] = True
        return part
    if t in (None, "text") or "message_content.text" in c:
        return {"type": "text", "content": c.get("message_content.text") or ""}
    return {k.split(".", 1)[-1]: v for k, v in c.items()}


def message(m: Mapping[str, Any]) -> gm.Message:
    """One ``message.*`` group as a normalised message."""
    role = m.get("message.role")
    role = "assistant" if role == "model" else (None if role is None else str(role))
    parts: list[dict[str, Any]] = []
    content = m.get("message.content")
    if role == "tool":
        parts.append({"type": "tool_call_response", "id": m.get("message.tool_call_id"),
                      "response": "" if content is None else str(content)})
    elif content not in (None, ""):
        parts.append({"type": "text", "content": str(content)})
    parts.extend(_content_part(c) for c in group(m, "message.contents"))
    for tc in group(m, "message.tool_calls"):
        parts.append({"type": "tool_call", "id": tc.get("tool_call.id"), "name": tc.get("tool_call.function.name"),
                      "arguments": tc.get("tool_call.function.arguments")})
    msg: gm.Message = {"role": role, "parts": parts}
    if m.get("message.name"):
        msg["name"] = m["message.name"]
    return msg


def messages(flat: Mapping[str, Any], prefix: str) -> list[gm.Message] | None:
    """``llm.input_messages`` / ``llm.output_messages`` as normalised messages; ``None`` if absent."""
    groups = group(flat, prefix)
    return [message(m) for m in groups] if groups else None


def tools(flat: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``llm.tools.N.tool.json_schema`` decoded (a value that is not JSON is kept as ``{raw}``)."""
    out = []
    for t in group(flat, "llm.tools"):
        schema = gm.parse_structured(t.get("tool.json_schema"))
        if isinstance(schema, Mapping):
            out.append(dict(schema))
        elif schema is not None:
            out.append({"raw": str(schema)})
        elif t.get("tool.name"):
            out.append({"name": t["tool.name"], "description": t.get("tool.description"),
                        "parameters": gm.parse_structured(t.get("tool.parameters"))})
    return out


def usage(flat: Mapping[str, Any]) -> Usage:
    """``llm.token_count.*`` as normalised usage (prompt includes cache, completion includes reasoning)."""
    return pm.usage_at(flat, "llm.token_count.prompt", "llm.token_count.completion",
                       "llm.token_count.prompt_details.cache_read", "llm.token_count.prompt_details.cache_write",
                       "llm.token_count.completion_details.reasoning")


def documents(flat: Mapping[str, Any], store: str | None) -> list[Document]:
    """``retrieval.documents.N.document.*`` (and, for a reranker, its output documents) as
    documents: id, content, score, metadata (a JSON string, parsed) and the retrieval's query (the
    RETRIEVER span's ``input.value``, a reranker's ``reranker.query``)."""
    groups = group(flat, "retrieval.documents")
    return _documents(flat, groups, store) if groups else reranker_documents(flat, store)[1]


def reranker_documents(flat: Mapping[str, Any], store: str | None) -> tuple[list[Document], list[Document]]:
    """A RERANKER span's ``(input, output)`` documents: ``reranker.input_documents.N.document.*``
    (the candidates it was given) and ``reranker.output_documents.N.document.*`` (what it kept, in
    its new order, with its scores) -- OpenInference ``spec/semantic_conventions.md``, the
    ``reranker.*`` attributes. Either list is ``[]`` when not recorded."""
    return (_documents(flat, group(flat, "reranker.input_documents"), store),
            _documents(flat, group(flat, "reranker.output_documents"), store))


def _documents(flat: Mapping[str, Any], groups: list[dict[str, Any]], store: str | None) -> list[Document]:
    query = pm._str(flat.get("reranker.query") if "reranker.query" in flat else flat.get("input.value"))
    out = []
    for d in groups:
        score = d.get("document.score")
        try:
            score = None if score is None else float(score)
        except (TypeError, ValueError):
            score = None
        meta = gm.parse_structured(d.get("document.metadata"))
        out.append(Document(id=pm._str(d.get("document.id")), content=pm._str(d.get("document.content")),
                            score=score, store=store, metadata=None if meta in ("", {}) else meta, query=query))
    return out


CALL_FACTS = ("llm.model_name", "llm.request.model_name", "llm.response.model_name", "llm.invocation_parameters",
              "llm.input_messages", "llm.output_messages", "llm.prompts", "llm.choices", "llm.token_count.",
              "llm.provider", "llm.system")
"""Attribute names (prefixes) only a model call records: its model, parameters, messages, usage."""


def is_template_step(flat: Mapping[str, Any]) -> bool:
    """True for an ``LLM`` span that renders a prompt and calls no model: it records a prompt
    template (``llm.prompt_template.template`` / ``.variables``) and none of :data:`CALL_FACTS`.
    Haystack's OpenInference instrumentor gives its ``PromptBuilder`` components span kind ``LLM``
    (``_wrappers.py``: ``ComponentType.PROMPT_BUILDER``) with the template attributes and the
    rendered prompt as ``output.value``; the model call is the generator span after it, which
    records its model and messages. A real call that also records its template is no template step."""
    if not any(k.startswith("llm.prompt_template.") for k in flat):
        return False
    return not any(k.startswith(CALL_FACTS) for k in flat)


def io_messages(value: Any) -> list[gm.Message] | None:
    """``input.value`` as messages when it is a JSON request body with ``messages``; else ``None``."""
    data = gm.parse_structured(value)
    if isinstance(data, Mapping) and isinstance(data.get("messages"), list):
        return [gm.normalise_message(m) if isinstance(m, Mapping) and "parts" in m else pm.openai_message(m)
                for m in data["messages"]]
    return None


def io_output(value: Any, mime: Any) -> tuple[list[gm.Message] | None, str | None, str | None]:
    """``output.value`` as (output messages, response id, response model): a ChatCompletion, a bare
    assistant message / ``{text, finish_reason}``, a JSON list of completions (DSPy's ``LM``
    span before the instrumentor wrote ``llm.output_messages``: ``["[[ ## answer ## ]] ..."]``,
    or ``[{"text": ...}]``; one output message per completion), or plain text. Read when the span
    records no ``llm.output_messages`` (OpenInference: ``output.value`` is the operation's output)."""
    data = gm.parse_structured(value)
    if isinstance(data, Mapping):
        if isinstance(data.get("choices"), list):
            outs = [dict(pm.openai_message(c.get("message") or {"role": "assistant", "content": c.get("text")}),
                         finish_reason=c.get("finish_reason"))
                    for c in data["choices"] if isinstance(c, Mapping)]
            return outs or None, pm._str(data.get("id")), pm._str(data.get("model"))
        if isinstance(data.get("output"), list) and data.get("object") == "response":
            out = pm.responses_output(data["output"])
            out["finish_reason"] = data.get("status")
            return [out], pm._str(data.get("id")), pm._str(data.get("model"))
        if "tool_calls" in data or "content" in data:
            return [pm.openai_message(dict(data, role=data.get("role") or "assistant"))], None, None
        if "text" in data:
            return gm.parse_messages(data), None, None
    if isinstance(data, list) and data and all(isinstance(d, str) or (isinstance(d, Mapping) and isinstance(d.get("text"), str))
                                               for d in data):  # DSPy's LM: its completions, one per choice
        return [{"role": "assistant", "parts": [{"type": "text", "content": d if isinstance(d, str) else d["text"]}]}
                for d in data], None, None
    if isinstance(value, str) and value and str(mime or "text/plain").startswith("text/"):
        return [{"role": "assistant", "parts": [{"type": "text", "content": value}]}], None, None
    return None, None, None


READ = tuple(f"llm.{io}_messages.N.message.{k}" for io in ("input", "output")
             for k in ("role", "content", "name", "tool_call_id", "contents.", "tool_calls.")) + (
        "llm.prompts.", "llm.choices.", "llm.tools.",
        "llm.token_count.", "llm.invocation_parameters", "llm.model_name", "llm.request.model_name",
        "llm.response.model_name", "llm.provider", "llm.system", "llm.finish_reason", "input.value",
        "input.mime_type", "output.value", "output.mime_type", "session.id", "user.id", "retrieval.documents.",
        "openinference.span.kind", "metadata", "tag.tags")
"""The OpenInference attributes :func:`call_from_attributes` reads or keeps (``metadata`` and
``tag.tags`` kept as attributes; ``llm.invocation_parameters`` as ``gen_ai.request.*``
(:mod:`~ctxviewer.importers.common.request_params`), the nested ones kept as recorded); what else a span holds is
named by :func:`~ctxviewer.importers.common.field_account.unmapped_attribute_keys`."""


def call_from_attributes(attrs: Mapping[str, Any], trace_id: str, fmt: str = "openinference") -> LLMCall:
    """One LLM span's OpenInference attributes as an :class:`LLMCall` (no container fields)."""
    flat = flatten(attrs)
    params = gm.parse_structured(flat.get("llm.invocation_parameters"))
    params = params if isinstance(params, Mapping) else {}
    call = LLMCall(trace_id=trace_id, source_format=fmt)
    call.model = pm._str(flat.get("llm.request.model_name") or params.get("model") or flat.get("llm.model_name"))
    call.provider = pm._str(flat.get("llm.provider") or flat.get("llm.system"))
    msgs = messages(flat, "llm.input_messages")
    if msgs is None:
        prompts = [p.get("prompt.text") for p in group(flat, "llm.prompts")]
        msgs = [{"role": "user", "parts": [{"type": "text", "content": str(t)}]} for t in prompts if t is not None] or None
    call.messages = msgs if msgs is not None else (io_messages(flat.get("input.value")) or [])
    call.tools = tools(flat)
    out = messages(flat, "llm.output_messages")
    field = "llm.output_messages" if out is not None else "llm.choices"  # named in warnings about the output
    io_out, rid, rmodel = io_output(flat.get("output.value"), flat.get("output.mime_type"))
    if out is None:
        texts = [c.get("completion.text") for c in group(flat, "llm.choices")]
        out = [{"role": "assistant", "parts": [{"type": "text", "content": str(t)}]} for t in texts if t is not None] or None
    if out and io_out and not out[0].get("finish_reason") and io_out[0].get("finish_reason"):
        out[0]["finish_reason"] = io_out[0]["finish_reason"]
    call.output = out if out is not None else io_out
    call.output_field = field if out is not None else "output.value"
    call.response_id = rid
    call.response_model = pm._str(flat.get("llm.response.model_name")) or rmodel or pm._str(flat.get("llm.model_name"))
    call.finish_reason = pm._str(flat.get("llm.finish_reason"))
    call.usage = usage(flat)
    call.max_tokens = pm.int_or_none(params.get("max_tokens", params.get("max_completion_tokens")))
    call.session_id = pm._str(flat.get("session.id"))
    call.user_id = pm._str(flat.get("user.id"))
    normal, read = request_parameters(params, "llm.invocation_parameters")
    call.attributes.update(normal)  # temperature, top_p, stop... as gen_ai.request.*
    rest = {k: v for k, v in params.items() if k not in read and k not in NOT_PARAMETERS}
    if rest:  # nested parameters (response_format, tool_choice objects) kept as recorded
        call.attributes["llm.invocation_parameters"] = rest
    for key in ("metadata", "tag.tags"):  # what the application attached (JSON metadata, tags)
        value = gm.parse_structured(flat.get(key)) if key == "metadata" else flat.get(key)
        if value not in (None, "", {}, []):
            call.attributes[key] = value
    total = pm.int_or_none(flat.get("llm.token_count.total"))
    if total is not None:
        call.attributes["llm.token_count.total"] = total
    thought = thinking_in_total(call.usage, total, call.provider, call.model)
    if thought is not None:
        call.usage = thought
        call.attributes["ctxviewer.usage_rule"] = GEMINI_RULE

    return call
