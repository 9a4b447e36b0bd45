"""A trace's input tokens as a breakdown that adds up, beside the provider-reported input.

    content per category + framing overhead + tool-definition overhead = counted total

Content is each retained item's token count (counted with the endpoint's encoding when the trace
did not record it). Framing is the endpoint profile's per-message tokens plus each message's role
plus the reply priming once; tool-definition overhead is the profile's tool rule constants for items
that carry a function definition (``func_end`` once). Beside the total: the provider-reported input
(``gen_ai.usage.input_tokens``) and the residual ``reported - counted`` in tokens, with a warning when
it exceeds the profile's tolerance. For non-OpenAI models the counted total is a cross-vendor
estimate and the reported input is the one to trust. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxviewer.assess.budget import CATEGORY_LABELS, CATEGORY_ORDER, category_of
from ctxviewer.assess.plausibility import reported_input
from ctxviewer.model.trace import Category, Kind, RequestTrace
from ctxviewer.tokens.counting import CHUNK_CHARS, available_encodings
from ctxviewer.tokens.item_rule import content_tokens, definition_of
from ctxviewer.tokens.profiles import Resolution, resolve
from ctxviewer.tokens.request_accounting import Counter, count_tool


@dataclass(frozen=True)
class Breakdown:
    """Counted input tokens of a trace by part. All tokens."""

    content: dict[Category, int]
    """Retained items' tokens per eq. 3.1 category, in :data:`ctxviewer.assess.budget.CATEGORY_ORDER`."""
    framing: int
    tool_overhead: int
    resolution: Resolution
    reported: int | None
    """Provider-reported input; ``None`` if not reported."""
    uncounted: tuple[str, ...] = ()
    """Ids of retained items with neither a count nor content (left out of the total)."""
    chunked: tuple[str, ...] = ()
    """Ids of retained items counted here in chunks (over :data:`ctxviewer.tokens.counting.CHUNK_CHARS`
    characters, e.g. a 1,000,000-space tool output): their counts may be off by a few tokens."""

    @property
    def total(self) -> int:
        """The counted input: content + framing + tool overhead."""
        return sum(self.content.values()) + self.framing + self.tool_overhead

    @property
    def residual(self) -> int | None:
        """reported - counted, in tokens; ``None`` when nothing was reported."""
        return None if self.reported is None else self.reported - self.total

    @property
    def tolerance(self) -> int | None:
        """Largest residual the profile accepts; ``None`` when nothing was reported."""
        return None if self.reported is None else self.resolution.profile.tolerance(self.reported)

    @property
    def warning(self) -> str | None:
        """Words when |residual| exceeds the tolerance, else ``None``."""
        r, tol = self.residual, self.tolerance
        if r is None or tol is None or abs(r) <= tol:
            return None
        return (f"provider reported {self.reported:,} input tokens, counted {self.total:,}: "
                f"residual {r:+,} tokens exceeds the tolerance of {tol:,}")

    def to_json(self) -> dict[str, object]:
        """JSON form: ``content`` (category -> tokens), ``framing``, ``tool_overhead``, ``total``,
        ``encoding``, ``label``, ``reported``, ``residual``, ``tolerance``, ``warning``."""
        return {
            "content": {c.value: n for c, n in self.content.items()},
            "framing": self.framing,
            "tool_overhead": self.tool_overhead,
            "total": self.total,
            "encoding": self.resolution.encoding,
            "label": self.resolution.label,
            "reported": self.reported,
            "residual": self.residual,
            "tolerance": self.tolerance,
            "warning": self.warning,
            "uncounted": list(self.uncounted),
            "chunked": list(self.chunked),
        }

    def lines(self) -> list[str]:
        """The breakdown in words, one part per line: content per category, framing, tool overhead,
        the counted total with its encoding label, the reported input and the residual, then the
        warning (if any), the items that could not be counted and those counted in chunks (if any)."""
        out = [f"{CATEGORY_LABELS[c]:<16}{n:>10,}" for c, n in self.content.items()]
        out += [f"{'framing':<16}{self.framing:>10,}", f"{'tool overhead':<16}{self.tool_overhead:>10,}",
                f"{'counted total':<16}{self.total:>10,}  ({self.resolution.label})"]
        if self.reported is not None:
            out.append(f"{'reported input':<16}{self.reported:>10,}")
            out.append(f"{'residual':<16}{self.residual:>+10,}  (tolerance {self.tolerance:,})")
        else:
            out.append(f"{'reported input':<16}{'—':>10}  not recorded")
        if self.warning:
            out.append(f"warning: {self.warning}")
        if self.uncounted:
            out.append(f"not counted (no count, no content): {', '.join(self.uncounted)}")
        if self.chunked:
            out.append(f"counted in chunks (may be off by a few tokens): {', '.join(self.chunked)}")
        return out


def breakdown(trace: RequestTrace) -> Breakdown:
    """The :class:`Breakdown` of ``trace``'s retained items by its endpoint's profile."""
    enc = trace.endpoint.encoding if trace.endpoint.encoding in available_encodings() else None
    res = resolve(trace.endpoint.model, enc, "recorded on the trace")
    prof = res.profile
    counter = Counter(prof, res.encoding)
    content: dict[Category, int] = {}
    framing, overhead, tools, uncounted, chunked = prof.framing.reply_priming, 0, 0, [], []
    for it in trace.retained:
        cat = category_of(it, trace)
        if it.tokens is not None:
            n = it.tokens
        elif it.content is not None:
            n = content_tokens(it.content, res.encoding, it.is_tool_definition and prof.tools.definition == "lines")
            if len(it.content) > CHUNK_CHARS:
                chunked.append(it.id)
        else:
            uncounted.append(it.id)
            continue
        content[cat] = content.get(cat, 0) + n
        fn = definition_of(it.content) if it.is_tool_definition else None
        if fn is not None:
            overhead += count_tool(counter, *fn).overhead
            tools += 1
        else:
            role = it.role or {Kind.POLICY: "system", Kind.TOOL: "tool"}.get(it.kind, "user")
            framing += prof.framing.tokens_per_message + counter.text(role)
    if tools:
        overhead += prof.tools.func_end
    order = [c for c in CATEGORY_ORDER if c in content] + [c for c in content if c not in CATEGORY_ORDER]
    return Breakdown({c: content[c] for c in order}, framing, overhead, res, reported_input(trace),
                     tuple(uncounted), tuple(chunked))

