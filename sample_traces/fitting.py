"""Content loading and exact token fitting for the sample traces.

Prose lives in ``content/*.md`` as blocks that start with a header line ``@@ <id> <meta...>``; the
text up to the next header is the block's body. :func:`fit` trims a body so that its token count
under the recorded encoding is exactly a target (the chapter's numbers are exact).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ctxviewer.tokens.counting import count_tokens

CONTENT = Path(__file__).resolve().parent / "content"
ENCODING = "cl100k_base"


def ntok(text: str) -> int:
    """Token count of ``text`` under the samples' encoding (cl100k_base)."""
    return count_tokens(text, ENCODING)


@dataclass(frozen=True)
class Block:
    """One block of a content file: id, the rest of the header line, and the body text."""

    id: str
    meta: str
    text: str


def load_blocks(name: str) -> dict[str, Block]:
    """Blocks of ``content/<name>.md`` keyed by id, in file order. Bodies are stripped."""
    raw = (CONTENT / f"{name}.md").read_text(encoding="utf-8")
    blocks: dict[str, Block] = {}
    current: list[str] | None = None
    head = ("", "")
    for line in raw.splitlines():
        if line.startswith("@@ "):
            if current is not None:
                blocks[head[0]] = Block(head[0], head[1], "\n".join(current).strip())
            parts = line[3:].strip().split(None, 1)
            head = (parts[0], parts[1] if len(parts) > 1 else "")
            if head[0] in blocks:
                raise ValueError(f"{name}.md: duplicate block id {head[0]!r}")
            current = []
        elif current is not None:
            current.append(line)
    if current is not None:
        blocks[head[0]] = Block(head[0], head[1], "\n".join(current).strip())
    return blocks


_UNIT = re.compile(r"(.+?(?:[.!?][\"')\]]*(?=\s)|(?=\n)|$))(\s*)", re.S)


def _units(text: str) -> list[tuple[str, str]]:
    """Split ``text`` into sentence-like units ``(sentence, following whitespace)``."""
    units = [(m.group(1), m.group(2)) for m in _UNIT.finditer(text) if m.group(0)]
    assert "".join(a + b for a, b in units) == text, "unit split lost text"
    return units


def _join(units: list[tuple[str, str]], drop: frozenset[int] = frozenset()) -> str:
    out: list[str] = []
    for k, (sentence, ws) in enumerate(units):
        if k in drop:
            if out and "\n" in ws:
                out[-1] = out[-1].rstrip(" ") + ws
            continue
        out.append(sentence + ws)
    return "".join(out).rstrip()


_OPTIONAL = re.compile(r"«(.*?)»", re.S)


def plain(text: str) -> str:
    """``text`` with every optional phrase ``«...»`` kept (markers removed)."""
    return _OPTIONAL.sub(lambda m: m.group(1), text)


def _resolve(text: str, drop: frozenset[int]) -> str:
    """``text`` with the optional phrases numbered in ``drop`` left out, the others kept."""
    counter = itertools.count()
    out = _OPTIONAL.sub(lambda m: "" if next(counter) in drop else m.group(1), text)
    out = re.sub(r" +\n", "\n", re.sub(r" {2,}", " ", out))
    return out.replace(" ,", ",").replace(" .", ".").strip()


def fit(
    text: str,
    target: int,
    render: Callable[[str], str] = lambda s: s,
    *,
    allow_drop: bool = True,
) -> str:
    """Trim ``text`` so that ``ntok(render(result)) == target`` exactly and return ``render(result)``.

    Tries, in order: leaving out some of the optional phrases marked ``«...»`` (fewest first); a prefix of whole sentences; (with ``allow_drop``) such a prefix with one or
    two sentences left out (never the first sentence of a paragraph, so headings and lead
    sentences stay); a sentence prefix extended word by word. Raises ``ValueError`` when ``text``
    is too short or no cut lands exactly.
    """
    def n(s: str) -> int:
        return ntok(render(s))

    opts = _OPTIONAL.findall(text)
    for r in range(len(opts) + 1):
        for drop in itertools.combinations(range(len(opts)), r):
            s = _resolve(text, frozenset(drop))
            if n(s) == target:
                return render(s)
    text = plain(text)
    if n(text.strip()) < target:
        raise ValueError(f"text too short: {n(text.strip())} < {target} tokens: {text[:60]!r}")
    units = _units(text.strip())
    for e in range(len(units), 0, -1):
        s = _join(units[:e])
        if n(s) == target:
            return render(s)
    if allow_drop:
        for e in range(len(units), 1, -1):
            if n(_join(units[:e])) > target + 80:
                continue
            droppable = [j for j in range(e - 1, 0, -1) if "\n" not in units[j - 1][1]]
            for j in droppable:
                s = _join(units[:e], frozenset({j}))
                if n(s) == target:
                    return render(s)
            for a in droppable:
                for b in droppable:
                    if b < a:
                        s = _join(units[:e], frozenset({a, b}))
                        if n(s) == target:
                            return render(s)
    for e in range(len(units) - 1, -1, -1):
        base = _join(units[:e]) + (units[e - 1][1] if e else "")
        if n(base.rstrip()) >= target:
            continue
        words = units[e][0].split(" ")
        for k in range(1, len(words) + 1):
            s = (base + " ".join(words[:k])).rstrip()
            got = n(s)
            if got == target:
                return render(s)
            if got > target:
                break
    raise ValueError(f"no cut of {text[:60]!r} has exactly {target} tokens")


def fit_group(texts: list[str], total: int, render: Callable[[str], str] = lambda s: s, **kw) -> list[str]:
    """Render ``texts`` so that their token counts sum to ``total``; only the last one is trimmed."""
    head = [render(plain(t)) for t in texts[:-1]]
    rest = total - sum(ntok(h) for h in head)
    out = head + [fit(texts[-1], rest, render, **kw)]
    assert sum(ntok(t) for t in out) == total
    return out
