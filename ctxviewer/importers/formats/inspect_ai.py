"""Inspect AI eval logs (``.json`` EvalLog and ``.eval`` zip) -> one
:class:`~ctxviewer.model.trace.RequestTrace` per model call.

Format (UKGovernmentBEIS/inspect_ai ``log/_log.py`` ``EvalLog``/``EvalSample``,
``event/_model.py`` ``ModelEvent``, ``model/_chat_message.py``, ``model/_model_output.py``
``ModelUsage``):

* ``.json`` -- one EvalLog ``{version, eval, samples[...]}``; ``.eval`` -- a zip with
  ``header.json`` and ``samples/{id}_epoch_{n}.json``. Zip members may be zstd-compressed
  (method 93), which :mod:`zipfile` reads only from Python 3.14: those are decompressed with the
  ``zstandard`` package.
* Each ``model`` event of a sample is one call: ``input`` (the messages sent; newer logs may give
  ``input_refs`` -- indices or ``[start, end)`` ranges into the sample's ``messages`` -- instead),
  ``tools[{name, description, parameters}]``, ``output{model, choices[{message, stop_reason}],
  usage}``, ``timestamp`` / ``completed``, ``error``. A sample without model events is one call
  from ``messages`` and ``output``.
* ``attachment://<hash>`` strings are resolved through the sample's ``attachments``.
* Messages: ``{role, content: str | [text | image | reasoning | ...], tool_calls[{id, function,
  arguments: object}], tool_call_id}``; an ``image`` becomes a typed part (never text), reasoning
  stays reasoning (a redacted blob is not text); a tool message whose ``error`` is set is the error
  text Inspect sends in place of its content (:func:`tool_error_text`), marked ``is_error``.
* Usage (``ModelUsage``): ``input_tokens_cache_read`` / ``_cache_write``, ``reasoning_tokens``.
  Inspect's ``input_tokens`` excludes the cache (``total_tokens`` = input + output + cache), so the
  normalised input is the sum, unless ``total_tokens`` shows an older log whose input held it
  (:func:`usage`; the rule applied is ``ctxviewer.usage_rule``).
* Condensed logs (Inspect >= 0.3.206): ``input: []`` + ``input_refs`` ranges into the sample's
  message pool (``message_pool`` / ``events_data.messages``).
* Scores (``sample.scores``) -> ``ctxviewer.scores`` of the sample's last model call that is not a
  model-graded scorer's own (``ModelEvent.role`` ``grader``): the one that gave the answer the scorer
  graded, so a filter on scores finds one call per sample. ``target`` ->
  ``inspect.target``, ``config`` -> ``gen_ai.request.*``, scalar sample metadata ->
  ``inspect.metadata.*``; task, task id and run id kept; the event and sample keys not mapped are
  named in ``ctxviewer.unmapped``.
* Tool verdicts: a proposed call takes the verdict its ``tool`` event shows (an approver's
  rejection blocked it, an event that ran permitted it: :mod:`.inspect_verdicts`).

Model ``"provider/model"`` splits into provider and model. Trace id =
``"{eval_id}/{sample id}/{epoch}/{n}"``. No Qt here.
"""

from __future__ import annotations

import json
import struct
import zipfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.importers.common import messages as gm
from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.containers import ZIP_MAGIC, head_text, read_text
from ctxviewer.importers.common.field_account import mapped, unmapped_attribute, unmapped_keys
from ctxviewer.importers.common.llm_call import LLMCall, build_trace
from ctxviewer.importers.common.part_shapes import data_uri_part
from ctxviewer.importers.common.peek import cut_short
from ctxviewer.importers.common.request_params import request_parameters
from ctxviewer.importers.common.scores import score, scores_attribute
from ctxviewer.importers.common.tool_outcome import with_run_verdicts
from ctxviewer.importers.common.values import parse_time
from ctxviewer.importers.contract import SPECIFIC, ImportFailed, ImportProblem, Record, RunRecord
from ctxviewer.importers.formats.inspect_runs import run_spans_of
from ctxviewer.importers.formats.inspect_verdicts import sample_runs
from ctxviewer.model.run import RunSpan
from ctxviewer.model.trace import Usage

ZSTD_METHOD = 93


def read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    """A zip member's bytes; zstd members (method 93) via ``zstandard``. Raises ``ValueError``."""
    if info.compress_type != ZSTD_METHOD:
        return zf.read(info)
    import zstandard

    with open(path, "rb") as fh:
        fh.seek(info.header_offset)
        header = fh.read(30)
        if header[:4] != ZIP_MAGIC:
            raise ValueError(f"{info.filename}: bad local header")
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        fh.seek(info.header_offset + 30 + name_len + extra_len)
        data = fh.read(info.compress_size)
    return zstandard.ZstdDecompressor().decompress(data, max_output_size=max(info.file_size, 1))


def _read_eval(path: Path) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    try:
        with zipfile.ZipFile(path) as zf:
            infos = {i.filename: i for i in zf.infolist()}
            header = json.loads(read_member(zf, infos["header.json"], path)) if "header.json" in infos else {}
            samples = []
            for name in sorted(n for n in infos if n.startswith("samples/") and n.endswith(".json")):
                try:
                    samples.append((name, json.loads(read_member(zf, infos[name], path))))
                except (ValueError, zipfile.BadZipFile) as exc:
                    samples.append((name, ValueError(str(exc))))
    except (OSError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ImportFailed(f"{path}: cannot read .eval zip: {exc}") from None
    return header, samples


def resolve(value: Any, attachments: Mapping[str, str]) -> Any:
    """``value`` with every ``attachment://<hash>`` string replaced by its attachment text."""
    if isinstance(value, str):
        if value.startswith("attachment://"):
            return attachments.get(value[len("attachment://"):], value)
        return value
    if isinstance(value, list):
        return [resolve(v, attachments) for v in value]
    if isinstance(value, Mapping):
        return {k: resolve(v, attachments) for k, v in value.items()}
    return value


def _part(c: Any) -> dict[str, Any]:
    if not isinstance(c, Mapping):
        return {"type": "text", "content": "" if c is None else str(c)}
    t = c.get("type")
    if t == "text":
        return {"type": "text", "content": c.get("text") or ""}
    if t == "image":
        return data_uri_part(str(c.get("image") or ""), "image")
    if t == "reasoning":
        return {"type": "reasoning", "content": "" if c.get("redacted") else (c.get("reasoning") or ""),
                **({"redacted": True} if c.get("redacted") else {})}
    if t in ("audio", "video", "document"):
        return data_uri_part(str(c.get(t) or c.get("document") or ""), t)
    return dict(c)


def tool_error_text(error: Any, provider: str | None) -> str | None:
    """What Inspect sends the model for a ``ChatMessageTool`` whose ``error`` (``ToolCallError``
    ``{type, message}``) is set, in place of its content: ``error.message`` as an ``is_error``
    ``tool_result`` for Anthropic (inspect_ai ``model/_providers/anthropic.py``), else
    ``"Error: " + error.message`` (the OpenAI-compatible providers, ``_openai.py``); ``None`` when
    there is no error. The message is untrusted text from the trace, kept as plain text."""
    if not isinstance(error, Mapping):
        return None
    text = pm._str(error.get("message")) or pm._str(error.get("type")) or "error"
    return text if provider == "anthropic" else f"Error: {text}"


def message(m: Any, provider: str | None = None) -> gm.Message:
    """One Inspect ``ChatMessage`` as a normalised message (``provider``, the model's provider
    prefix, decides how a tool error reads: :func:`tool_error_text`)."""
    if not isinstance(m, Mapping):
        return gm.normalise_message(m)
    role = pm._str(m.get("role"))
    content = m.get("content")
    parts: list[dict[str, Any]] = []
    if role == "tool":
        text = content if isinstance(content, str) else gm.message_text({"parts": [_part(c) for c in content or []]})
        error = tool_error_text(m.get("error"), provider)
        part = {"type": "tool_call_response", "id": m.get("tool_call_id"), "response": text if error is None else error}
        if error is not None:
            part["is_error"] = True
        parts.append(part)
    elif isinstance(content, list):
        parts.extend(_part(c) for c in content)
    elif content not in (None, ""):
        parts.append({"type": "text", "content": str(content)})
    for tc in m.get("tool_calls") or []:
        if isinstance(tc, Mapping):
            parts.append({"type": "tool_call", "id": tc.get("id"), "name": tc.get("function"),
                          "arguments": tc.get("arguments")})
    return {"role": role, "parts": parts}


def usage(u: Any, provider: str | None) -> tuple[Usage, str | None]:
    """Inspect ``ModelUsage`` normalised to the OTel rule (input includes the cache), and the
    rule applied (``None`` when there was no cache to add).

    Inspect's ``input_tokens`` excludes cache reads and writes (its providers subtract them; the
    sum ``input + output + cache_read + cache_write`` is its ``total_tokens``), so the normalised
    input adds them back. Where ``total_tokens`` says otherwise (``total = input + output``: an
    older log whose input already held the cache), the input is kept."""
    if not isinstance(u, Mapping):
        return Usage(), None
    raw_in = pm.int_or_none(u.get("input_tokens"))
    out = pm.int_or_none(u.get("output_tokens"))
    read, write = pm.int_or_none(u.get("input_tokens_cache_read")), pm.int_or_none(u.get("input_tokens_cache_write"))
    total = pm.int_or_none(u.get("total_tokens"))
    cache = (read or 0) + (write or 0)
    rule = None
    if raw_in is not None and cache:
        if total is not None and total == raw_in + (out or 0) and provider != "anthropic":
            rule = "input includes the cache (total = input + output); kept"
        else:
            raw_in += cache
            rule = "input excludes the cache (Inspect ModelUsage); cache reads and writes added"
    return Usage(input_tokens=raw_in, output_tokens=out, cached_input_tokens=read,
                 cache_creation_input_tokens=write, reasoning_tokens=pm.int_or_none(u.get("reasoning_tokens"))), rule


def sample_scores(sample: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A sample's ``scores`` (``{scorer: Score{value, answer, explanation, metadata}}``) in the
    shared shape (source ``inspect scorer``; comment the explanation, and the answer the scorer
    read as ``answer: ...``)."""
    out = []
    scores = sample.get("scores")
    for name, sc in (scores.items() if isinstance(scores, Mapping) else []):
        if isinstance(sc, Mapping):
            notes = [str(sc["explanation"]).strip()] if sc.get("explanation") not in (None, "") else []
            if sc.get("answer") not in (None, "") and str(sc["answer"]).strip().lower() != \
                    str(sc.get("explanation") or "").strip().lower():
                notes.append(f"answer: {sc['answer']}")
            out.append(score(name, sc.get("value"), "inspect scorer", "; ".join(notes) or None))
        else:
            out.append(score(name, sc, "inspect scorer"))
    return out


EVENT_MAPPED = mapped("event", "model", "input", "input_refs", "tools", "config", "output.model", "output.choices",
                      "output.usage", "output.completion", "output.time", "call.response.id", "call.request",
                      "call.time", "timestamp",
                      "completed", "error", "span_id", "working_start", "working_time", "uuid", "pending",
                      "tool_choice")
"""The ``ModelEvent`` keys a call maps (``config`` parameters kept as ``gen_ai.request.*``; the
provider request as sent, ``call.request``, as the trace's serialized request; ``call.time`` as
``inspect.call_time`` seconds); the rest are named in ``ctxviewer.unmapped`` as ``event.KEY``
(the provider's raw response, ``call.response``, as the one key ``event.call.response``)."""

SAMPLE_MAPPED = frozenset({"id", "epoch", "uuid", "input", "messages", "output", "events", "attachments", "scores",
                           "target", "metadata", "message_pool", "events_data", "model_usage", "total_time",
                           "working_time", "error_retries", "error", "started_at", "completed_at"})
"""Sample keys mapped or kept on every call of the sample (``error``, ``started_at`` /
``completed_at`` on the sample's run step); others are named as ``sample.KEY``."""


def _inputs(event: Mapping[str, Any], sample: Mapping[str, Any]) -> list[Any]:
    """The messages a model event sent: its ``input``, or -- condensed logs (Inspect >= 0.3.206
    write ``input: []`` and ``input_refs``, ``[start, end)`` ranges) -- the ranges of the
    sample's message pool (``message_pool``, or ``events_data.messages``)."""
    given = event.get("input")
    if isinstance(given, list) and (given or not event.get("input_refs")):
        return given
    found = sample.get("events_data")
    data: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    pool = sample.get("message_pool") or data.get("messages") or sample.get("messages") or []
    out: list[Any] = []
    for ref in event.get("input_refs") or []:
        if isinstance(ref, int) and 0 <= ref < len(pool):
            out.append(pool[ref])
        elif isinstance(ref, list) and len(ref) == 2:
            out.extend(pool[int(ref[0]):int(ref[1])])
    return out


def calls_of(sample: Mapping[str, Any], eval_spec: Mapping[str, Any]) -> Iterator[LLMCall]:
    """The model calls of one sample (see module docstring)."""
    att = sample.get("attachments") or {}
    base = _run_id(sample, eval_spec)
    events = [e for e in sample.get("events") or [] if isinstance(e, Mapping) and e.get("event") == "model"]
    if not events:
        events = [{"model": eval_spec.get("model"), "input": sample.get("messages") or [], "output": sample.get("output")}]
    answered = max((n for n, e in enumerate(events) if e.get("role") != "grader"), default=len(events) - 1)
    for n, ev in enumerate(events):
        ev = resolve(ev, att)
        provider, _, model = str(ev.get("model") or eval_spec.get("model") or "").partition("/")
        out = ev.get("output") or {}
        call = LLMCall(trace_id=f"{base}/{n}", source_format="inspect_ai", provider=provider or None,
                       model=model or provider or None,
                       messages=[message(m, provider or None) for m in resolve(_inputs(ev, sample), att)],
                       tools=[dict(t) for t in ev.get("tools") or [] if isinstance(t, Mapping)],
                       response_model=pm._str(out.get("model")), session_id=pm._str(sample.get("uuid")))
        choices = [c for c in out.get("choices") or [] if isinstance(c, Mapping)]
        call.output = [dict(message(c.get("message") or {}), finish_reason=c.get("stop_reason")) for c in choices] or None
        call.output_field = "output.choices"
        call.usage, rule = usage(out.get("usage"), provider)
        if rule:
            call.attributes["ctxviewer.usage_rule"] = rule
        raw = ev.get("call") if isinstance(ev.get("call"), Mapping) else {}
        if isinstance(raw.get("request"), Mapping):  # the provider request as sent (attachments resolved)
            call.request_body = json.dumps(raw["request"], ensure_ascii=False)
        if isinstance(raw.get("time"), (int, float)):
            call.attributes["inspect.call_time"] = raw["time"]
        resp = raw.get("response")
        call.response_id = pm._str(resp.get("id")) if isinstance(resp, Mapping) else None
        try:
            call.created, call.ended = parse_time(ev.get("timestamp")), parse_time(ev.get("completed"))
        except ValueError:
            pass
        if ev.get("error"):
            call.status, call.status_message = "error", str(ev["error"])
        elif out:
            call.status = "ok"
        cfg = ev.get("config") or {}
        call.max_tokens = pm.int_or_none(cfg.get("max_tokens"))
        call.attributes.update({k: v for k, v in (("inspect.sample_id", sample.get("id")),
                                                  ("inspect.epoch", sample.get("epoch")),
                                                  ("inspect.span_id", ev.get("span_id")),
                                                  ("inspect.task", eval_spec.get("task")),
                                                  ("inspect.task_id", eval_spec.get("task_id")),
                                                  ("inspect.run_id", eval_spec.get("run_id")),
                                                  ("inspect.target", sample.get("target") or None),
                                                  ("inspect.tool_choice", ev.get("tool_choice"))) if v is not None})
        call.attributes.update(request_parameters(cfg, "inspect.config")[0])
        md = sample.get("metadata")
        for key, value in (md.items() if isinstance(md, Mapping) else []):
            if isinstance(value, (str, int, float, bool)):
                call.attributes[f"inspect.metadata.{key}"] = value
        if n == answered:  # the scorer graded the sample's answer: its last call that is not a grader's gave it
            call.attributes.update(scores_attribute(sample_scores(sample)))
        unmapped = [k if not k.startswith("event.call.response.") else "event.call.response"
                    for k in unmapped_keys(ev, EVENT_MAPPED, "event.")]
        unmapped += [f"sample.{k}" for k, v in sample.items() if k not in SAMPLE_MAPPED and v not in (None, "", {}, [])]
        call.attributes.update(unmapped_attribute(unmapped))
        yield call


def _run_id(sample: Mapping[str, Any], eval_spec: Mapping[str, Any]) -> str:
    eval_id = str(eval_spec.get("eval_id") or eval_spec.get("run_id") or eval_spec.get("task") or "eval")
    return f"{eval_id}/{sample.get('id')}/{sample.get('epoch', 1)}"


class InspectImporter:
    """The ``inspect_ai`` importer (see module docstring)."""

    name = "inspect_ai"
    records_omissions = False
    description = "Inspect AI eval logs (.json EvalLog and .eval zip, zstd members included)"

    def sniff(self, path: Path, head: bytes) -> float:
        """:data:`~ctxviewer.importers.contract.SPECIFIC` for a zip holding ``header.json`` (or ``samples/``,
        ``_journal/``) or a JSON EvalLog (``"eval"`` and ``"version"``, with ``"samples"``,
        ``"plan"`` or ``"task"``); else 0."""
        if head.startswith(ZIP_MAGIC):
            zipped = b"header.json" in head or b"samples/" in head or b"_journal/" in head
            return SPECIFIC if zipped else 0.0
        text = head_text(head)[:4096]
        log = text.lstrip().startswith("{") and '"eval"' in text and '"version"' in text and (
            '"samples"' in head_text(head) or '"plan"' in text or '"task"' in text)
        return SPECIFIC if log else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        """One trace per model call, sample by sample, in file order."""
        for record in self.load_runs(path):
            if not isinstance(record, RunSpan):
                yield record

    def load_runs(self, path: Path) -> Iterator[RunRecord]:
        """:meth:`load`'s records and, after each sample's traces, the steps of its run
        (:func:`ctxviewer.importers.formats.inspect_runs.run_spans_of`)."""
        file = str(path)
        with open(path, "rb") as fh:
            is_zip = fh.read(4) == ZIP_MAGIC
        if is_zip:
            header, samples = _read_eval(path)
        else:
            try:
                header = json.loads(read_text(path))
            except ValueError as exc:
                raise ImportFailed(f"{path}: not JSON: {exc}{cut_short(exc)}") from None
            samples = [(f"samples[{i}]", s) for i, s in enumerate(header.get("samples") or [])]
        spec = header.get("eval") if isinstance(header.get("eval"), Mapping) else None
        if spec is None:
            raise ImportFailed(f"{path}: not an Inspect AI log (no eval spec)")
        found = 0
        for record, sample in samples:
            if not isinstance(sample, Mapping):
                yield ImportProblem(file, record, f"cannot read sample: {sample}", dropped=1)
                continue
            try:
                calls = list(calls_of(sample, spec))
            except (ValueError, TypeError, AttributeError, KeyError) as exc:
                yield ImportProblem(file, record, f"cannot map sample: {exc}", dropped=1)
                continue
            runs = sample_runs(sample.get("events"))
            for call in calls:
                trace, warnings = build_trace(call)
                if runs and trace.tool_calls:  # the verdicts its tool events show (.inspect_verdicts)
                    trace = replace(trace, tool_calls=with_run_verdicts(trace.tool_calls, runs, call.created))
                found += 1
                yield trace
                for w in warnings:
                    yield ImportProblem(file, f"{record} call {call.trace_id.rsplit('/', 1)[-1]}", w)
            if calls:
                yield from run_spans_of(sample, _run_id(sample, spec), spec.get("task"), resolve)
        if not found:
            yield ImportProblem(file, "whole file", "no samples with model calls (the log may hold only the header)")


IMPORTER = InspectImporter()
