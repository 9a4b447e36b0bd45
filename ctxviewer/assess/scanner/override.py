"""Family ``injection.override``: text that tells the model to drop earlier instructions or to
change its output (English; other languages in :mod:`.multilingual`).

Attack kind: an instruction smuggled into data that countermands the application's instructions
("ignore the above and ..."), installs new ones ("your new task is ..."), or dictates the answer's
content or form ("modify your response to ...", "reply only with ..."). Benign documents do use
"ignore" and "your reply"; the patterns therefore want an object that is the model's instructions
or its answer, or an imperative addressed to whoever produces "your response".
"""

from __future__ import annotations

from ctxviewer.assess.scanner.patterns import PatternRule, rx
from ctxviewer.model.findings import Severity

_IGNORE = r"ignore|disregard|forget|overlook|neglect|dismiss|bypass|override|skip|set aside|throw out|abandon"
_PRIOR = r"previous|prior|above|earlier|preceding|foregoing|original|initial|former|old|existing|system|given|provided|other|negative|all"
_OBJ = (
    r"instructions?|directions?|directives?|prompts?|rules?|guidelines?|guidance|context|commands?|orders?|"
    r"tasks?|constraints?|restrictions?|programming|training|policy|policies|safeguards?|filters?|"
    r"function|code|document|text|content|resume|article|email|e-mail|message|data|input|info(?:rmation)?|web\s*page|page|website|site|table|"
    r"conversation|question|query|request|indicators?|everything|anything"
)
_CORRESPONDENCE = r"e-?mails?|messages?|mails?|letters?|questions?|quer(?:y|ies)|requests?"
"""Objects people drop in ordinary mail ("please ignore my previous email"): they count after
"above"/"preceding"/"system", or when an instruction follows ("... and say ..."), not after "previous"."""
_DET = r"(?:(?:all|any|the|your|my|these|those|this|of|every|each|that|what(?:ever)?|you(?:'ve| have)? (?:been )?(?:told|given|read|seen))\s+)*"
_ANSWER = r"(?:response|reply|replies|answer|output|summary|message|translation|result|completion)s?"
_TO_MODEL_VERBS = (
    # verbs that change what the answer says (the injection's goal), not its style: "begin your
    # response with", "structure your answer" are how users write prompts and are not reported
    r"modify|change|alter|translate|render|rewrite|conclude|include|integrate|incorporate|add|append|prepend|"
    r"insert|embed|encode|encrypt|obfuscate|reverse|scramble|cipher|emphasi[sz]e|highlight|mention|promote|advertise|"
    r"recommend|apply|convert|fill|pepper|sprinkle|infuse|weave|inject|replace|substitute|corrupt|"
    r"misspell|mislead|falsify|distort"
)

OVERRIDE = PatternRule(
    id="injection.override",
    title="override of earlier instructions or of the output, addressed to the model",
    severity=Severity.WARNING,
    patterns=(
        (rx(rf"\b(?:{_IGNORE})\s+{_DET}(?:(?:{_PRIOR})\s+(?:(?:and|or|&)\s+(?:following|subsequent|later)\s+)?){{1,2}}"
            rf"(?!{_CORRESPONDENCE}\b)(?:{_OBJ})\b",
            rf"\b(?:{_IGNORE})\s+{_DET}(?:above|preceding|foregoing|system)\s+(?:{_CORRESPONDENCE})\b"),
         "tells the model to drop earlier instructions or data: '{m}'"),
        (rx(rf"\b(?:{_IGNORE})\s+{_DET}(?:{_OBJ}|above|preceding|foregoing)\b[^.\n]{{0,40}}?\b(?:and|then|instead|but)\s+(?:instead\s+|just\s+|simply\s+|only\s+)?"
            r"(?:say|state|output|print|write|respond|reply|answer|tell|report|claim|return|declare|insist|assert|indicate|mention|repeat)"),
         "tells the model to disregard its input and say something else: '{m}'"),
        (rx(r"\byour\s+(?:new|real|actual|true|updated|revised|only|primary|next)\s+(?:instructions?|task|goal|objective|mission|directive|role|purpose)\s+(?:is|are)\s+now\b",
            r"\byour\s+(?:new|real|actual|true|updated|revised|only|primary|next)\s+(?:instructions?|task|objective|mission|directive)\s*(?:(?:is|are)\s*)?:",
            r"\bthe\s+(?:new|real|actual|true|updated|revised)\s+(?:instructions|directives)\s+(?:are|follow)\s*:",
            r"\b(?:new|updated|revised|override|overriding|additional|important|urgent|secret|hidden)\s+(?:system\s+)?(?:instructions?|directives?|commands?)\s*:",
            r"\bfrom\s+now\s+on,?\s+(?:you|your|the\s+(?:assistant|model|ai))\b",
            r"\b(?:stop|cease|halt)\s+(?:what\s+you\s+are\s+doing|your\s+(?:current\s+)?task|(?:the|your)\s+(?:summary|summari[sz]ation|translation))\b"),
         "installs new instructions for the model: '{m}'"),
        (rx(rf"(?:^\s*+|(?<=[.!?:;>#*\"'\u201c(|-])\s*+|(?<=\n)[ \t]*+)(?:(?:please|kindly|now|also|and|then|always|subtly|secretly|discreetly|quietly|in\s+addition|additionally|finally|lastly|moreover),?\s+)*"
            rf"(?:{_TO_MODEL_VERBS})\b[^.\n]{{0,80}}?\b(?:your|the\s+assistant's|the\s+model's)\s+(?:final\s+|next\s+|entire\s+|whole\s+)?{_ANSWER}\b"),
         "dictates the model's answer: '{m}'"),
        (rx(r"(?:^\s*+|(?<=[.!?:;>#*\"'\u201c(|])\s*+|(?<=\n)[ \t]*+)(?:(?:please|kindly|now|also|always|from\s+now\s+on),?\s+)*(?:reply|respond|answer|write|output|print|speak|communicate|converse)"
            r"\s+(?:only\s+|exclusively\s+|solely\s+|entirely\s+|strictly\s+)?(?:in\s+(?:reverse|backwards?|(?:all\s+)?(?:caps|capitals|upper\s*case|lower\s*case|emojis?|pig\s+latin|morse|base64|hex|binary|leetspeak|rhymes?|verse)|[A-Z][a-z]+(?:ese|ish|ian|ch|an|ic)\b)|using\s+(?:only\s+)?(?:emojis?|a\s+cipher|caesar|base64|morse|rot13)|with\s+(?:only|just|nothing\s+but|exactly)\b|backwards)"),
         "dictates the form of the model's answer: '{m}'"),
        (rx(r"\b(?:reply|respond|answer|output|print|say|return)\s+(?:with\s+)?(?:only|just|exclusively|solely)\s+(?:the\s+following|this|these\s+words|with)\b",
            r"\b(?:and\s+)?(?:absolutely\s+)?nothing\s+else\b[^.\n]{0,40}\b(?:reply|respond|answer|output|print|say)",
            r"\b(?:reply|respond|answer|output|print|say|return)\b[^.\n]{0,60}\b(?:and\s+)?(?:absolutely\s+)?nothing\s+else\b",
            r"\byou\s+(?:may|must|shall|can)\s*(?:not|never)\s+deviate\b",
            # an imperative only where a clause begins: "modifications do not deviate from the guidelines" states a fact
            r"(?:^\s*+|(?<=[.!?:;>#*\"'\u201c(|-])\s*+|(?<=\n)[ \t]*+)(?:(?:please|and|so|now|also|just),?\s+)*do\s+not\s+deviate\s+from\s+th",
            r"\bdo\s*n[o']t\s+(?:evaluate|summari[sz]e|analy[sz]e|assess|review|read|check|verify|question|mention|reveal|disclose)\s+(?:the|this|that|any)\s+(?:candidate|document|text|content|email|resume|article|data|instructions?)\b"),
         "restricts what the model may answer: '{m}'"),
        (rx(r"(?:^\s*+|(?<=[.!?:;#*\"'(])\s*+|(?<=\n)[ \t]*+)(?:and\s+|then\s+|instead,?\s+|just\s+|simply\s+|only\s+)*(?:state|say|claim|assert|declare|insist|report|tell\s+(?:the\s+)?(?:user|reader|them|everyone|anyone))\s+that\b",
            r"\b(?:and|then|instead)\s+(?:just\s+|simply\s+|only\s+)?(?:state|say|claim|declare|insist|report)\s+(?:that\s+)?the\s+(?:output|answer|result|capital|conclusion|sum|total|value|price|domain|candidate)\b"),
         "tells the model what to assert: '{m}'"),
        (rx(r"\bif\s+(?:(?:the\s+|a\s+|any\s+)?(?:user|users|anyone|someone|somebody|reader|human|assistant|ai|llm|model|bot)|(?:you(?:'re|\s+are|\s+get|\s+were)\s+)?(?:questioned|asked|prompted|queried))\b"
            r"[^.\n]{0,60}?\b(?:asks?|asked|questions?|questioned|quer(?:y|ies|ied)|requests?|requested|prompts?|prompted|wants?|inquires?|inquired)\b"
            r"[^.\n]{0,100}?\b(?:reply|respond|answer|say|state|report|output|tell|write|print|return|mention|recommend|claim|insist)\b"),
         "a conditional instruction for whoever answers the user: '{m}'"),
        (rx(r"\b(?:if|when(?:ever)?)\s+(?:you\s+are\s+|you're\s+|ever\s+)?(?:questioned|asked|prompted|queried|challenged)\b[^.\n]{0,60}?\b(?:reply|respond|answer|say|state|report|tell|claim|insist|confirm)\b",
            r"\boverride\s+(?:the\s+|all\s+|any\s+|your\s+)?(?:manual\s+|previous\s+|existing\s+|normal\s+)?\w+\s+(?:and|then)\s+(?:output|say|respond|reply|print|return|state|report)\b"),
         "a conditional instruction for whoever answers the user: '{m}'"),
        (rx(r"\bwhen(?:ever)?\s+(?:you|the\s+assistant|the\s+model|an?\s+(?:ai|llm|assistant|model))\s+(?:summari[sz]e|answer|respond|reply|translate|read|process|describe|review|evaluate)s?\b"
            r"[^.\n]{0,80}?,?\s+(?:always|also|you\s+must|you\s+should|make\s+sure|be\s+sure|remember)\s+(?:to\s+)?(?:include|add|mention|say|state|tell|recommend|insert|append|end|begin|claim|describe)\b"),
         "an instruction for when the model processes this text: '{m}'"),
    ),
)
