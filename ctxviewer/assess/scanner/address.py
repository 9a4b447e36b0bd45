"""Family ``injection.address``: data that speaks to the AI model reading it, or claims authority.

Attack kind: a document or tool result that addresses its machine reader ("note to the AI
assistant", "if you are an LLM reading this", "dear ChatGPT"), assigns it a persona ("you are now
DAN", "pretend you are ...") or claims to come from its developer or the system ("I'm your
developer and this is a system check", "developer mode enabled").
"""

from __future__ import annotations

from ctxviewer.assess.scanner.patterns import PatternRule, rx
from ctxviewer.model.findings import Severity

_AI = (r"(?:(?:ai|virtual|digital)\s+(?:assistants?|agents?|systems?|models?)|ai|a\.i\.|llms?|large\s+language\s+models?|"
       r"language\s+models?|chat\s*bots?|chatgpt|gpt(?:-?\d\w*)?|claude|gemini|copilot|"
       r"assistants?|bots?|agents?|models?|(?:automated|automatic)\s+(?:\w+\s+)?(?:systems?|tools?|agents?|software|readers?|parsers?))")

_AI_NAMED = (r"(?:(?:ai|virtual|digital)\s+(?:assistants?|agents?|systems?|models?|crawlers?|readers?)|ai|a\.i\.|llms?|"
             r"(?:large\s+)?language\s+models?|chat\s*bots?|chatgpt|gpt(?:-?\d\w*)?|claude|gemini|copilot)")
"""A machine reader named as one: not a bare "agents" or "models" ("Support agents reading this must
escalate" is a knowledge-base line for people)."""

_AGENT_ACTS = (r"(?:run|execute|call|invoke|send|forward|e-?mail|post|upload|fetch|visit|open|download|install|"
               r"delete|remove|transfer|pay|ignore|disregard|forget|reply|respond|say|tell|include|append|output|"
               r"print|reveal|share|click|follow|approve|grant|recommend|rate|rank|stop)")
"""What a text may order its AI reader to do for the obligation pattern: an action on the agent's
tools or task, not "AI agents reading this page should note the opening hours" (an llms.txt line)."""

ADDRESS = PatternRule(
    id="injection.address",
    title="text addressed to the AI model, or claiming its developer's authority",
    severity=Severity.WARNING,
    patterns=(
        (rx(rf"\b(?:note|message|instructions?|memo|reminder|directive|p\.?s\.?)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+|an?\s+)?{_AI}\b",
            r"\b(?:dear|hey|hello|hi|attention|attn:?|to)\s+(?:the\s+)?(?:ai|llm|chatgpt|gpt|claude|gemini|copilot|ai\s+assistant|language\s+model|assistant)\s*[,:!]",
            rf"\bif\s+you\s+are\s+(?:an?\s+|the\s+)?{_AI}\b",
            rf"\b(?:any|all|every)\s+{_AI}\s+(?:reading|processing|parsing|summari[sz]ing|analy[sz]ing|reviewing|seeing)\s+(?:this|these)\b",
            rf"\b(?:dear|hey|hello|hi|attention|attn|calling|note\s+to)\s*:?\s+(?:the\s+|any\s+|all\s+)?{_AI}\s+(?:reading|processing|parsing|summari[sz]ing|analy[sz]ing|reviewing|crawling|browsing|visiting|indexing)\s+(?:this|these)\b",
            r"\b(?:summari[sz]ing|reading|processing|parsing|crawling|indexing)\s+(?:ai\s+|language\s+)?(?:models?|agents?|assistants?|llms?|bots?|tools?)\s+(?:must|should|shall|are\s+(?:required|instructed|asked)\s+to|need\s+to)\s+(?:\w+\s+){0,2}(?:append|add|include|mention|say|state|respond|reply|output|insert|recommend|write|report)\b",
            rf"\b(?:as|you\s+are)\s+an?\s+{_AI}\s+(?:reading|processing|parsing|summari[sz]ing|analy[sz]ing|reviewing)\s+this\b",
            # "AI agents reading this must run ...": the reader addressed, and put under an obligation
            rf"\b{_AI_NAMED}\s+(?:reading|processing|parsing|summari[sz]ing|analy[sz]ing|reviewing|seeing|crawling|browsing|indexing)\s+(?:this|these)\b[^.\n]{{0,20}}?\b(?:must|shall|should|need\s+to|have\s+to|are\s+(?:required|instructed|asked)\s+to)\s+(?:\w+\s+){{0,2}}?{_AGENT_ACTS}\b"),
         "addresses the AI model reading the data: '{m}'"),
        (rx(r"\b(?:i\s*'?\s*a?m|this\s+is|we\s+are)\s+(?:your|the)\s+(?:developers?|creators?|administrators?|admins?|owners?|programmers?|operators?|makers?|system\s+administrators?|openai|anthropic|supervisor)\b(?!\s+of\b)",
            r"\b(?:developer|debug|god|admin|maintenance|override|jailbreak|dan|unrestricted|sudo|root|test)\s+mode\s+(?:is\s+)?(?:on|enabled|activated|engaged)\b|\b(?:enable|enter|activate|switch\s+to)\s+(?:developer|debug|god|admin|maintenance|override|jailbreak|dan|unrestricted|sudo)\s+mode\b",
            r"\b(?:running|performing|this\s+is)\s+an?\s+(?:system|security|diagnostic)\s+(?:check|test|audit|diagnostic)\b[^.\n]{0,80}\b(?:output|print|reply|respond|say|repeat|reveal|show)\b"),
         "claims the authority of the model's developer or system: '{m}'"),
        (rx(r"\bpre-?(?:verified|approved|authori[sz]ed|vetted|cleared|validated)\s+by\s+(?:the\s+|a\s+|our\s+)?(?:senior\s+)?(?:management|supervisors?|admins?|administrators?|security(?:\s+team)?|hr|legal|compliance|the\s+developers?|your\s+developers?)\b"),
         "claims an approval the model cannot check: '{m}'"),
        (rx(r"\byou\s+are\s+(?:now\s+|no\s+longer\s+)(?:free|unrestricted|jailbroken|dan\b|not\s+bound|allowed|in\s+(?:developer|debug|god|admin|unrestricted|jailbreak|dan)\s+mode|bound|restricted|an?\s+(?:unrestricted|unfiltered|uncensored))",
            r"(?:^\s*+|(?<=[.!?:])\s*+|(?<=\n)[ \t]*+)(?:please\s+)?(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)|an?\s+(?:unrestricted|unfiltered|evil|different))",
            r"\b(?:forget|abandon|drop)\s+(?:that\s+)?you\s+are\s+an?\s+(?:ai|assistant|language\s+model)\b"),
         "assigns the model a new persona: '{m}'"),
        (rx(r"\b(?:hypothetically|in\s+a\s+(?:parallel|hypothetical|fictional)\s+(?:universe|world|scenario))\b[^.\n]{0,80}\b(?:the\s+)?(?:output|answer|result|capital|conclusion)\s+(?:could|would|should|is|will)\s+be\b",
            r"\b(?:let'?s|let\s+us|suppose\s+we|imagine\s+we|assume\s+we)\s+(?:were\s+to\s+)?(?:ignore|disregard|forget)\b",
            r"\b(?:let'?s|let\s+us)\s+(?:imagine|pretend|suppose|assume|say)\b[^.\n]{0,40}\b(?:the\s+)?(?:output|answer|result|capital|conclusion|sum|total|price|value)\s+(?:is|are|was|would\s+be|will\s+be|equals)\b",
            r"\bi\s+(?:suggest|advise)\s+(?:you\s+to|that\s+you)\s+(?:consider|treat|regard|say|state|report)\b[^.\n]{0,40}\b(?:output|answer|result)\b"),
         "reframes the task so the model says something the data does not support: '{m}'"),
    ),
)
