"""The prompt-injection scanner: instruction-like text in untrusted items (chapter 3.5).

Families of rules (one module each, listed in :data:`.registry.BUILTIN`) find spans of text
addressed to the model inside data: overrides of earlier instructions or of the output
(:mod:`.override`, :mod:`.multilingual`), chat-template and role markers (:mod:`.template`),
requests to call tools or send data (:mod:`.tool_request`; sending data to an address or moving money in
German, French, Spanish, Italian, Portuguese and Chinese: :mod:`.multilingual_intent`), invisible text (:mod:`.invisible`),
data-carrying Markdown images and links (:mod:`.exfil`), hidden-from-the-user phrasing
(:mod:`.hidden`), text addressed to the AI (:mod:`.address`), data acting as the principal --
claims to be the user, preconditions on the task, changes to the output (:mod:`.intent`, by
phrase; :mod:`.intent_features`, by addressee, action and principal) -- and
encoded instructions (:mod:`.encoded`). Disguises (zero-width characters, homoglyphs, fullwidth
letters) are taken off first (:mod:`.normalise`). :mod:`.scope` decides which items of a trace are scanned (untrusted data only;
assistant text is labelled, not reported) and turns hits into findings; :mod:`.linkage` ties
untrusted text to proposed tool calls; :mod:`.tool_names` finds data naming the application's tools
as something to call; :mod:`.sinks` reads the response and tool-call arguments
for data leaving (exfiltration images, arguments quoting flagged text); :mod:`.trace_scan` scans one trace, :mod:`.text_scan`
one text outside a trace (``ctxviewer scan``; a JSON file's strings, each with its JSON path and
line, come from :mod:`.json_strings`). The rules' shapes are :mod:`.patterns`; the fast
path over long texts is :mod:`.prefilter`, with the literals every match starts with derived in
:mod:`.start_sets` (the case folding they compare under is :mod:`.case_fold`; the non-ASCII runs it,
the prefilter and normalisation look at are found chunk by chunk: :mod:`.non_ascii`) and shipped as a table
(:mod:`.start_table`), and one regular-expression search
for the patterns whose start literals are common characters (:mod:`.scout`; the scouts led by a few
rare characters share one pass per text: :mod:`.scout_pass`; the hex runs are looked for inside the
base64 scout's runs: :mod:`.run_scouts`); the patterns'
compiled engine code is shipped too (:mod:`.compiled_cache`: no compile on first use), and the start sets the
prefilter learnt and the automata it built are kept in the user's cache folder for the next process (:mod:`.prefilter_memo`). :mod:`.provenance` names the
attack families each pattern was tuned on, for the leave-one-family-out evaluation.

A scan that finds nothing says :data:`CLEAN` -- "no instruction-like text found" -- never
"safe": rules catch kinds of attack, not every attack.

A rule is an object of the :class:`~.patterns.Rule` shape: ``id`` (``"injection.<family>"``),
``title`` (one line for the family) and ``find(text) -> Iterable[Hit]`` (spans in code points;
:class:`~.patterns.PatternRule` builds one from regular expressions). :data:`RULES` (a
:class:`~ctxviewer.util.plugins.PluginRegistry`) holds the built-ins, then rules added with
:func:`register`, then plug-ins of the entry-point group ``ctxviewer.scanner_rules``
(``[project.entry-points."ctxviewer.scanner_rules"] myrule = "mypkg.rules:RULE"``). A new
built-in rule is a module here, listed in :data:`.registry.BUILTIN`; after changing a pattern,
rebuild the prefilter's start-set table and the compiled code (:mod:`.start_table_build`) and give each new pattern
its origin in :mod:`.provenance` (``docs/scanner-families.md``). A rule that raises or a
plug-in that does not load is a problem record in ``RULES.problems``, never a lost scan.

May import: :mod:`ctxviewer.model`, :mod:`ctxviewer.util`; never the checks (the ``injection``
check imports the scanner, not the reverse).

No Qt here.
"""

from __future__ import annotations

from ctxviewer.assess.scanner.patterns import Hit, Rule
from ctxviewer.assess.scanner.registry import RULES, family_titles, register, scan_text

CLEAN = "no instruction-like text found"
"""What a scan with no hit says (never "safe")."""

__all__ = ["CLEAN", "RULES", "Hit", "Rule", "family_titles", "register", "scan_text"]
