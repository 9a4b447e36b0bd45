"""Redaction of traces before they leave the team: fields removed, secrets masked, every change listed.

``ctxviewer export DB --redact RULES -o FILE`` writes a copy of the traces with

* **fields removed** -- dotted paths of the native trace shape (:func:`ctxviewer.model.serialize.trace_to_dict`):
  ``user_id``, ``session_id``, ``attributes.user.email``; a removed field reads "not recorded", and
  its value is masked wherever else the trace writes it (``[user_id removed]`` in an item's text
  or the kept request body);
* **text masked** in every string of the trace (item content, user request, serialized request,
  response, tool-call arguments, attribute values): e-mail addresses (``[email]``), API keys and
  bearer tokens (``[api-key]``), and custom regular expressions with their own mask.

RULES is a TOML file (``[redact]`` table; see :func:`load_rules`) or a comma-separated list of the
built-in rule names :data:`BUILTIN` (``user-ids,emails,api-keys``). :func:`redact` returns the
redacted trace and one :class:`Redaction` per changed field; each redacted trace records the
changed fields in ``request.redacted_fields`` with ``request.exact_replay = False``, which the
viewer's Request pane and ``ctxviewer show`` word as "exact replay impossible: fields X, Y
redacted" (:mod:`ctxviewer.present.request_body`). Stored text is never changed: redaction works on a copy.
No Qt here.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ctxviewer.model.serialize import trace_from_dict, trace_to_dict
from ctxviewer.model.trace import RequestTrace

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
"""An e-mail address (RFC 5322's common form)."""
API_KEY = re.compile(
    r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_-]{35})\b|(?i:bearer)\s+[A-Za-z0-9._~+/-]{20,}=*"
)
"""API keys and tokens by their published prefixes (OpenAI/Anthropic ``sk-``, AWS ``AKIA``, GitHub
``ghp_``..., Slack ``xox?-``, Google ``AIza``) and ``Bearer`` authorization values."""


@dataclass(frozen=True)
class Pattern:
    """One masking rule: every match of ``regex`` in any text becomes ``mask``."""

    name: str
    """Shown in the list of redactions (``"e-mail address"``)."""
    regex: re.Pattern[str]
    mask: str


@dataclass(frozen=True)
class Rules:
    """What to redact (see the module docstring)."""

    fields: tuple[str, ...] = ()
    """Dotted paths to remove (``user_id``, ``attributes.user.email``)."""
    patterns: tuple[Pattern, ...] = ()
    """Masks applied to every string of the trace, in order."""


BUILTIN: dict[str, Rules] = {
    "user-ids": Rules(fields=("user_id", "session_id")),
    "emails": Rules(patterns=(Pattern("e-mail address", EMAIL, "[email]"),)),
    "api-keys": Rules(patterns=(Pattern("API key", API_KEY, "[api-key]"),)),
}
"""Built-in rule sets by name, for ``--redact user-ids,emails,api-keys``."""


class RulesError(ValueError):
    """RULES cannot be read: not a file or known names, bad TOML, a bad regular expression."""


def load_rules(spec: str) -> Rules:
    """The rules named by ``spec``: a TOML file path, or comma-separated :data:`BUILTIN` names.

    TOML shape::

        [redact]
        fields = ["user_id", "attributes.customer.email"]   # removed
        builtin = ["emails", "api-keys"]                     # any of BUILTIN
        [[redact.pattern]]
        name = "order number"
        regex = "order \\\\d{4,}"
        mask = "[order]"

    Raises :class:`RulesError` naming the problem.
    """
    path = Path(spec)
    if path.is_file():
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError as exc:
            raise RulesError(f"{spec}: cannot read redaction rules: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise RulesError(f"{spec}: cannot read redaction rules: {exc}") from None
        table = doc.get("redact")
        if not isinstance(table, dict):
            raise RulesError(f"{spec}: no [redact] table")
        names = _strings(table, "builtin", spec, f"rule names ({', '.join(BUILTIN)})")
        unknown = [n for n in names if n not in BUILTIN]
        if unknown:
            raise RulesError(f"{spec}: redact.builtin: {unknown[0]!r} is not a built-in rule ({', '.join(BUILTIN)})")
        rules = _combine([BUILTIN[n] for n in names])
        fields = _strings(table, "fields", spec, "dotted field paths (user_id, attributes.user.email)")
        return _combine([rules, Rules(fields, _patterns(table.get("pattern", []), spec))])
    if path.suffix.lower() in (".toml", ".txt", ".json") or "/" in spec or path.exists():  # meant as a file
        raise RulesError(f"{spec}: no such file" if not path.exists() else f"{spec}: not a file")
    return _combine([_builtin(name.strip(), spec) for name in spec.split(",") if name.strip()])


def _strings(table: dict[str, Any], key: str, spec: str, what: str) -> tuple[str, ...]:
    """``redact.KEY`` as a tuple of strings (absent: empty). Raises :class:`RulesError` naming the
    key, what it holds and what it should hold (``redact.fields = 5``)."""
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RulesError(f"{spec}: redact.{key} must be a list of {what}, like [\"...\"], not {value!r}")
    return tuple(value)


def _patterns(value: Any, spec: str) -> tuple[Pattern, ...]:
    """The ``[[redact.pattern]]`` tables as :class:`Pattern` s. Raises :class:`RulesError` naming
    the pattern (``redact.pattern[0]``) and what is wrong with it."""
    if not isinstance(value, list):
        raise RulesError(f"{spec}: redact.pattern must be tables ([[redact.pattern]] with name, regex, mask), "
                         f"not {value!r}")
    out = []
    for i, p in enumerate(value):
        where = f"{spec}: redact.pattern[{i}]"
        if not isinstance(p, dict):
            raise RulesError(f"{where} must be a table ([[redact.pattern]] with name, regex, mask), not {p!r}")
        regex, name, mask = p.get("regex"), p.get("name", f"pattern {i + 1}"), p.get("mask", "[redacted]")
        if not isinstance(regex, str) or not regex:
            raise RulesError(f"{where}: needs regex = \"...\" (a regular expression), not {regex!r}")
        if not isinstance(name, str) or not isinstance(mask, str):
            raise RulesError(f"{where}: name and mask must be strings")
        try:
            compiled = re.compile(regex)
        except re.error as exc:
            raise RulesError(f"{where}: regex {regex!r} is not a regular expression: {exc}") from None
        out.append(Pattern(name or f"pattern {i + 1}", compiled, mask))
    return tuple(out)


def _builtin(name: str, spec: str) -> Rules:
    try:
        return BUILTIN[name]
    except KeyError:
        raise RulesError(f"{spec}: not a rules file, and {name!r} is not a built-in rule "
                         f"({', '.join(BUILTIN)})") from None


def _combine(parts: list[Rules]) -> Rules:
    fields: list[str] = []
    patterns: list[Pattern] = []
    for r in parts:
        fields += [f for f in r.fields if f not in fields]
        patterns += [p for p in r.patterns if p not in patterns]
    return Rules(tuple(fields), tuple(patterns))


@dataclass(frozen=True)
class Redaction:
    """One changed field of one trace."""

    trace_id: str
    path: str
    """Dotted path in the native shape (``items[3].content``, ``user_id``)."""
    what: str
    """``"removed"`` or ``"2 e-mail address(es) masked"``."""

    def __str__(self) -> str:
        return f"trace {self.trace_id}: {self.path}: {self.what}"


@dataclass
class _Walk:
    rules: Rules
    trace_id: str
    found: list[Redaction] = field(default_factory=list)

    def text(self, s: str, path: str) -> str:
        counts: list[str] = []
        for p in self.rules.patterns:
            s, n = p.regex.subn(p.mask, s)
            if n:
                counts.append(f"{n} {p.name}(s) masked")
        if counts:
            self.found.append(Redaction(self.trace_id, path, ", ".join(counts)))
        return s

    def value(self, v: Any, path: str) -> Any:
        if isinstance(v, str):
            return self.text(v, path)
        if isinstance(v, dict):
            return {k: self.value(x, f"{path}.{k}" if path else str(k)) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x, f"{path}[{i}]") for i, x in enumerate(v)]
        return v


_NOTHING = object()

MIN_VALUE_CHARS = 3
"""A removed field's value shorter than this is not looked for elsewhere (``1``, ``ok`` would mask
ordinary words); longer values are masked wherever the trace writes them."""


def _remove(d: dict[str, Any], dotted: str) -> Any:
    """Delete ``dotted`` from ``d`` (keys may themselves hold dots: ``attributes.user.email`` finds
    the key ``user.email`` of ``attributes``). Returns the removed value, or ``_NOTHING``."""
    if dotted in d:
        if d[dotted] is None:
            return _NOTHING
        return d.pop(dotted)
    head, _, rest = dotted.partition(".")
    while rest:
        if isinstance(d.get(head), dict):
            got = _remove(d[head], rest)
            if got is not _NOTHING:
                return got
        more, _, rest = rest.partition(".")
        head = f"{head}.{more}"
    return _NOTHING


def _value_patterns(removed: dict[str, Any]) -> tuple[Pattern, ...]:
    """Masks for the removed fields' values wherever else the trace writes them (an item's text,
    the kept request body, an attribute): ``cust-20417`` in evidence after ``user_id`` was removed.
    Only string and integer values of at least :data:`MIN_VALUE_CHARS` characters, as whole tokens
    (not inside a longer word or id)."""
    out = []
    for path, value in removed.items():
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            continue
        text = str(value).strip()
        if len(text) < MIN_VALUE_CHARS:
            continue
        out.append(Pattern(f"{path} value", re.compile(rf"(?<![\w-]){re.escape(text)}(?![\w-])"), f"[{path} removed]"))
    return tuple(out)


def redact(trace: RequestTrace, rules: Rules) -> tuple[RequestTrace, list[Redaction]]:
    """``trace`` with ``rules`` applied (fields removed first, then every string masked: each removed
    field's value wherever else it is written (:func:`_value_patterns`) after the rules' masks) and
    the redactions made, in field order. A trace with redactions records their paths in
    ``request.redacted_fields`` (added to those it had) and ``request.exact_replay = False``;
    an untouched trace is returned as it was."""
    d = trace_to_dict(trace)
    removed: dict[str, Any] = {}
    found: list[Redaction] = []
    for f in rules.fields:
        value = _remove(d, f)
        if value is not _NOTHING:
            removed[f] = value
            found.append(Redaction(trace.trace_id, f, "removed"))
    # a removed value is masked wherever else the trace writes it, after the rules' own masks
    walk = _Walk(replace(rules, patterns=(*rules.patterns, *_value_patterns(removed))), trace.trace_id, found)
    d = walk.value(d, "")
    if not walk.found:
        return trace, []
    out = trace_from_dict(d)
    fields = tuple(dict.fromkeys([*trace.request.redacted_fields, *(r.path for r in walk.found)]))
    sha = out.request.sha256 if out.request.content == trace.request.content else None  # the body changed
    return replace(out, request=replace(out.request, redacted_fields=fields, exact_replay=False, sha256=sha)), walk.found
