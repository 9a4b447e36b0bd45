"""Where each built-in scanner pattern came from: the labelled-set families it was written or
tuned on, so an evaluation can leave a family out (``benchmarks/bench_scanner.py
--leave-one-family-out``) and measure the scanner on attacks it was never tuned to.

A *family* is one public benchmark's attacks in the labelled injection file (:data:`FAMILIES`,
:func:`family_of`): ASB, BIPIA text attacks (bare and inserted into e-mails and tables), BIPIA
code attacks, CyberSecEval prompt injection in English and machine-translated, garak's latent
injections, PromptInject, system-prompt extraction and DAN. :data:`PROVENANCE` names, for every
pattern of every built-in rule (keyed by :func:`pattern_keys`: ``"<module>.<NAME>"`` or
``"<module>.<NAME>[i]"`` for the i-th pattern of a :class:`~.patterns.PatternRule`), the families
whose rows carry its phrasing -- judged from the rows it matches and the change that added it;
a pattern matching a family's rows counts as tuned on it unless its phrasing is a stock one
published before those benchmarks (``general``: "ignore previous instructions", chat-template
tokens, Unicode tag smuggling, Markdown-image exfiltration). Helper patterns that only refine
another pattern's match (``helper``) are never switched off.

:func:`held_out` switches off, within a block, every pattern tuned on the given families
(``strict`` also the general ones): the prefilter's :func:`~.prefilter.finditer` then yields
no match for them. ``docs/scanner-families.md`` is the same table in words.
"""

from __future__ import annotations

import importlib
import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from ctxviewer.assess.scanner import prefilter
from ctxviewer.assess.scanner.patterns import LazyPattern, Pattern, PatternRule

ASB, BIPIA_TEXT, BIPIA_CODE = "asb", "bipia_text", "bipia_code"
CSE_EN, CSE_ML = "cyberseceval_en", "cyberseceval_multilingual"
LATENT, PROMPTINJECT, SYSPROMPT, DAN = "garak_latent", "garak_promptinject", "garak_sysprompt_extraction", "garak_dan"

FAMILIES: dict[str, str] = {
    ASB: "Agent Security Bench observation-injection goals (bare, no wrapper)",
    BIPIA_TEXT: "BIPIA text attacks, bare and inserted into BIPIA e-mails and tables",
    BIPIA_CODE: "BIPIA code attacks (bare)",
    CSE_EN: "CyberSecEval prompt injection, English",
    CSE_ML: "CyberSecEval prompt injection, machine-translated into 19 languages",
    LATENT: "garak latent injection (whois, report, resume, fact snippets, jailbreak)",
    PROMPTINJECT: "garak PromptInject goal hijacking and prompt leaking",
    SYSPROMPT: "garak system-prompt extraction",
    DAN: "garak DAN jailbreaks",
    "own_user_message": "written for ctxviewer: poses as the user, a precondition on the task (AgentDojo style)",
    "own_plain_goal": "written for ctxviewer: a plain attacker goal inside data (InjecAgent style)",
    "own_probe_marked": "written for ctxviewer: an extra question that refers to the model's task (SEP style)",
    "own_probe_plain": "written for ctxviewer: a bare extra question inside data (SEP style)",
    "own_format_override": "written for ctxviewer: RAG passages and resumes that countermand the application",
    "own_obfuscated": "written for ctxviewer: overrides behind zero-width, homoglyph, token and encoding disguises",
    "own_fresh_holdout": "written for ctxviewer after the phrase intent rules, then used to write intent_features",
    "own_fresh_holdout2": "written for ctxviewer after intent_features, measured once, never used to change a rule",
}
"""Family name -> what it holds (the labelled file's positive sources, grouped)."""

_SOURCE_FAMILY = {
    "asb_attack": ASB, "bipia_text_attack": BIPIA_TEXT, "bipia_email_injected": BIPIA_TEXT,
    "bipia_table_injected": BIPIA_TEXT, "bipia_code_attack": BIPIA_CODE, "cyberseceval_en": CSE_EN,
    "cyberseceval_multilingual": CSE_ML, "garak_latent": LATENT, "garak_promptinject": PROMPTINJECT,
    "garak_sysprompt_extraction": SYSPROMPT, "garak_dan": DAN,
}


def family_of(row: dict[str, Any]) -> str | None:
    """The family of one labelled row (``source`` field; a new family's rows carry ``family``), or
    ``None`` for a benign row (``label`` 0)."""
    if not row.get("label"):
        return None
    return str(row.get("family") or _SOURCE_FAMILY.get(str(row.get("source")), row.get("source")))


@dataclass(frozen=True)
class Origin:
    """Where one pattern came from."""

    families: tuple[str, ...]
    """Families of :data:`FAMILIES` whose rows it was written or tuned on (empty: none of them)."""
    general: bool = False
    """Stock phrasing known before those benchmarks: kept when its families are held out (not in ``strict``)."""
    helper: bool = False
    """Only refines another pattern's match: never switched off."""
    note: str = ""


_PROVENANCE: dict[str, Origin] = {
    "override.OVERRIDE[0]": Origin((LATENT, CSE_EN, PROMPTINJECT), True, note="ignore previous instructions (stock)"),
    "override.OVERRIDE[1]": Origin((CSE_EN,), note="ignore X and say Y"),
    "override.OVERRIDE[2]": Origin((DAN,), note="new instructions, from now on you"),
    "override.OVERRIDE[3]": Origin((BIPIA_TEXT,), note="verb + your response"),
    "override.OVERRIDE[4]": Origin((BIPIA_TEXT,), note="reply in reverse, in emojis"),
    "override.OVERRIDE[5]": Origin((LATENT,), note="only this, nothing else, do not evaluate the candidate"),
    "override.OVERRIDE[6]": Origin((CSE_EN,), note="state that"),
    "override.OVERRIDE[7]": Origin((LATENT,), note="if the user asks, reply"),
    "override.OVERRIDE[8]": Origin((LATENT,), note="if questioned, report"),
    "override.OVERRIDE[9]": Origin((), note="when you summarise, always mention (an out-of-set probe)"),
    "template._SPECIAL[0]": Origin((LATENT,), True, note="chat-template special tokens (vendor docs)"),
    "template._SPECIAL[1]": Origin(("own_obfuscated",), True, note="any <|word|> special token (<|endofprompt|>)"),
    "template._SPECIAL[2]": Origin((LATENT,), True, note="role tags"),
    "template._SPECIAL[3]": Origin((LATENT,), note="System message: lines"),
    "template._SHOUTED": Origin((LATENT,), note="SYSTEM: inside a line"),
    "template._PSEUDO_TAG": Origin((CSE_EN, CSE_ML), note="<ENTERING ... MODE>"),
    "template._ROLE_LINE": Origin((LATENT,), True, note="alternating transcript lines"),
    "tool_request.TOOL_REQUEST[0]": Origin((), note="send data to a destination"),
    "tool_request.TOOL_REQUEST[1]": Origin((), note="call the x_y tool"),
    "tool_request.TOOL_REQUEST[2]": Origin((), note="act with a named tool"),
    "tool_request.TOOL_REQUEST[3]": Origin((CSE_EN,), note="open a URL and act"),
    "tool_request.TOOL_REQUEST[4]": Origin((CSE_EN,), note="privileged or irreversible action"),
    "tool_request.TOOL_REQUEST[5]": Origin((SYSPROMPT,), note="disclose the system prompt"),
    "tool_request.TOOL_REQUEST[6]": Origin((), note="run this shell command"),
    "invisible.TAGS": Origin((CSE_EN, CSE_ML), True, note="Unicode tag smuggling"),
    "invisible.VARIATION_RUN": Origin((), True),
    "invisible.ZERO_WIDTH": Origin((), helper=True),
    "invisible.ZW_RUN": Origin((), True),
    "invisible.ZW_IN_WORD": Origin((), True),
    "invisible.BIDI": Origin((), True, note="Trojan Source"),
    "invisible.BOM": Origin((), True, note="byte-order mark inside the text (not at its start)"),
    "invisible.ESCAPE": Origin((), True, note="terminal escape sequences (ECMA-48 CSI, OSC)"),
    "invisible._SGR": Origin((), helper=True, note="colour and style (SGR) among the escapes"),
    "exfil._MD_IMAGE": Origin((LATENT,), True, note="Markdown image exfiltration"),
    "exfil._HTML_IMAGE": Origin((), True),
    "exfil._MD_LINK": Origin((LATENT,), note="links with placeholders"),
    "exfil._PLACEHOLDER": Origin((), helper=True),
    "exfil._DATA_PARAM": Origin((), helper=True),
    "exfil._APPEND": Origin((BIPIA_TEXT,), note="put data into a URL"),
    "hidden.HIDDEN[0]": Origin((), note="do not tell the user"),
    "hidden.HIDDEN[1]": Origin((), note="do not ask for confirmation"),
    "hidden.HIDDEN[2]": Origin((LATENT,), note="for automated screening only, hidden profile"),
    "hidden.HIDDEN[3]": Origin((CSE_EN,), note="markup-hidden text"),
    "hidden.HIDDEN[4]": Origin((CSE_EN, CSE_ML), note="HTML comments with prose or links"),
    "address.ADDRESS[0]": Origin((LATENT,), note="note to the AI"),
    "address.ADDRESS[1]": Origin((CSE_EN, DAN), note="I am your developer, developer mode"),
    "address.ADDRESS[2]": Origin((LATENT,), note="pre-verified by management"),
    "address.ADDRESS[3]": Origin((), note="you are now unrestricted"),
    "address.ADDRESS[4]": Origin((CSE_EN,), note="hypothetically the answer is"),
    "intent.INTENT[0]": Origin(("own_user_message",), note="claims to be the user or system, then a request"),
    "intent.INTENT[1]": Origin(("own_user_message", "own_probe_marked"), note="precondition or extra step on the task"),
    "intent.INTENT[2]": Origin(("own_format_override",), note="changes the output's format or recipient"),
    "intent.INTENT[3]": Origin(("own_format_override",), note="stop here and forget what came before"),
    "intent.INTENT[4]": Origin((), note="replaces the user's task (from issue 26's item 2, no family's rows read first)"),
    "intent_features._ANCHOR": Origin(("own_fresh_holdout", "own_user_message"), note="where the features are looked for"),
    "multilingual.MULTILINGUAL[*]": Origin((CSE_ML, CSE_EN), note="19 languages, from the translated rows"),
    "multilingual.MULTILINGUAL_WEAK[*]": Origin((CSE_ML, CSE_EN)),
    "multilingual_intent.MULTILINGUAL_ACTION[*]": Origin(
        (), note="send data to an address, move money to an account, in DE FR ES IT PT ZH (from issue 26's wording, no family's rows read)"),
    "encoded._HEX": Origin((CSE_EN, CSE_ML), note="token smuggling in hex"),
    "encoded._HEX_CHARS": Origin((), helper=True),
    "encoded._B64": Origin((CSE_EN, CSE_ML), note="token smuggling in base64"),
    "encoded._WORDS": Origin((), helper=True),
    "encoded._ROT13_WORD": Origin(("own_obfuscated",), note="rot13 lines the other families flag once decoded"),
    "encoded._BINARY": Origin((CSE_EN, CSE_ML)),
    "encoded._MORSE": Origin((CSE_EN, CSE_ML)),
}

_MODULES = ("override", "template", "tool_request", "invisible", "exfil", "hidden", "address", "intent", "intent_features",
            "multilingual", "multilingual_intent", "encoded")


def pattern_keys(modules: Iterable[str] = ()) -> dict[str, Pattern]:
    """Key -> pattern for every module-level pattern and :class:`~.patterns.PatternRule` pattern
    of the built-in rule modules (or of ``modules``, names under ``ctxviewer.assess.scanner``)."""
    out: dict[str, Pattern] = {}
    for short in modules or _MODULES:
        mod = importlib.import_module(f"ctxviewer.assess.scanner.{short}")
        for name, value in vars(mod).items():
            if isinstance(value, (re.Pattern, LazyPattern)):
                out.setdefault(f"{short}.{name}", value)
            elif isinstance(value, PatternRule):
                for i, (pattern, _reason) in enumerate(value.patterns):
                    out.setdefault(f"{short}.{name}[{i}]", pattern)
    return out


def origin(key: str) -> Origin | None:
    """The :class:`Origin` of a pattern key (an exact entry, else the ``NAME[*]`` one), or ``None``."""
    return _PROVENANCE.get(key) or _PROVENANCE.get(re.sub(r"\[\d+\]$", "[*]", key))


def tuned_on(families: Iterable[str], *, strict: bool = False) -> list[Pattern]:
    """The patterns written or tuned on any of ``families`` (not helpers; general ones only if ``strict``)."""
    wanted = set(families)
    out = []
    for key, pattern in pattern_keys().items():
        o = origin(key)
        if o and not o.helper and (strict or not o.general) and wanted & set(o.families):
            out.append(pattern)
    return out


@contextmanager
def held_out(families: Iterable[str], *, strict: bool = False) -> Iterator[list[Pattern]]:
    """Within the block (this thread), scans run as if ``families`` had never been seen: the
    patterns of :func:`tuned_on` match nothing. Yields those patterns."""
    patterns = tuned_on(families, strict=strict)
    with prefilter.switched_off(patterns):
        yield patterns
