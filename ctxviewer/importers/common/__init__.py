"""What the trace formats share: reading files, chat messages, span containers, and the one
normaliser from a model call to a trace.

* reading files -- :mod:`.containers` (gzip, text encodings, JSON / JSON Lines / concatenated
  documents), :mod:`.compressed` (gzip decompressed within a bound: no decompression bomb), :mod:`.parquet` (Parquet rows with pyarrow, the ``parquet`` extra),
  :mod:`.phoenix_frames` (a Phoenix spans dataframe's rows as Phoenix span JSON), :mod:`.peek` (the parse events of a head cut off mid-document, for sniffers),
  :mod:`.json_where` (which JSON field a byte offset falls in), :mod:`.notes` (warnings of deep
  readers delivered as problem records of the file being loaded);
* chat messages -- :mod:`.messages` (any message encoding -> OTel GenAI messages -> item text),
  :mod:`.provider_messages` (OpenAI and Anthropic payloads and their usage rules),
  :mod:`.part_shapes` (provider content blocks -- images, thinking, and through
  :mod:`.foreign_parts` Anthropic tool blocks and Gemini parts, and through :mod:`.bedrock_parts`
  Bedrock Converse blocks -- wherever they occur),
  :mod:`.image_payloads` (the base64 images of the messages, kept when no request body holds them),
  :mod:`.langchain_messages` (LangChain messages), :mod:`.openinference_attrs` (OpenInference
  span attributes -> a model call), :mod:`.exchanges` (a provider request + response -> a model
  call), :mod:`.values` (OTLP ``AnyValue``, ids, times), :mod:`.request_params` (invocation
  parameters -> ``gen_ai.request.*``), :mod:`.framework_tools` (tools offered only in an agent
  framework's attributes: Pydantic AI), :mod:`.usage_rules` (Gemini's thinking tokens taken
  from the total), :mod:`.finish_reasons` (the finish reason of a span's attributes: the semconv
  array or Semantic Kernel's singular string);
* retrieval -- :mod:`.retrieved` (the retrieved-document shape, its items and rows, and what a
  reranker kept and dropped: each document once, the dropped ones omitted), :mod:`.sent_documents`
  (retrieved documents the call already sent inside one of its messages: kept as the retrieval's
  record, not added again as items; where a ReAct agent's tool output sits inside a message),
  :mod:`.react_observations` (the user messages that are only a tool's output sent back: history,
  never the user request);
* nothing lost silently -- :mod:`.choices` (the response a trace shows, the first choice, and
  every further choice kept as ``ctxviewer.other_choices``), :mod:`.field_account` (the source keys an importer did not map,
  named on the trace as ``ctxviewer.unmapped`` and counted per file), :mod:`.exchange_account`
  (the request/response keys of a provider exchange), :mod:`.model_account` (the keys of a native
  record the model does not know), :mod:`.scores` (scores, feedback and annotations as
  ``ctxviewer.scores``), :mod:`.phoenix_annotations` (Phoenix span annotations as scores),
  :mod:`.exporter_cut` (values an exporter cut although they still parse: Logfire's middle
  ``...`` and its ``logfire.truncated`` list);
* :mod:`.spans` -- the span containers (OTLP/JSON and protobuf, span lists, flat attribute maps)
  and the one :class:`~.spans.span.Span` shape they yield;
* :mod:`.tool_outcome` -- the verdict a proposed tool call's recorded execution shows (an
  ``execute_tool`` / TOOL span that ran it: blocked by a refusal, else permitted);
* :mod:`.inherit` -- the system instructions and tools a model call takes from its ancestor
  (agent) spans when it records none of its own;
* :mod:`.llm_call` -- the one normaliser: :class:`~.llm_call.LLMCall` (a model call in normal
  form) -> :class:`~ctxviewer.model.trace.RequestTrace` (:func:`~.llm_call.build_trace`).

May import: :mod:`ctxviewer.importers.contract`, :mod:`ctxviewer.model`, :mod:`ctxviewer.tokens`
(image sizes and placeholders, never counting), :mod:`ctxviewer.util` and
third-party parsers; never a format (:mod:`ctxviewer.importers.formats`) nor the registry. A
helper goes here once a second format needs it. No Qt here.
"""
