"""Action linkage: proposed tool calls whose arguments come from untrusted data (chapter 3.5).

The signal only a trace viewer has. For each proposed tool call, every argument value that can
name something to act on -- an e-mail address, a URL, a path, an account or record id, an amount
-- is looked up in the trace's items. A value found in an untrusted (scanned) item and in no
trusted input (the policy, the user's request and turns) was put there by the data, not by the
user: a ``injection.action_linkage`` finding, linked to the item (the span where the value
appears) and to the call (Table 3.1 row 5, "unsafe tool proposal").

What counts as a traceable value follows its meaning, not only its shape: a number is an *amount*
only where the argument names one (``amount``, ``price``, ``total``, ... or a money-shaped text
``349.00``); a number under any other name (``element_id=884``) is an id. And an id or a path
that a tool's own output returned (a tool result, role ``tool``: an accessibility-tree element, a
row id, a file name from a listing) used as the next call's argument is the normal agent loop,
not data steering the action: only e-mail addresses, accounts and amounts are traced into tool
results, and URLs only into a tool result the scanner flagged (a browser agent following a link, or
opening the password-reset link of the e-mail it read, is the loop; a link next to an injection is
not); every kind is traced into documents, memory and other untrusted data.

Severity by what the application did with the call: ``blocked`` -> ``warning`` (it was stopped),
``needs_approval`` or not recorded -> ``failure``, ``permitted`` -> ``failure``, and ``critical``
when the call was permitted although untrusted text in the same request was flagged by the
scanner (the call was proposed right after it). A permitted call after flagged text whose
arguments are not linked is still ``critical`` (``injection.permitted_after_flag``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterator

from ctxviewer.assess.scanner.scope import ItemScan, Scope, item_label
from ctxviewer.model.findings import Evidence, Finding, Severity, TextSpan
from ctxviewer.model.table31 import row
from ctxviewer.model.trace import RequestTrace, ToolCall, ToolVerdict

_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
_URL = re.compile(r"^(?:https?|ftp|file|s3)://\S+$", re.IGNORECASE)
_PATH = re.compile(r"^(?:~|\.{1,2})?[/\\][\w.\-/\\ ]+$|^[A-Za-z]:\\")
_ID = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[\w.:#/-]{4,}$|^\d{5,}$")
_IBAN = re.compile(r"^[A-Z]{2}\d{2}[A-Z0-9 ]{10,30}$")
_AMOUNT_KEY = re.compile(r"(?:^|[_.\-\[\]]|(?<=[a-z])(?=[A-Z]))(?i:amount|amt|price|total|sum|cost|fee|value|"
                         r"balance|payment|refund|credit|debit|charge|transfer|quantity|qty)(?:$|[_.\-\[\]]|s$|(?=[A-Z]))")
"""Argument names that hold an amount (``amount``, ``refund_amount``, ``totalPrice``, ``items[0].qty``)."""
LOOP_KINDS = frozenset({"id", "path"})
"""Kinds of value a tool's own output may hand to the next call (the agent loop): not linkage."""


@dataclass(frozen=True)
class Argument:
    """One argument value worth tracing: its JSON path, what kind of thing it names, and the
    text forms it may take in an item (``349.0`` -> ``"349.00"``, ``"349"``...)."""

    path: str
    kind: str
    forms: tuple[str, ...]


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path, value


def arguments(call: ToolCall) -> list[Argument]:
    """The traceable argument values of ``call`` (unparseable arguments: the e-mails and URLs in
    the raw text). Booleans, short words and small integers are not traceable and are skipped."""
    try:
        parsed = json.loads(call.arguments or "{}")
    except (json.JSONDecodeError, TypeError):
        raw = call.arguments or ""
        parsed = {f"raw{i}": v for i, v in enumerate(re.findall(r"[\w.+-]+@[\w-]+\.[\w.-]+|https?://\S+", raw))}
    out: list[Argument] = []
    for path, v in _leaves(parsed):
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, (int, float)):
            if abs(v) < 10:
                continue
            if not _AMOUNT_KEY.search(path.rsplit(".", 1)[-1]):  # element_id=884, row=1203: an id, not money
                if float(v).is_integer() and abs(v) >= 10_000:
                    out.append(Argument(path, "id", (str(int(v)),)))
                continue
            forms = {f"{v:.2f}", f"{v:,.2f}"} | ({str(int(v)), f"{int(v):,}"} if float(v).is_integer() else {str(v)})
            out.append(Argument(path, "amount", tuple(sorted(forms, key=len, reverse=True))))
            continue
        s = str(v).strip()
        for kind, pattern in (("e-mail", _EMAIL), ("URL", _URL), ("path", _PATH), ("account", _IBAN), ("id", _ID)):
            if pattern.match(s):
                out.append(Argument(path, kind, (s,)))
                break
        else:
            if re.fullmatch(r"\d+[.,]\d{2}", s):
                out.append(Argument(path, "amount", (s,)))
    return out


def _find(text: str, forms: tuple[str, ...]) -> tuple[int, int] | None:
    for form in forms:
        m = re.search(rf"(?<![\w.]){re.escape(form)}(?![\w]|\.\d)", text, re.IGNORECASE)
        if m:
            return m.start(), m.end()
    return None


def call_ref(call: ToolCall, index: int) -> str:
    """How evidence names a call: its ``id``, or ``"#N"`` (0-based) when it has none."""
    return call.id or f"#{index}"


def link_calls(trace: RequestTrace, scans: list[ItemScan]) -> list[Finding]:
    """The linkage findings of ``trace`` given its item scans (see the module docstring)."""
    untrusted = [s for s in scans if s.scope is Scope.UNTRUSTED]
    trusted_text = [s.item.content or "" for s in scans if s.scope in (Scope.TRUSTED, Scope.PRINCIPAL)]
    trusted_text.append(trace.user_request or "")
    flagged = [s for s in untrusted if any(h.severity.rank >= Severity.WARNING.rank for h in s.hits)]
    table = row(5)
    out: list[Finding] = []
    for n, call in enumerate(trace.tool_calls):
        ref = call_ref(call, n)
        linked: list[tuple[Argument, ItemScan, tuple[int, int]]] = []
        for arg in arguments(call):
            if any(_find(t, arg.forms) for t in trusted_text):
                continue
            for s in untrusted:
                if (s.item.role or "").lower() == "tool" and (arg.kind in LOOP_KINDS or (
                        arg.kind == "URL" and s not in flagged)):
                    continue  # a tool's own output handing an id, a path or a link to the next call: the agent loop
                span = _find(s.item.content or "", arg.forms)
                if span:
                    linked.append((arg, s, span))
        permitted = call.verdict is ToolVerdict.PERMITTED
        after_flag = bool(flagged)
        if linked:
            sev, what = _severity(call.verdict, after_flag)
            names = ", ".join(dict.fromkeys(  # "amount amount='349.00'" said its kind twice
                f"{a.path}={a.forms[0]!r}" if a.path.rsplit(".", 1)[-1] == a.kind else f"{a.kind} {a.path}={a.forms[0]!r}"
                for a, _, _ in linked))
            items = ", ".join(dict.fromkeys(item_label(s.item) for _, s, _ in linked))
            out.append(Finding(
                rule="injection.action_linkage",
                severity=sev,
                message=f"{call.name} call {ref}: {names} appears in untrusted {items} and in no trusted input; {what}",
                evidence=Evidence(
                    item_ids=tuple(dict.fromkeys(s.item.id for _, s, _ in linked)),
                    positions=tuple(dict.fromkeys(s.item.position for _, s, _ in linked if s.item.position is not None)),
                    fields=(f"tool_calls[{n}].arguments", f"tool_calls[{n}].verdict"),
                    spans=tuple(dict.fromkeys(TextSpan(s.item.id, a, b) for _, s, (a, b) in linked)),
                    tool_call_ids=(ref,),
                ),
                table_row=5, first_evidence=table.first_evidence, repair=table.repair,
            ))
        elif permitted and after_flag:
            out.append(Finding(
                rule="injection.permitted_after_flag",
                severity=Severity.CRITICAL,
                message=f"{call.name} call {ref} was permitted, proposed right after flagged untrusted text in "
                        + ", ".join(item_label(s.item) for s in flagged),
                evidence=Evidence(item_ids=tuple(s.item.id for s in flagged), fields=(f"tool_calls[{n}].verdict",),
                                  tool_call_ids=(ref,)),
                table_row=5, first_evidence=table.first_evidence, repair=table.repair,
            ))
    return out


def _severity(verdict: ToolVerdict | None, after_flag: bool) -> tuple[Severity, str]:
    if verdict is ToolVerdict.BLOCKED:
        return Severity.WARNING, "the application blocked the call"
    if verdict is ToolVerdict.NEEDS_APPROVAL:
        return Severity.FAILURE, "the call waits for approval"
    if verdict is ToolVerdict.PERMITTED:
        if after_flag:
            return Severity.CRITICAL, "the application permitted it right after flagged untrusted text"
        return Severity.FAILURE, "the application permitted it"
    return Severity.FAILURE, "the application's verdict on the call is not recorded"


def linked_calls(findings: list[Finding]) -> dict[str, tuple[str, ...]]:
    """Item id -> the refs of calls whose arguments came from that item (from linkage findings)."""
    out: dict[str, tuple[str, ...]] = {}
    for f in findings:
        if f.rule == "injection.action_linkage":
            for item_id in f.evidence.item_ids:
                out[item_id] = tuple(dict.fromkeys(out.get(item_id, ()) + f.evidence.tool_call_ids))
    return out
