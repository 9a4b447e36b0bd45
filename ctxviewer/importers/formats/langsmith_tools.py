"""What a LangSmith ``llm`` run's neighbours record of it (the ``langsmith`` importer,
:mod:`ctxviewer.importers.formats.langsmith`): the verdicts its trace's ``tool`` runs show on the
calls it proposed, and the run-level token counts as its usage.

**Tool runs** (langsmith-sdk ``schemas.py`` ``Run``, ``run_type`` ``tool``): a LangChain tool's run
names the call it ran by its output ``ToolMessage``'s ``tool_call_id`` (``outputs.output``, the
``lc`` constructor form or the dict form; also ``extra.metadata.tool_call_id`` or
``inputs.tool_call_id``), the tool by its ``name``, and its outcome by ``error`` (the exception's
repr, then its traceback: the text before ``Traceback`` is read) or a ToolMessage ``status``
``error``. It reads by the rules of :class:`~ctxviewer.importers.common.tool_outcome.ToolRun`: a
refusal (``PermissionError``, ``blocked by policy``...) -- **blocked**; any other error (a
``ConnectionError``) -- **no verdict**; no error -- **permitted** (``"ended ok"`` with an
``end_time``, ``"started and never ended"`` without one). A call is matched by tool-call id (the
same tool, starting at or after the proposing run), else by tool name and order among the tool
runs of its trace that start after it and before the trace's next ``llm`` run
(:func:`~ctxviewer.importers.common.tool_outcome.with_ordered_run_verdicts`).

**Run-level usage** (``Run.prompt_tokens`` / ``completion_tokens`` / ``total_tokens``: LangSmith's
own counts, returned on every run by ``list_runs``): input and output tokens when the run records
no LangChain ``usage_metadata`` or provider usage; when it does, the run-level keys are accounted
for (not named unmapped) if they agree with it. No Qt here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from ctxviewer.importers.common import provider_messages as pm
from ctxviewer.importers.common.tool_outcome import ToolRun, with_trace_run_verdicts
from ctxviewer.importers.formats.langsmith_runs import run_time
from ctxviewer.model.trace import ToolCall, Usage

RUN_TOKEN_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")
"""LangSmith's run-level token counts (``Run``: input, output and their sum, tokens)."""


def run_usage(run: Mapping[str, Any]) -> Usage | None:
    """``Run.prompt_tokens`` / ``completion_tokens`` as :class:`Usage` (input, output tokens), or
    ``None`` when the run records neither."""
    inp, out = pm.int_or_none(run.get("prompt_tokens")), pm.int_or_none(run.get("completion_tokens"))
    return None if inp is None and out is None else Usage(input_tokens=inp, output_tokens=out)


def run_tokens_agree(run: Mapping[str, Any], usage: Usage, total: int | None) -> bool:
    """Whether the run-level counts the run records (:data:`RUN_TOKEN_KEYS`) equal the usage read
    from elsewhere (``usage``; ``total`` that record's ``total_tokens``, ``None`` if not recorded):
    each recorded key equal to input, output and ``total`` (else input + output)."""
    want = {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
            "total_tokens": total if total is not None else (
                None if usage.input_tokens is None or usage.output_tokens is None
                else usage.input_tokens + usage.output_tokens)}
    given = {k: pm.int_or_none(run.get(k)) for k in RUN_TOKEN_KEYS if run.get(k) is not None}
    return bool(given) and all(v == want[k] for k, v in given.items())


def _tool_message(value: Any) -> Mapping[str, Any] | None:
    """A LangChain ``ToolMessage`` (``lc`` constructor form: its ``kwargs``; dict form as it is), or ``None``."""
    if not isinstance(value, Mapping):
        return None
    body: Mapping[str, Any] = value["kwargs"] if isinstance(value.get("kwargs"), Mapping) else value
    return body if body.get("type") == "tool" and body.get("tool_call_id") else None


def _error_head(error: Any) -> str | None:
    text = str(error).split("Traceback (most recent call last)", 1)[0].strip() if error else ""
    return " ".join(text.split()) or None


def tool_run(run: Mapping[str, Any]) -> ToolRun | None:
    """The execution a ``tool`` run records (module docstring); ``None`` for another run type."""
    if run.get("run_type") != "tool":
        return None
    outputs: Mapping[str, Any] = run["outputs"] if isinstance(run.get("outputs"), Mapping) else {}
    message = _tool_message(outputs.get("output")) or _tool_message(outputs)
    meta = (run.get("extra") or {}).get("metadata") if isinstance(run.get("extra"), Mapping) else None
    inputs: Mapping[str, Any] = run["inputs"] if isinstance(run.get("inputs"), Mapping) else {}
    call_id = (message or {}).get("tool_call_id") or (meta.get("tool_call_id") if isinstance(meta, Mapping) else None) \
        or inputs.get("tool_call_id")
    start, end = run_time(run.get("start_time")), run_time(run.get("end_time"))
    status, error = ("ok" if end is not None else None), None
    if run.get("error") or run.get("status") == "error":
        status, error = "error", _error_head(run.get("error"))
    elif message is not None and message.get("status") == "error":
        status, error = "error", _error_head(message.get("content"))
    ended = None if start is None and end is None else end is not None
    return ToolRun(call_id=None if call_id in (None, "") else str(call_id), what=f"tool run {run.get('id')}",
                   status=status, error=error, ended=ended, tool=pm._str(run.get("name")), start=start)


class TraceToolRuns:
    """The tool runs and ``llm`` run starts of one file's runs, by run tree (``trees``: run id ->
    tree id, :func:`~ctxviewer.importers.formats.langsmith_runs.run_ids`), for
    :meth:`verdicts`."""

    def __init__(self, runs: Sequence[Mapping[str, Any]], trees: Mapping[str, str],
                 llm_types: frozenset[str]) -> None:
        self._trees = trees
        self._tools: dict[str, list[ToolRun]] = {}
        self._starts: dict[str, list[datetime]] = {}
        for r in runs:
            tree = trees.get(str(r.get("id")), str(r.get("id")))
            made = tool_run(r)
            if made is not None:
                self._tools.setdefault(tree, []).append(made)
            elif r.get("run_type") in llm_types and run_time(r.get("start_time")) is not None:
                self._starts.setdefault(tree, []).append(run_time(r.get("start_time")))  # type: ignore[arg-type]
        for tools in self._tools.values():
            tools.sort(key=lambda t: (t.start is None, t.start or datetime.min.replace(tzinfo=timezone.utc)))

    def verdicts(self, calls: tuple[ToolCall, ...], run_id: str, start: datetime | None) -> tuple[ToolCall, ...]:
        """``calls`` (``llm`` run ``run_id``'s proposals, the run started at ``start``) with the
        verdicts its trace's tool runs show where none was recorded (module docstring)."""
        tree = self._trees.get(run_id, run_id)
        return with_trace_run_verdicts(calls, self._tools.get(tree, []), start, self._starts.get(tree, []))
