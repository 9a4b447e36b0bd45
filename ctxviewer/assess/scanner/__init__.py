"""The prompt-injection scanner: instruction-like text in untrusted items (chapter 3.5).

Families of rules (one module each, registered in :mod:`.registry`) find spans of text addressed
to the model inside data: overrides of earlier instructions or of the output
(:mod:`.override`, :mod:`.multilingual`), chat-template and role markers (:mod:`.template`),
requests to call tools or send data (:mod:`.tool_request`), invisible text (:mod:`.invisible`),
data-carrying Markdown images and links (:mod:`.exfil`), hidden-from-the-user phrasing
(:mod:`.hidden`), text addressed to the AI (:mod:`.address`) and encoded instructions
(:mod:`.encoded`). :mod:`.scope` decides which items of a trace are scanned (untrusted data only;
assistant text is labelled, not reported) and turns hits into findings; :mod:`.linkage` ties
untrusted text to proposed tool calls.

A scan that finds nothing says :data:`CLEAN` -- "no instruction-like text found" -- never
"safe": rules catch kinds of attack, not every attack.

No Qt here.
"""

from __future__ import annotations

from ctxviewer.assess.scanner.patterns import Hit, Rule
from ctxviewer.assess.scanner.registry import RULES, family_titles, register, scan_text

CLEAN = "no instruction-like text found"
"""What a scan with no hit says (never "safe")."""

__all__ = ["CLEAN", "RULES", "Hit", "Rule", "family_titles", "register", "scan_text"]
