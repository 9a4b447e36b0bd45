"""Score rules: whether an answer is right, by a rule the user writes.

* ``contains:"gift cards cannot be refunded"`` -- the answer holds the text (case-insensitive,
  runs of white space matched as one space);
* ``regex:"\\bNW-\\d{7}\\b"`` -- Python :mod:`re` search in the answer;
* ``json:decision.refund=false`` -- the answer (or the first ``{...}`` object in it) is JSON whose
  dotted field equals the value (read as JSON: ``false``, ``42``, ``"text"``; else as a string);
* ``exact:"Yes"`` -- the answer, stripped, is exactly the text.

The argument may be written in double quotes (removed; ``\\"`` stands for a quote, every other
character is taken as written, so a regex keeps its backslashes) or bare.
:func:`parse_rule` raises ``ValueError`` naming what is wrong. No Qt here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

RULE_KINDS = ("contains", "regex", "json", "exact")


@dataclass(frozen=True)
class ScoreRule:
    """A parsed rule: its kind, argument, and for ``json`` the field path and expected value."""

    kind: str
    argument: str
    text: str

    def score(self, answer: str | None) -> bool:
        """Whether ``answer`` (``None``: no text) is right by this rule."""
        if answer is None:
            return False
        if self.kind == "contains":
            return _norm(self.argument) in _norm(answer)
        if self.kind == "exact":
            return answer.strip() == self.argument
        if self.kind == "regex":
            return re.search(self.argument, answer) is not None
        path, _, want = self.argument.partition("=")
        value: Any = _json_of(answer)
        for key in path.strip().split("."):
            if isinstance(value, dict) and key in value:
                value = value[key]
            elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
                value = value[int(key)]
            else:
                return False
        return bool(value == _value(want.strip()))


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _json_of(answer: str) -> Any:
    try:
        return json.loads(answer)
    except ValueError:
        pass
    start = answer.find("{")
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(answer[start:])[0]
    except ValueError:
        return None


def parse_rule(text: str) -> ScoreRule:
    """The :class:`ScoreRule` of ``text`` (module docstring). Raises ``ValueError``."""
    kind, sep, arg = text.partition(":")
    kind = kind.strip()
    if not sep or kind not in RULE_KINDS:
        raise ValueError(f"score rule {text!r}: expected KIND:ARGUMENT with KIND one of {', '.join(RULE_KINDS)}")
    arg = arg.strip()
    if arg.startswith('"'):
        if len(arg) < 2 or not arg.endswith('"'):
            raise ValueError(f"score rule {text!r}: the quoted argument has no closing quote")
        arg = arg[1:-1].replace('\\"', '"')
    if not arg:
        raise ValueError(f"score rule {text!r}: the argument is empty")
    if kind == "regex":
        try:
            re.compile(arg)
        except re.error as exc:
            raise ValueError(f"score rule {text!r}: not a valid regular expression ({exc})") from None
    if kind == "json" and ("=" not in arg or not arg.partition("=")[0].strip()):
        raise ValueError(f"score rule {text!r}: expected json:FIELD.PATH=VALUE")
    if kind == "json" and any(not step.strip() for step in arg.partition("=")[0].split(".")):
        # a path with an empty step matches no answer: every run would score 0 in silence
        raise ValueError(f"score rule {text!r}: the path {arg.partition('=')[0]!r} has an empty step "
                         "(FIELD.PATH is names joined by single dots: json:answer.amount=42)")
    return ScoreRule(kind, arg, text)
