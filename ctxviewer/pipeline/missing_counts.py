"""Token counts an import fills in: every item with content but no recorded count, counted with the
model's own encoding, in batches over the cores, cached per content hash in the store.

Importers never count; the import pipeline (:mod:`ctxviewer.pipeline.importing`) passes its traces
through :func:`counted`. The encoding is :func:`ctxviewer.tokens.profiles.counting_encoding` of the
trace's model and recorded encoding (the same one ``ctxviewer tokens`` and the what-if use); a count
in an encoding that only approximates the model's tokenizer is marked ``estimated``
(:class:`~ctxviewer.model.trace.TokenSource`). Counts an importer read from the file keep the
provenance it gave (``recorded``, ``reported``).

What was never sent as text is not counted as text (:func:`ctxviewer.tokens.placeholders.split_marked`), and a rendering of what was sent
counts as the endpoint counts what it renders (:func:`ctxviewer.tokens.item_rule.content_tokens`: a tool
definition's JSON by its ``name:description`` and property lines, a stored tool-call line by the call's
name and arguments):
an image placeholder (``[image/png blob, 1024×768, ...]``) counts by the model's image rule
(:func:`ctxviewer.tokens.images.count_image`: OpenAI's 512 px tiles, 85 + 170 per tile for gpt-4o;
Anthropic's width x height / 750), and that item's count is marked ``estimated`` (the provider's
own count of an image is not reproducible offline); a reasoning label (``[reasoning] ``) is not
counted. No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from ctxviewer.model.trace import RequestTrace, TokenProvenance, TokenSource
from ctxviewer.store import TraceStore
from ctxviewer.tokens.counting import DEFAULT_ENCODING, UnknownEncodingError, get_encoding
from ctxviewer.tokens.images import count_image
from ctxviewer.tokens.item_rule import content_tokens, is_rendered
from ctxviewer.tokens.placeholders import split_marked
from ctxviewer.tokens.profiles import ProfileError, counting_encoding, resolve

COUNT_BATCH_TRACES = 64
"""Traces whose missing token counts are counted together (:func:`count_missing_tokens_many`)."""
COUNT_BATCH_CHARS = 4_000_000
"""...or fewer, once their item texts reach this many characters (bounds memory and cancel delay)."""


def count_missing_tokens(trace: RequestTrace, store: TraceStore) -> RequestTrace:
    """``trace`` with a token count on every item that has content but ``tokens=None``, each
    marked ``TokenProvenance(COUNTED, encoding)``.

    Counts under :func:`ctxviewer.tokens.profiles.counting_encoding` of the trace's model and recorded
    encoding (provenance ``counted``, or ``estimated`` when that encoding only approximates the
    model's tokenizer); when the endpoint recorded no encoding and at least one item was counted,
    the returned trace records the encoding used. Recorded counts are never changed.
    """
    return count_missing_tokens_many([trace], store)[0]


def count_missing_tokens_many(traces: Sequence[RequestTrace], store: TraceStore) -> list[RequestTrace]:
    """:func:`count_missing_tokens` of each of ``traces``, in order, with one
    :meth:`TraceStore.token_counts` call per encoding for all of them: each distinct text of the
    batch is looked up once in the content-hash cache and the misses counted once each, in
    parallel over the cores. Raises like :func:`count_missing_tokens` (for the whole batch)."""
    todo: dict[str, list[tuple[int, int]]] = {}  # encoding -> (trace index, item index)
    texts: dict[tuple[int, int], str] = {}  # what is counted as text, where it is not the content
    images: dict[tuple[int, int], int] = {}  # image tokens of an item holding images (estimated)
    ruled: dict[tuple[int, int], int] = {}  # counted by the endpoint's rule (tool definitions and calls)
    for ti, trace in enumerate(traces):
        encoding, _approximate = counting_encoding_of(trace)
        lines = None
        for ii, item in enumerate(trace.items):
            if item.tokens is None and item.content is not None:
                marked = split_marked(item.content)
                if item.is_tool_definition and lines is None:
                    lines = definition_lines_rule(trace)
                definition = item.is_tool_definition and bool(lines)
                if is_rendered(marked.text, definition):  # also after reasoning labels and images are taken out
                    n = content_tokens(marked.text, encoding, definition)
                    if marked.images:
                        rule = image_rule_of(trace)
                        n += sum(count_image(rule, im.size, im.detail).tokens for im in marked.images)
                        images[(ti, ii)] = 0  # estimated: its provenance says so
                    ruled[(ti, ii)] = n
                    continue
                todo.setdefault(encoding, []).append((ti, ii))
                if marked.labelled:
                    texts[(ti, ii)] = marked.text
                if marked.images:
                    rule = image_rule_of(trace)
                    images[(ti, ii)] = sum(count_image(rule, im.size, im.detail).tokens for im in marked.images)
    if not todo and not ruled:
        return list(traces)
    counted: dict[tuple[int, int], tuple[int, str]] = {w: (n, "") for w, n in ruled.items()}
    for encoding, where in todo.items():
        counts = store.token_counts([texts.get(w, traces[w[0]].items[w[1]].content or "") for w in where], encoding)
        counted.update((w, (n + images.get(w, 0), encoding)) for w, n in zip(where, counts))
    out = []
    for ti, trace in enumerate(traces):
        if not any((ti, ii) in counted for ii in range(len(trace.items))):
            out.append(trace)
            continue
        items = list(trace.items)
        encoding, approximate = counting_encoding_of(trace)
        provenance = TokenProvenance(TokenSource.ESTIMATED if approximate else TokenSource.COUNTED, encoding)
        for ii in range(len(items)):
            got = counted.get((ti, ii))
            if got is not None:
                prov = TokenProvenance(TokenSource.ESTIMATED, encoding) if (ti, ii) in images else provenance
                items[ii] = replace(items[ii], tokens=got[0], tokens_provenance=prov)
        endpoint = trace.endpoint
        if endpoint.encoding is None:
            endpoint = replace(endpoint, encoding=encoding)
        out.append(replace(trace, items=tuple(items), endpoint=endpoint))
    return out


def counting_encoding_of(trace: RequestTrace) -> tuple[str, bool]:
    """``(encoding, approximate)`` the trace's missing counts are counted with
    (:func:`ctxviewer.tokens.profiles.counting_encoding`; a bad user profiles file falls back to
    :data:`~ctxviewer.tokens.counting.DEFAULT_ENCODING`, approximate)."""
    try:
        return counting_encoding(trace.endpoint.model, trace.endpoint.encoding)
    except ProfileError:
        return trace.endpoint.encoding or DEFAULT_ENCODING, True


def definition_lines_rule(trace: RequestTrace) -> bool:
    """True when the trace's endpoint profile counts a tool definition by its lines (tool rule
    ``definition`` ``"lines"``, OpenAI's; a bad user profiles file -> the default rule, lines)."""
    try:
        return resolve(trace.endpoint.model).profile.tools.definition == "lines"
    except ProfileError:
        return True


def image_rule_of(trace: RequestTrace) -> dict[str, object]:
    """The image rule of the trace's endpoint profile (``endpoint_profiles.json`` ``image``;
    :func:`ctxviewer.tokens.images.count_image`); a bad user profiles file -> the default rule."""
    try:
        return dict(resolve(trace.endpoint.model).profile.image)
    except ProfileError:
        return {}


def counted(traces: Iterator[RequestTrace], store: TraceStore) -> Iterator[RequestTrace]:
    """``traces`` in order, their missing token counts counted batch by batch
    (:data:`COUNT_BATCH_TRACES`, :data:`COUNT_BATCH_CHARS`; :func:`count_missing_tokens_many`).
    A trace whose encoding cannot count offline is passed through uncounted, in its place (the
    import names it as a problem)."""
    batch: list[RequestTrace] = []
    chars = 0
    unknown: dict[str, bool] = {}  # encoding -> not available offline
    for trace in traces:
        if needs_counting(trace):
            encoding, _approximate = counting_encoding_of(trace)
            if encoding not in unknown:
                unknown[encoding] = encoding_problem(encoding) is not None
            if unknown[encoding]:  # named by the import; stored uncounted, in its place
                yield from count_missing_tokens_many(batch, store)
                batch, chars = [], 0
                yield trace
                continue
        batch.append(trace)
        chars += sum(len(i.content) for i in trace.items if i.tokens is None and i.content is not None)
        if len(batch) >= COUNT_BATCH_TRACES or chars >= COUNT_BATCH_CHARS:
            yield from count_missing_tokens_many(batch, store)
            batch, chars = [], 0
    if batch:
        yield from count_missing_tokens_many(batch, store)


def needs_counting(trace: RequestTrace) -> bool:
    """Whether some item of ``trace`` has content but no token count."""
    return any(i.tokens is None and i.content is not None for i in trace.items)


def encoding_problem(encoding: str) -> str | None:
    """Why ``encoding`` cannot count offline (the :class:`UnknownEncodingError` text), or ``None``."""
    try:
        get_encoding(encoding)
    except UnknownEncodingError as exc:
        return str(exc)
    return None
