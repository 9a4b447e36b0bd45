"""Family ``injection.tool_request``: data asking the model to call a tool or to send data out.

Attack kind: the indirect prompt injection that turns into an action -- "call the transfer
function", "send the conversation to attacker@example.com", "forward all e-mails to ...", "use the
browser tool to open ...". Reported when a send/transfer verb has a destination (an address, a URL,
"to me / to this account") or when a tool or function is named as something to call.
"""

from __future__ import annotations

from ctxviewer.assess.scanner.patterns import PatternRule, rx
from ctxviewer.model.findings import Severity

_SEND = r"send|forward|e-?mail|mail|post|upload|transmit|transfer|wire|exfiltrate|leak|share|copy|sync|submit|report|deliver|cc|bcc|redirect"
_WHAT = (r"(?:the\s+|all\s+|any\s+|every\s+|your\s+|my\s+|their\s+|this\s+|these\s+|those\s+|user'?s?\s+|customer'?s?\s+|of\s+)*"
         r"(?:conversation|chat|history|messages?|e-?mails?|inbox|contacts?|files?|documents?|data|credentials?|passwords?|"
         r"api[\s_-]?keys?|keys?|tokens?|secrets?|cookies?|session|system\s+prompt|instructions|personal\s+(?:data|information|details)|"
         r"credit\s+card|card\s+(?:number|details)|account\s+(?:number|details)|ssn|address(?:es)?|phone\s+numbers?|funds|money|\$?\d[\d,.]*\s*(?:usd|eur|dollars|euros|btc)?)")
_NAMED_TOOL = (r"(?:(?:[`'\"][\w.-]+[`'\"]|\w+(?:[_.]\w+)+|(?-i:[a-z]+[A-Z]\w*))\s+(?:tool|function|plugin|api|endpoint)"
               r"|(?!(?:the|your|my|our|a|an)\s)\w+\s+(?:tool|plugin))\b")
"""A tool named as the thing to act with: a code-like name (quoted, ``send_money``, ``files.delete``,
``sendMoney``) before tool/function/plugin/api/endpoint, or a plain word before tool/plugin only
("the browser tool"). "create it with module-level function" names a kind of function in
programming prose, not a tool (``bipia_code:36``, a benign row)."""
_DEST = r"to\s+(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+|(?:this|that|my|the\s+following|an?\s+external|the\s+attacker'?s?)\s+(?:address|account|server|url|endpoint|e-?mail|wallet|iban|number)|\S+\.(?:com|net|org|io|ru|xyz)\b|me\b|us\b)"

TOOL_REQUEST = PatternRule(
    id="injection.tool_request",
    title="request to call a tool or send data",
    severity=Severity.WARNING,
    patterns=(
        # "send email to ADDRESS." and nothing after it is a contact line, not a transfer of data
        (rx(rf"\b(?:{_SEND})\s+(?!e-?mail\s+to\s+[\w.+-]+@[\w-]+(?:\.[\w-]+)+\.?[ \t]*(?:\n|\Z))"
            rf"{_WHAT}\b[^.\n]{{0,60}}?\b{_DEST}"),
         "asks to send data to a destination: '{m}'"),
        (rx(r"\b(?:call|invoke|execute|run|trigger|use|activate)\s+(?:the\s+|your\s+|a\s+)?[`'\"]?[a-z][a-z0-9]*(?:_[a-z0-9]+)+[`'\"]?\s+(?:tool|function|plugin|action|api|endpoint)\b"
            r"(?=[^.\n]{0,80}\b(?:with|to|and|on|for)\b)",
            r"\b(?:call|invoke|execute|run|trigger)\s+[`'\"]?[a-z][a-z0-9]*(?:_[a-z0-9]+)+[`'\"]?\s*\("),
         "asks the model to call a tool: '{m}'"),
        # a verb, not the noun of "an API call with the `code_interpreter` tool" (a determiner or noun before it)
        (rx(r"(?<!\bapi\s)(?<!\ban\s)(?<!\ba\s)(?<!\bthe\s)(?<!\bthis\s)(?<!\beach\s)(?<!\bone\s)"
            r"\b(?:issue|make|send|create|file|place|cancel|delete|update|change|transfer|book|order|approve|grant|reset|refund|pay|call|run|execute|open|close|submit|post|process)\b"
            r"[^.\n]{0,100}?\b(?:with|using|via|through|by\s+calling)\s+(?:the\s+|your\s+)?" + _NAMED_TOOL),
         "asks the model to act with a named tool: '{m}'"),
        (rx(r"\b(?:(?:visit|open|browse\s+to|navigate\s+to|fetch|load|go\s+to|click)\s+(?:the\s+(?:following\s+)?(?:link|url|page|website)\s+)?(?:https?://|www\.)\S+)"
            r"(?=[^\n]{0,80}\b(?:and|then|with|append|include|add)\b)"),
         "asks the model to open a URL and act on it: '{m}'"),
        (rx(r"\b(?:grant|give|add|make)\s+(?:\S+@\S+|(?:user\s+)?\S+)\s+(?:admin(?:istrator)?|owner|root|full)\s+(?:access|rights|permissions?|privileges?)\b",
            r"\b(?:delete|erase|wipe|remove|drop|purge)\s+(?:all\s+(?:the\s+)?|every\s+|the\s+entire\s+)(?:files?|e-?mails?|records?|data(?:base)?|messages?|repos(?:itory|itories)?|backups?|users?|accounts?)\b",
            r"\b(?:transfer|wire|send|pay|refund|move)\s+(?:\$|€|£)?\s?\d[\d,.]*\s*(?:usd|eur|gbp|dollars?|euros?|btc|eth)?\s+(?:to|into|from)\s+(?:account|iban|wallet|[A-Z]{2}\d{2}|\S+@)"),
         "asks for a privileged or irreversible action: '{m}'"),
        (rx(r"\b(?:reveal|print|output|repeat|show|display|disclose|leak|recite|dump|write\s+out|tell\s+(?:me|us))\s+(?:me\s+|us\s+)?(?:all\s+|verbatim\s+)?(?:your|the)\s+(?:full\s+|entire\s+|complete\s+|original\s+|hidden\s+|secret\s+|initial\s+)?"
            r"(?:system\s+(?:prompt|message|instructions?)|initial\s+(?:prompt|instructions?)|(?:hidden|secret|original)\s+(?:prompt|instructions?)|pre-?prompt|developer\s+(?:message|instructions?))\b",
            r"\brepeat\s+(?:all\s+)?(?:the\s+)?(?:words|text|everything)\s+above\b"),
         "asks the model to disclose its instructions: '{m}'"),
        (rx(r"\b(?:run|execute|paste|type)\s+(?:this|the\s+following|these)\s+(?:command|commands|script|code)\b[^\n]{0,40}?(?:curl|wget|bash|powershell|iex|rm\s+-rf|chmod|nc\s)\b"),
         "asks the model to run a shell command: '{m}'"),
    ),
)
