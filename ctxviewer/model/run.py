"""One step of a run: a span of an agent run as the file recorded it (agent, model call, tool,
retriever, chain, guardrail, an Inspect solver or scorer), for the run tree and timeline.

A run is what one OTel trace, one Langfuse trace or one Inspect sample holds: a tree of steps
linked by their parent ids. The model calls among them are also
:class:`~ctxviewer.model.trace.RequestTrace` records (:attr:`RunSpan.trace_id` names the one);
every other step is kept only as a :class:`RunSpan`, with every attribute the file gave it.
Importers that know runs yield them beside their traces (``load_runs``,
:mod:`ctxviewer.importers.contract`); the store keeps them in ``run_spans``. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping

from ctxviewer.model.trace import freeze


@dataclass(frozen=True)
class RunSpan:
    """One step of a run; ``None`` = not recorded. Times are aware UTC."""

    run_id: str
    """The run: the OTel / Langfuse / MLflow trace id, the LangSmith root run id (``trace_id``), or
    ``"{eval id}/{sample id}/{epoch}"`` for Inspect."""
    span_id: str
    """The step's id, unique within the run."""
    parent_id: str | None
    """The enclosing step's :attr:`span_id`; ``None`` for a root."""
    kind: str
    """What the step is, lower case: ``agent``, ``llm`` (a model call), ``tool``, ``retriever``,
    ``chain``, ``guardrail``, ``span``, Inspect's ``sample``, ``solver``, ``scorer``, ... (the
    file's own word: OpenInference span kind, Langfuse observation type, LangSmith ``run_type``,
    MLflow ``mlflow.spanType``, Inspect span type; an OTel GenAI span's ``gen_ai.operation.name``
    in these words, ``chat`` -> ``llm``, ``execute_tool`` -> ``tool``, ``invoke_agent`` -> ``agent``)."""
    name: str | None
    """The step's name (``invoke_agent support``, ``get_weather``, ``generate``)."""
    start: datetime | None
    end: datetime | None
    """End time; ``None`` when the step never ended or the file does not say."""
    status: str | None = None
    """``ok``, ``error`` or ``unset``; ``None`` when not recorded."""
    status_message: str | None = None
    trace_id: str | None = None
    """The :class:`~ctxviewer.model.trace.RequestTrace` of this step when it is a model call."""
    attributes: Mapping[str, Any] = field(default_factory=dict)
    """Everything else the file recorded on the step, JSON values (frozen)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "attributes", freeze(dict(self.attributes)))  # deepfreeze's result

    @property
    def duration_ms(self) -> float | None:
        """End minus start in milliseconds, ``None`` when either is not recorded (a negative
        duration is kept: the file says so, and the tree says it cannot be true)."""
        if self.start is None or self.end is None:
            return None
        return (self.end - self.start).total_seconds() * 1000.0


TOOL_NAME_KEYS = ("gen_ai.tool.name", "tool.name", "ai.toolCall.name")
"""Where a tool step's span names the tool it ran: OTel GenAI ``gen_ai.tool.name``, OpenInference
``tool.name``, Vercel AI SDK ``ai.toolCall.name`` (its span is named ``ai.toolCall`` whatever the tool)."""
