"""Values that a trace can hold and the database can store, but that cannot be true.

An exporter bug or a hand-edited file can record a context window of 0 tokens, a count of 2**62
tokens on the one-character content ``"x"``, or 0 tokens on non-empty content. Such a trace still
imports -- the recorded value is kept, never "corrected" -- but each such value is named: the import
prints one warning per value (:mod:`ctxviewer.pipeline.importing`) and the check ``input.implausible``
(:mod:`ctxviewer.assess.checks.plausible`) shows the trace as suspect, with the same words.

Rules (each in :func:`implausible`):

* ``endpoint.capacity`` of 0 or less: no request fits a context window of no tokens;
* an item's ``tokens`` above :data:`PLACEHOLDER_TOKENS` and above :data:`TOKENS_PER_BYTE` x the
  UTF-8 bytes of its content plus :data:`TOKEN_SLACK`: every tokenizer spends at least one byte per
  token of text, so a count far above the byte length cannot be a count of that content. Counts up
  to :data:`PLACEHOLDER_TOKENS` are allowed on short content, because an image or file is often
  recorded as a short placeholder (``[image]``) with its real count;
* an item's ``tokens`` of 0 on non-empty content: any text is at least one token;
* a reported ``usage.input_tokens`` or ``usage.output_tokens`` above
  :data:`~ctxviewer.tokens.cost.MOST_TOKENS` (ten times the largest context window offered): no
  call uses that many, and such a count is not priced;
* a span duration below 0 (``ctxviewer.duration_ms``, end minus start as the importers record it):
  a call cannot end before it started (clock skew between hosts, a hand-edited time). The value is
  named in the words of :func:`negative_duration` wherever it is shown (the header's Span row).

No Qt here.
"""

from __future__ import annotations

from typing import Any

from ctxviewer.model.trace import RequestTrace
from ctxviewer.tokens.cost import MOST_TOKENS

TOKENS_PER_BYTE = 1
"""Most tokens a byte of UTF-8 text can be counted as (a token covers at least one byte)."""
TOKEN_SLACK = 16
"""Tokens allowed above the byte bound (special and framing tokens counted with an item)."""
PLACEHOLDER_TOKENS = 1_000_000
"""Largest count accepted on content shorter than it (a placeholder for an image, file or document)."""


DURATION_KEY = "ctxviewer.duration_ms"
"""The trace attribute holding the call's recorded duration (end minus start, milliseconds)."""


def negative_duration(ms: Any) -> str | None:
    """``"negative duration (end before start: -12 ms)"`` for a duration ``ms`` (milliseconds)
    below 0, ``None`` for any other value (0 and up, not a number, not recorded). Whole
    milliseconds with thousands separators; under 1 ms in magnitude, three significant digits."""
    if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not ms < 0:
        return None
    shown = f"{ms:,.0f}" if ms <= -1 else f"{ms:.3g}"
    return f"negative duration (end before start: {shown} ms)"


def reported_input(trace: RequestTrace) -> int | None:
    """The provider-reported input tokens (``gen_ai.usage.input_tokens``) as eq. 3.1 and the
    accounting checks read them: ``None`` when not reported, and when above
    :data:`~ctxviewer.tokens.cost.MOST_TOKENS` -- such a count is no usage, and :func:`implausible`
    names it instead of every check deciding by it (a 10**15-token input "refuted" the context window)."""
    n = trace.usage.input_tokens
    return None if n is None or n > MOST_TOKENS else n


def implausible(trace: RequestTrace) -> list[tuple[str, str]]:
    """``(field, message)`` for each implausible value of ``trace``, in field order: ``field`` is a
    dotted path (``endpoint.capacity``, ``items[2].tokens``), ``message`` the whole warning
    (``"items[2].tokens: 4611686018427387904 tokens on 1 byte of content cannot be a count of it;
    kept, shown as suspect"``). Empty when every value is plausible. Never raises."""
    out: list[tuple[str, str]] = []
    cap = trace.endpoint.capacity
    if cap is not None and cap <= 0:
        out.append(("endpoint.capacity", f"endpoint.capacity: a context window of {cap} tokens cannot hold any "
                                         "request; kept, shown as suspect"))
    for i, item in enumerate(trace.items):
        if item.tokens is None or item.content is None:
            continue
        field = f"items[{i}].tokens"
        size = len(item.content.encode("utf-8", "surrogatepass"))
        if item.tokens > max(TOKENS_PER_BYTE * size + TOKEN_SLACK, PLACEHOLDER_TOKENS):
            out.append((field, f"{field}: {item.tokens} tokens on {size} byte(s) of content cannot be a count of it "
                               f"(item {item.id}); kept, shown as suspect"))
        elif item.tokens == 0 and item.content.strip():
            out.append((field, f"{field}: 0 tokens on non-empty content (item {item.id}); kept, shown as suspect"))
        elif item.tokens < 0:
            out.append((field, f"{field}: a negative count ({item.tokens}) (item {item.id}); kept, shown as suspect"))
    for name in ("input_tokens", "output_tokens"):
        n = getattr(trace.usage, name)
        if n is not None and n > MOST_TOKENS:
            out.append((f"usage.{name}", f"usage.{name}: {n:,} tokens reported, more than any call can use "
                                         f"(the largest context window is about 10,000,000); kept, shown as suspect, "
                                         "not priced"))
    for note in trace.attributes.get("ctxviewer.implausible") or ():  # dropped at import (pipeline.sanitize)
        if isinstance(note, str):
            out.append((note.split(":", 1)[0], note.replace("stored as not recorded", "stored as not recorded, "
                                                                                     "shown as suspect")))
    negative = negative_duration(trace.attributes.get(DURATION_KEY))
    if negative is not None:
        field = f"attributes.{DURATION_KEY}"
        out.append((field, f"{field}: {negative}; kept, shown as suspect"))
    return out
