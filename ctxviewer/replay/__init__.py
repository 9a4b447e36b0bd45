"""Replaying: sending a recorded request to an endpoint the user configured, and position tests that move one item and measure the answer.

Nothing here sends a byte unless the user named an endpoint of ``[endpoint.NAME]`` in
``ctxviewer.toml`` and asked (``ctxviewer replay``, ``ctxviewer position-test``, Trace › Replay…).

* :mod:`.endpoints` -- the ``[endpoint.NAME]`` tables: kind, base URL, model, the name of the
  environment variable holding the key (the key itself is read at send time, never kept);
* :mod:`.send` -- one HTTP POST (httpx) and a clear :class:`~.send.SendFailure` per failure kind
  (refused, 401/403, 429 with Retry-After honoured up to a bound, timeout, an answer not of the
  expected shape);
* :mod:`.conversation` -- the items of a trace as a provider-neutral conversation (tool calls and
  their results paired); :mod:`.shapes` -- that conversation as a Chat Completions, Responses or
  Messages body; :mod:`.rebuild` -- the body to send (the stored one when kept, else rebuilt);
* :mod:`.answer` -- the provider's answer as the model's :class:`~ctxviewer.model.trace.Response`,
  tool calls and usage;
* :mod:`.run` -- one replay: the new trace (``replay_of`` the original, the request actually sent
  stored byte for byte) and its diff;
* :mod:`.stats` -- Wilson intervals, exact McNemar, Cochran's Q, bootstrap spread;
  :mod:`.scoring` -- the score rules; :mod:`.positions` -- the variants and runs of a position test;
  :mod:`.position_report` -- the analysis in words, as JSON and as the chart's points;
  :mod:`.harness_rows` -- result rows of Lost in the Middle, NeedleInAHaystack and RULER as scores.

May import: :mod:`ctxviewer.pipeline`, :mod:`ctxviewer.diff`, :mod:`ctxviewer.builder`,
:mod:`ctxviewer.present`, :mod:`ctxviewer.assess`, :mod:`ctxviewer.store`, :mod:`ctxviewer.model`,
:mod:`ctxviewer.util`, and httpx (the ``replay`` extra) inside :mod:`.send` only. No Qt here.

A new provider kind goes into :mod:`.endpoints` (its name), :mod:`.shapes` (its body) and
:mod:`.answer` (its answer).
"""
