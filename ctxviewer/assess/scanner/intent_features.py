"""Family ``injection.intent`` by features, not phrases: a sentence in data that addresses the
agent, asks it for an action and points at its principal or an outside destination.

The phrase rules (:mod:`.intent`) know how attacks are usually worded; this one asks three
questions of every sentence of untrusted text (at most 400 characters, split at ``.!?`` and line
breaks) and reports it when all three hold:

- *addressee*: it names the agent ("assistant", "agent", "bot", "AI", "language model", "whoever is
  summarising"), or says "you" and invokes the principal (below);
- *action*: it asks for something an agent's tools do -- send, forward, transfer, pay, share,
  export, delete, disable, close, reply to, add to the cart, visit, grant, approve, rate, ...;
- *principal or destination*: it invokes the agent's principal ("the user", "the customer", "the
  person you work for", "the account holder", "your user") or names where data or money goes (an
  e-mail address, a URL, an IBAN, a wallet, an amount). "The user" in a compound noun is not the
  principal ("your account holder statement", "the user interface", "customer support").

"You" with only a destination is how mail speaks to its human reader ("You can wire the $200
deposit to ..."), so it needs the principal; a procedure documented for a human ("Before you
install, update pip") has neither. No Qt here.
"""

from __future__ import annotations

import functools
import re
from typing import Iterator

from ctxviewer.assess.scanner.case_fold import fold
from ctxviewer.assess.scanner.patterns import Hit, LazyPattern
from ctxviewer.assess.scanner.prefilter import finditer
from ctxviewer.assess.scanner.scout import trie
from ctxviewer.assess.scanner.start_sets import start_literals
from ctxviewer.model.findings import Severity

_STOPS = ".!?\n"
MAX_SENTENCE = 400
"""Longer runs without ``.!?`` or a line break are not sentences (tables, code) and are skipped."""
_ANCHOR = LazyPattern(r"\b(?:assistant|agent|bot|chatbot|ai|llm|language\s+model|copilot|whoever|user|customer|human|owner|"
                      r"account\s+holder|shopper|client|principal|person|one|who\s+owns|on\s+behalf)", re.IGNORECASE)
"""Every reported sentence holds one of these (an agent noun or the principal): where to look."""


class Features:
    """The three questions' patterns, searched within one sentence only (class attributes: the
    prefilter, which learns module-level patterns for whole texts, leaves them alone)."""

    you = LazyPattern(r"\b(?:you|your|you're|yourself)\b", re.IGNORECASE)
    agent = LazyPattern(r"\b(?:assistant|agent|bot|chatbot|ai|llm|language\s+model|copilot)\b"
                        r"|\bwhoever\s+is\s+(?:reading|summari[sz]ing|processing|handling)\b", re.IGNORECASE)
    action = LazyPattern(r"\b(?:send|forward|e-?mail|transfer|wire|pay|share|post|upload|export|delete|remove|disable|close|"
                         r"cancel|reply|respond|add|visit|open|click|grant|change|book|buy|order|rate|approve|accept|download|"
                         r"install|invite|subscribe|move|copy|unlock|wipe)\b", re.IGNORECASE)
    principal = LazyPattern(r"\b(?:the|your|this)\s+(?:user|customer|human|owner|account\s+holder|shopper|client|principal)s?\b"
                            r"(?!\s+(?:statement|account|id|name|number|profile|settings|portal|data|agreement|details|"
                            r"records?|manual|guide|interface|experience|base|group|stor(?:y|ies)|journey|research|feedback|"
                            r"support|service|reviews?|satisfaction)\b)"
                            r"|\bthe\s+(?:person|one|human)\s+(?:you(?:'re|\s+are)?\s+)?(?:work(?:ing)?\s+for|help(?:ing)?|"
                            r"assist(?:ing)?|chatting\s+for)\b|\b(?:who\s+owns|on\s+behalf\s+of)\b", re.IGNORECASE)
    destination = LazyPattern(r"[\w.+-]+@[\w-]+\.[\w.-]+|https?://\S+|\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,7}\b|\b0x[0-9a-fA-F]{20,}\b"
                              r"|(?:[$€£]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:usd|eur|gbp|btc|eth|dollars|euros)\b)", re.IGNORECASE)


class IntentFeatures:
    """Sentences with an addressee, an action and a principal or destination (module docstring)."""

    id = "injection.intent"
    title = "data acting as the principal: claims to be the user or system, sets a precondition, changes the output"

    def find(self, text: str) -> Iterator[Hit]:
        """One hit per sentence with all three features (sentences looked at only around an :data:`_ANCHOR`)."""
        done = -1
        for m in finditer(_ANCHOR, text):
            if m.start() < done:
                continue
            start, end = _sentence(text, m.start())
            done = end
            if end - start > MAX_SENTENCE or end - start < 12:
                continue
            hit = self._judge(text, start, end)
            if hit is not None:
                yield hit

    def _judge(self, text: str, start: int, end: int) -> Hit | None:
        s = text[start:end]
        words = _action_literals()
        if words is not None and words.search(fold(s)) is None:  # most sentences name no action
            return None
        act = Features.action.search(s)
        if act is None:
            return None
        agent, principal = Features.agent.search(s), Features.principal.search(s)
        who = agent or (Features.you.search(s) if principal else None)
        why = principal or (Features.destination.search(s) if agent else None)
        if who is None or why is None:
            return None
        while start < end and text[start].isspace():
            start += 1
        return Hit(self.id, start, end, f"speaks to the agent ('{who.group(0)}'), asks for an action ('{act.group(0)}') "
                   f"and points at its principal or a destination ('{why.group(0)[:40]}')", Severity.WARNING)


@functools.cache
def _action_literals() -> re.Pattern[str] | None:
    """A search for the start literals of :attr:`Features.action` (:func:`~.start_sets.start_literals`,
    folded; as a trie, :func:`~.scout.trie`, whose first characters the engine skips to): a sentence
    whose case-folded text (:func:`~.case_fold.fold`) holds none of them has no match of it, so its
    search -- which tries every position -- is skipped, the result the same (91 of 1,652 sentences
    of 2 MB of benign prose hold one; searching the others took 17 ms). ``None``: no such set."""
    starts = start_literals(Features.action)
    if starts is None or any(shift or not lit for lit, shift in starts):
        return None
    return re.compile(trie({lit for lit, _shift in starts}))


def _sentence(text: str, at: int) -> tuple[int, int]:
    """The sentence around ``at``: back to just after the previous ``.!?`` or line break, on to and
    including the next ``.!?`` (a line break ends it too); looks at most :data:`MAX_SENTENCE` + 1
    characters either way."""
    lo = max(0, at - MAX_SENTENCE - 1)
    start = max(lo, *(text.rfind(stop, lo, at) + 1 for stop in _STOPS))  # just after the last stop before at
    hi = min(len(text), at + MAX_SENTENCE + 1)
    end = min((i for i in (text.find(stop, at, hi) for stop in _STOPS) if i >= 0), default=hi)  # the next stop
    if end < len(text) and text[end] in ".!?":
        end += 1
    return start, end


INTENT_FEATURES = IntentFeatures()
