"""Tool-call review: every check on each tool call the model proposed (chapter 3.5, Figure 3.3;
Table 3.1 row 5, "unsafe tool proposal").

:func:`review_calls` gives, for each proposed :class:`~ctxviewer.model.trace.ToolCall`, ctxviewer's own
checks followed by the application's recorded ones, and the recorded verdict:

* ``offered`` -- a tool of that name was offered in this request (a retained ``tool`` item whose
  JSON definition has that ``name``, flat or in an OpenAI ``function`` wrapper); undecided
  (``None``) when the trace records no tool definitions at all (a tool-execution span that
  records only ``gen_ai.tool.description`` says so).
* ``arguments_json`` -- the arguments parse as JSON. Arguments cut short (the JSON ends before it
  is complete) are reported as *truncated* and invalid even when ``finish_reason`` claims the
  generation completed; they are never repaired to decide the verdict. Valid JSON that is not an
  object says so in the detail; a JSON string whose text is JSON (the exporter encoded the
  arguments twice, :func:`twice_encoded`) is checked as decoded once, and says so.
* ``arguments_schema`` -- the parsed arguments are valid against the tool's parameters JSON Schema
  (``parameters``, ``input_schema`` or the AI SDK's ``inputSchema``,
  :func:`~ctxviewer.tokens.item_rule.parameters_schema`; validated with ``jsonschema``, the draft
  the schema declares, 2020-12 otherwise). Undecided when there is none: the definition declares
  no schema, or no definition of the tool is recorded (then the schema is unknown, not absent), or
  the source recorded the tool by name only (:func:`name_only`: offered, its schema not recorded).
* ``destructive`` -- no string argument (or argv list joined with spaces) holds a destructive
  pattern: recursive delete, a download piped to a shell, a write to a system path, an SQL
  statement that drops or empties (``DROP TABLE``, ``TRUNCATE``, ``ALTER TABLE ... DROP``, a
  ``DELETE FROM`` or ``UPDATE ... SET`` without ``WHERE``: a statement, not a sentence mentioning
  one) (:data:`DESTRUCTIVE`).
* the application's checks (``allowlist``, ``identity``, ``resource``, ``approval``, ...) as recorded.

No Qt here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterator

from ctxviewer.model.source_notes import TOOLS_BY_NAME_KEY
from ctxviewer.model.trace import RequestTrace, Status, ToolCall, ToolVerdict
from ctxviewer.tokens.item_rule import parameters_schema

DESTRUCTIVE: dict[str, re.Pattern[str]] = {
    "recursive delete": re.compile(
        r"\brm\s+(?:-\w*[rR]\w*|--recursive)\b|\brmdir\s+/s\b|\bdel\s+/[sq]\b|Remove-Item\b.*-Recurse"
        r"|\bshutil\.rmtree\b|\bfind\b.*\s-delete\b", re.IGNORECASE),
    "pipe to shell": re.compile(
        r"\b(?:curl|wget|iwr|Invoke-WebRequest)\b[^|;]*\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b"
        r"|\|\s*(?:sudo\s+)?(?:bash|sh|zsh|python3?|perl)\s*(?:-\s*)?$|\b(?:iex|Invoke-Expression)\b",
        re.IGNORECASE),
    "write to system path": re.compile(
        r"(?:>>?|\btee\s+(?:-a\s+)?|\bof=|\b(?:cp|mv|install|chmod|chown)\s+.*\s)"
        r"\s*(?:/etc|/bin|/sbin|/usr|/boot|/lib|/lib64|/sys|/proc|/dev/sd|/var/lib|C:\\Windows)(?:[/\\]|\b)",
        re.IGNORECASE),
    "destructive SQL": re.compile(  # a statement (at the start, or after ';' or a line break) that drops or empties;
        # it ends at ';' or the end of the text, so a WHERE on a later line still bounds it
        r"(?:\A|[;\n])\s*(?:DROP\s+(?:TABLE|DATABASE|SCHEMA|VIEW|INDEX|USER|ROLE)\b|TRUNCATE\s+TABLE\b"
        r"|TRUNCATE\s+[\w.\"`\[\]]+\s*(?:;|\Z)|ALTER\s+TABLE\s+[^;]*?\bDROP\b"
        r"|DELETE\s+FROM\s+[\w.\"`\[\]]+\s*(?:;|\Z)"
        r"|UPDATE\s+[\w.\"`\[\]]+\s+SET\s+[\w.\"`]+\s*=(?:(?!\bWHERE\b)[^;])*(?:;|\Z))",
        re.IGNORECASE),
}
"""Destructive patterns, by name, searched in each string argument and each joined argv list."""
_SYSTEM_PATH = re.compile(r"^(?:/etc|/bin|/sbin|/usr|/boot|/lib|/lib64|/sys|/proc|/var/lib|C:\\Windows)(?:[/\\]|$)", re.IGNORECASE)
_PATH_KEY = re.compile(r"path|file|dest|target|output", re.IGNORECASE)
_WRITE_TOOL = re.compile(r"write|save|create|put|upload|copy|move|append|edit", re.IGNORECASE)
_SQL_KEYS = frozenset({"sql", "query", "statement", "stmt", "command", "cmd", "script", "code"})
_SQL_TOOLS = frozenset({"sql", "db", "database", "execute", "exec", "run", "shell", "terminal", "bash", "psql",
                        "mysql", "sqlite", "postgres", "postgresql", "duckdb", "bigquery", "snowflake"})
_SEARCH_TOOLS = frozenset({"search", "retrieve", "retrieval", "find", "lookup", "docs", "web", "browse", "rag"})
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SQL_STRING = re.compile(r"'(?:[^']|'')*'")
"""``destructive SQL`` is searched only in an argument whose key, or a call whose tool name, says
it holds a statement -- whole words of the name (``run_sql``, ``executeQuery``; not ``db`` inside
``give_feedback``) -- and ``query`` not for a search tool (``web_search``'s query is a question);
string literals are left out (``SELECT 'a; DROP TABLE x'`` drops nothing). In free text ("Delete
from cart", a document quoted) the same words are no command."""


def _words(name: str) -> set[str]:
    """The lower-case words of an identifier: ``run_sql`` -> {run, sql}, ``executeQuery`` -> {execute, query}."""
    return {w.lower() for w in _WORDS.findall(name or "")}


def _holds_statement(call: ToolCall, key: str) -> bool:
    tool, keys = _words(call.name), _words(key)
    if tool & _SQL_TOOLS:
        return True
    return bool(keys & _SQL_KEYS) and not (keys <= {"query"} and tool & _SEARCH_TOOLS)


@dataclass(frozen=True)
class CallCheck:
    """One check on one proposed call."""

    name: str
    """``offered``, ``arguments_json``, ``arguments_schema``, ``destructive`` or the application's check name."""
    passed: bool | None
    """Outcome; ``None`` when it could not be decided (or the application did not record it)."""
    detail: str
    """What was found, in words."""
    source: str
    """``"ctxviewer"`` (computed from the trace) or ``"application"`` (recorded by the app)."""
    field: str | None = None
    """Dotted trace field of a recorded check (``tool_calls[0].checks[2]``); ``None`` for ours."""


@dataclass(frozen=True)
class ToolCallReview:
    """The review of one proposed call."""

    index: int
    """0-based index in ``trace.tool_calls``."""
    ref: str
    """The call's id, or ``"#N"`` when it has none (as in :class:`~ctxviewer.model.findings.Evidence`)."""
    call: ToolCall
    """The call as proposed."""
    tool_item_id: str | None
    """The retained tool item that offered the tool; ``None`` if it was not offered."""
    checks: tuple[CallCheck, ...]
    """ctxviewer's checks, then the application's."""

    @property
    def failed(self) -> tuple[CallCheck, ...]:
        """The checks that did not pass."""
        return tuple(c for c in self.checks if c.passed is False)

    @property
    def verdict(self) -> ToolVerdict | None:
        """The application's recorded verdict."""
        return self.call.verdict


def tool_definitions(trace: RequestTrace) -> dict[str, tuple[str, dict[str, Any]]]:
    """Tool name -> (item id, definition object) for every retained tool item that parses."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for item in trace.items:
        if not item.is_tool_definition or item.status is not Status.RETAINED or not item.content:
            continue
        try:
            d = json.loads(item.content)
        except ValueError:
            continue
        if isinstance(d, dict) and isinstance(d.get("function"), dict):
            d = d["function"]
        if isinstance(d, dict) and isinstance(d.get("name"), str):
            out.setdefault(d["name"], (item.id, d))
    return out


def _truncated(text: str, exc: json.JSONDecodeError) -> bool:
    return exc.pos >= len(text.rstrip()) or "Unterminated" in exc.msg


def _strings(value: Any) -> Iterator[tuple[str, str]]:
    """(key, text) of every string leaf, and of every list of strings joined with spaces (argv)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str):
                yield str(k), v
            else:
                for kk, s in _strings(v):
                    yield kk or str(k), s
    elif isinstance(value, list):
        if value and all(isinstance(v, str) for v in value):
            yield "", " ".join(value)
        for v in value:
            yield from _strings(v)
    elif isinstance(value, str):
        yield "", value


def destructive_patterns(call: ToolCall, args: Any) -> list[str]:
    """Names of the :data:`DESTRUCTIVE` patterns found in the call's arguments (string and argv
    forms; the raw string when the arguments are not JSON), plus ``write to system path`` for a
    path-like argument under a system directory of a tool whose name says it writes."""
    found: list[str] = []
    leaves = list(_strings(args)) if args is not None else [("", call.arguments or "")]
    for key, text in leaves:
        for name, pattern in DESTRUCTIVE.items():
            if name == "destructive SQL":
                if name in found or not _holds_statement(call, key):
                    continue
                if pattern.search(_SQL_STRING.sub("''", text)):
                    found.append(name)
                continue
            if pattern.search(text) and name not in found:
                found.append(name)
        if (_PATH_KEY.search(key) and _SYSTEM_PATH.match(text) and _WRITE_TOOL.search(call.name)
                and "write to system path" not in found):
            found.append("write to system path")
    return found


def review_call(trace: RequestTrace, index: int, defs: dict[str, tuple[str, dict[str, Any]]] | None = None) -> ToolCallReview:
    """The review of ``trace.tool_calls[index]`` (see the module docstring)."""
    call = trace.tool_calls[index]
    defs = tool_definitions(trace) if defs is None else defs
    item_id, definition = defs.get(call.name, (None, None))
    described = isinstance(trace.attributes.get("gen_ai.tool.description"), str)
    if definition is not None:
        by_name = f" {NAME_ONLY}" if name_only(trace, call.name) else ""
        offered = CallCheck("offered", True, f"{call.name} offered by item {item_id}{by_name}", "ctxviewer")
    elif not any(i.is_tool_definition for i in trace.items):
        offered = CallCheck("offered", None, NO_DEFINITIONS_DESCRIBED if described else NO_DEFINITIONS,
                            "ctxviewer")
    else:
        offered = CallCheck("offered", False, f"{call.name} was not offered in this request", "ctxviewer")
    checks = [offered]
    args: Any = None
    if call.arguments is None:
        checks.append(CallCheck("arguments_json", None, "arguments not recorded", "ctxviewer"))
    else:
        try:
            args = json.loads(call.arguments)
            inner = twice_encoded(args)
            if inner is not None:  # the exporter encoded the arguments twice: checked as decoded once
                args, detail = inner, "arguments are a JSON string encoding JSON (encoded twice); decoded once"
            elif isinstance(args, dict):
                detail = "arguments are valid JSON"
            else:
                detail = f"arguments are valid JSON, but {json_kind(args)}, not an object"
            checks.append(CallCheck("arguments_json", True, detail, "ctxviewer"))
        except json.JSONDecodeError as exc:
            finish = trace.response.finish_reason if trace.response else None
            if _truncated(call.arguments, exc):
                detail = (f"arguments are truncated JSON ({exc.msg} at character {exc.pos} of "
                          f"{len(call.arguments)}); invalid although finish_reason is {finish or 'not recorded'}")
            else:
                detail = f"arguments are not valid JSON: {exc.msg} at character {exc.pos}"
            checks.append(CallCheck("arguments_json", False, detail, "ctxviewer"))
    schema = parameters_schema(definition) if definition else None
    if args is not None and isinstance(schema, dict):
        import jsonschema  # when a call has a schema to check (start-up)

        try:
            cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
            cls.check_schema(schema)
            errors = sorted(cls(schema).iter_errors(args), key=lambda e: list(e.absolute_path))
        except jsonschema.SchemaError as exc:
            checks.append(CallCheck("arguments_schema", None, f"the tool's schema is invalid: {exc.message}", "ctxviewer"))
        else:
            detail = ("arguments match the tool's parameter schema" if not errors else "; ".join(
                f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:3]))
            checks.append(CallCheck("arguments_schema", not errors, detail, "ctxviewer"))
    elif args is not None:
        checks.append(CallCheck("arguments_schema", None, _no_schema(call, definition, offered, described), "ctxviewer"))
    bad = destructive_patterns(call, args)
    checks.append(CallCheck("destructive", not bad, ("destructive: " + ", ".join(bad)) if bad
                            else "no destructive pattern", "ctxviewer"))
    for n, c in enumerate(call.checks):
        checks.append(CallCheck(c.check, c.passed, c.detail or c.rule or "no detail recorded", "application",
                                f"tool_calls[{index}].checks[{n}]"))
    return ToolCallReview(index, call.id or f"#{index}", call, item_id, tuple(checks))


NO_DEFINITIONS = "the trace records no tool definitions"
"""The ``offered`` detail when no tool definition is recorded at all."""
NO_DEFINITIONS_DESCRIBED = ("the trace records the tool's description only (gen_ai.tool.description), "
                            "not a definition offered in a request")
"""The ``offered`` detail of a tool-execution span that records the tool's description and no definition."""


NAME_ONLY = "(by name only: its schema is not recorded)"
"""The end of the ``offered`` detail for a tool recorded by its name alone."""


def name_only(trace: RequestTrace, name: str) -> bool:
    """Whether the source recorded the tool ``name`` by its name only
    (:data:`~ctxviewer.model.source_notes.TOOLS_BY_NAME_KEY`: Mastra's list of tool names), so its
    description and schema are not recorded -- not absent."""
    named = trace.attributes.get(TOOLS_BY_NAME_KEY)
    return isinstance(named, (list, tuple)) and name in named


def _no_schema(call: ToolCall, definition: dict[str, Any] | None, offered: CallCheck, described: bool) -> str:
    """The ``arguments_schema`` detail when there is no schema to check against: the definition
    declares none, or no definition of the tool is recorded (which says nothing of its schema)."""
    if definition is not None and offered.detail.endswith(NAME_ONLY):
        return f"{call.name} is recorded by name only: its schema is not recorded, the arguments cannot be checked"
    if definition is not None:
        return "the tool declares no parameter schema"
    if offered.passed is False:
        return f"no definition of {call.name} in this request: the arguments cannot be checked against a schema"
    if described:
        return ("no tool definition recorded (only its description): "
                "the arguments cannot be checked against a schema")
    return "no tool definition recorded: the arguments cannot be checked against a schema"


def twice_encoded(value: Any) -> Any | None:
    """The object or array a JSON string value encodes (tool-call arguments an exporter encoded
    twice: ``"{\\"city\\": \\"Paris\\"}"``), else ``None``."""
    if not isinstance(value, str) or value.strip()[:1] not in ("{", "["):
        return None
    try:
        inner = json.loads(value)
    except ValueError:
        return None
    return inner if isinstance(inner, (dict, list)) else None


def json_kind(value: Any) -> str:
    """``"a JSON string"``, ``"a JSON number"``, ``"a JSON array"``, ``"JSON true"``, ``"JSON null"``..."""
    if isinstance(value, str):
        return "a JSON string"
    if isinstance(value, bool) or value is None:
        return f"JSON {json.dumps(value)}"
    return "a JSON number" if isinstance(value, (int, float)) else "a JSON array"


def review_calls(trace: RequestTrace) -> tuple[ToolCallReview, ...]:
    """One :class:`ToolCallReview` per proposed call, in order."""
    defs = tool_definitions(trace)
    return tuple(review_call(trace, n, defs) for n in range(len(trace.tool_calls)))
