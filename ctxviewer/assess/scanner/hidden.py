"""Family ``injection.hidden``: phrasing that hides an instruction or an action from the user.

Attack kind: the injected text asks the model to act behind the user's back ("do not tell the
user", "without informing them", "secretly add ...") or hides itself from the human reader while
addressing machines ("hidden text for automated screening systems", HTML comments and CSS that
make text invisible: ``display:none``, ``font-size:0``, white-on-white -- when the hidden element
holds five words or more, not a tracking pixel or an empty widget). An HTML comment counts
when it speaks to the model in English, carries a link, or holds ten words of prose in any
language -- licence and copyright headers excepted.
"""

from __future__ import annotations

from ctxviewer.assess.scanner.patterns import PatternRule, rx
from ctxviewer.model.findings import Severity

_WHO = r"(?:the\s+)?(?:user|users|customer|client|human|recipient|reader|requester|person|anyone|anybody|them|him|her|operator|admin(?:istrator)?)"

HIDDEN = PatternRule(
    id="injection.hidden",
    title="phrasing that hides an instruction or action from the user",
    severity=Severity.WARNING,
    patterns=(
        (rx(rf"\b(?:do\s*n[o']t|never|must\s+not|should\s+not)\s+(?:tell|inform|notify|alert|mention\s+(?:this|it|that)\s+to|reveal\s+(?:this|it)\s+to|show\s+(?:this|it)\s+to|let)\s+{_WHO}\b",
            rf"\bwithout\s+(?:telling|informing|notifying|alerting|asking|letting|the\s+knowledge\s+of)\s+{_WHO}\b",
            r"\b(?:do\s*n[o']t|never)\s+(?:mention|reveal|disclose|acknowledge|reference|show|display|include)\s+(?:these|this|the(?:se)?)\s+(?:instructions?|message|note|text|request|step|comment)\b",
            rf"\b(?:keep\s+(?:this|these\s+instructions|this\s+instruction|this\s+message)\s+(?:secret|hidden|between\s+us)\s+from|{_WHO}\s+(?:must|should|need)\s*(?:not|n't)\s+(?:know|see|notice|find\s+out|be\s+told))\b"),
         "asks to keep something from the user: '{m}'"),
        (rx(r"\b(?:do\s*n[o']t|never|no\s+need\s+to)\s+(?:ask|wait|check)\s+(?:for|with)\s+(?:(?:the|a|any|their|user'?s?|customer'?s?)\s+)?(?:confirmation|approval|permission|consent|verification|authori[sz]ation)\b",
            r"\bwithout\s+(?:asking\s+for|waiting\s+for|requiring|requesting|seeking)\s+(?:(?:the|a|any|their)\s+)?(?:confirmation|approval|permission|consent|verification|authori[sz]ation)\b",
            r"\b(?:has|have)\s+already\s+been\s+(?:approved|authori[sz]ed|verified|confirmed)\s+by\s+(?:a|the|your)\s+(?:supervisor|manager|admin(?:istrator)?|owner|security\s+team|developer)s?\b"),
         "asks the model to skip a confirmation or claims an approval it cannot show: '{m}'"),
        (rx(r"\b(?:secretly|silently|quietly|covertly|discreetly|invisibly|stealthily)\s+(?:send|add|include|insert|append|forward|call|invoke|run|execute|transfer|change|modify|embed|copy|email|mention|recommend|promote)\b",
            r"\bhidden\s+(?:instructions?|directives?|prompt|message|text|note|competency\s+profile|section|command)s?\s+(?:for|to)\b",
            r"\b(?:for|to)\s+(?:automated|ai|llm|machine)\s+(?:screening\s+|parsing\s+|reading\s+)?(?:systems?|readers?|agents?|assistants?|parsers?|models?|tools?)\s+only\b",
            r"\b(?:invisible|not\s+visible|hidden)\s+to\s+(?:the\s+)?(?:humans?|users?|readers?|reviewers?|recruiters?)\b"),
         "hides text or actions from the human reader: '{m}'"),
        (rx(r"<!--(?:(?!-->)[\s\S]){0,300}?\b(?:ignore|instructions?|assistant|you\s+(?:must|should|will)|ai|llm|model|respond|reply|say)\b(?:(?!-->)[\s\S]){0,300}?-->",
            r"<[a-z]+[^>]*\bstyle\s*=\s*[\"'][^\"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|pt|em)?\s*[;\"']|color\s*:\s*(?:#fff(?:fff)?|white)\b[^\"']*background(?:-color)?\s*:\s*(?:#fff(?:fff)?|white)|opacity\s*:\s*0(?:\.0+)?\s*[;\"'])[^>]*>"
            r"(?=\s*(?:[^\s<>]+\s+){4,}[^\s<>])"),
         "text hidden from the reader by markup: '{m}'"),
        (rx(r"<!\s*--(?!(?:(?!-->)[\s\S]){0,800}?(?:licen[cs]|copyright|\(c\)|©|generated\s+by|spdx))"
            r"(?:(?:(?!-->)[\s\S]){0,400}?(?:https?://|<a\s)(?:(?!-->)[\s\S]){0,400}?|\s*(?:[^\s<>-]+\s+){9,}(?:(?!-->)[^<>]){0,400})-->"),
         "an HTML comment (not shown to the reader) carrying prose or a link: '{m}'"),
    ),
)
