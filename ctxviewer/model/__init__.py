"""The request trace model: what one model request sent, as immutable data, and its JSON form.

What lives here:

* :mod:`~ctxviewer.model.trace` -- :class:`~ctxviewer.model.trace.RequestTrace` and its parts
  (context items in final order, endpoint, policy, usage, response, tool calls; chapter 3);
  :mod:`~ctxviewer.model.vocabulary` -- the enumerations its fields take (an item's kind, trust
  and status, budget categories, limit mode, tool verdicts, token sources);
* :mod:`~ctxviewer.model.findings` -- :class:`~ctxviewer.model.findings.Finding`, severities and
  states: the shape every check fills;
* :mod:`~ctxviewer.model.table31` -- Table 3.1 of the reference chapter as data;
* :mod:`~ctxviewer.model.guardrail` -- runtime guardrail results recorded with a trace (what the
  application's own guards decided, OpenTelemetry GenAI security-guardrail shape);
* :mod:`~ctxviewer.model.span_facts` -- what a model call's span recorded about the call (status,
  agent, operation: OpenTelemetry GenAI attributes);
* :mod:`~ctxviewer.model.run` -- :class:`~ctxviewer.model.run.RunSpan`, one step of an agent run
  (the run tree: agents, tools, retrievers around the model calls);
* :mod:`~ctxviewer.model.source_notes` -- the attribute names of what a source recorded about a call
  that no field holds (Langfuse's warning, environment, time to first token), written by its
  importer and read by the header;
* :mod:`~ctxviewer.model.source_window` -- a context window the trace's source recorded from its
  own model catalogue (LiteLLM's model map): eq. 3.1's assumed C before ctxviewer's catalogue;
* :mod:`~ctxviewer.model.placed_data` -- untrusted text an importer found placed inside another
  item (a retrieved document in the system or user message, a ReAct agent's tool output in a user
  or assistant message): the one reading the scanner and the header share;
* :mod:`~ctxviewer.model.words` -- how a recorded value reads (``8,000``, ``not recorded``);
  :mod:`~ctxviewer.model.capture` -- what a call whose message content was not captured does
  record, in words (its output, its usage, metadata only);
* :mod:`~ctxviewer.model.codec` and :mod:`~ctxviewer.model.serialize` -- the one JSON form of the
  model (the native ``ctxviewer.trace/1`` record, ``docs/native-format.md``);
  :mod:`~ctxviewer.model.times` -- ``created`` as text and back, and the record's format error,
  without the codec (what reading a list row needs).

May import: :mod:`ctxviewer.util` only. Every other package builds on this one; nothing here
counts tokens, reads files, judges a trace or knows a database.

A new field of a trace goes into :mod:`~ctxviewer.model.trace` together with its codec hook and
its line in ``docs/native-format.md``.
"""
