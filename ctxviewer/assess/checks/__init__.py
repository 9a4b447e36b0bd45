"""Checks: small plug-ins that each turn a trace into findings (mitmproxy style), in one registry.

What lives here: one module per check (or per Table 3.1 row), each defining ``CHECK``, an object
of the :class:`Check` shape -- an ``id`` (``"policy"``; its findings' rule ids start with it), a
one-line ``title``, and ``run(trace) -> Iterable[Finding]``, a pure function of the trace and the
check config (:mod:`ctxviewer.assess.config`) that returns the
:class:`~ctxviewer.model.findings.Finding` objects it concludes; :mod:`._common` holds helpers
several checks share (the expected policy versions and user marks are :mod:`ctxviewer.assess.config`);
:mod:`.server_state` whether a request leaves its earlier turns with the provider.

The built-ins, in running order: ``policy`` (Table 3.1 row 1), ``capacity`` (eq. 3.1; with
:mod:`.output_limit`, a response cut off at its output limit),
``injection`` (the prompt-injection scanner, Table 3.1 row 5), ``guardrail`` (runtime guardrail
results against the scanner), ``accounting`` (counted vs
reported input, reserve vs C), ``commitments`` (row 2), ``evidence`` (rows 3 and 4),
``json_output``, ``required`` (required items trimmed), ``spans`` (span status), ``tool_calls``
(row 5), ``tool_results`` (orphan tool results), ``truncation`` (content cut by the exporter),
``validations``, ``limits`` (endpoint profiles) and ``plausible`` (values that cannot be true).

:data:`CHECKS` is a :class:`~ctxviewer.util.plugins.PluginRegistry`: the built-ins of
:data:`BUILTIN` in order, checks registered with :func:`register`, then plug-ins from the
entry-point group :data:`ENTRY_POINT_GROUP` (``ctxviewer.checks``). :func:`run_checks` runs them
all in that order. A check that raises never breaks the others: its error becomes one
``check.error`` finding (severity ``warning``) naming the check; a plug-in that could not be
loaded becomes one ``check.error`` finding on every trace, naming the plug-in and the error.

A new built-in check is a module here defining ``CHECK``, listed in :data:`BUILTIN` where it
should run; outside ctxviewer, an object of the same shape under the entry-point group::

    [project.entry-points."ctxviewer.checks"]
    mycheck = "mypkg.checks:CHECK"

May import: :mod:`ctxviewer.model`, :mod:`ctxviewer.tokens`, :mod:`ctxviewer.util` and the rest
of :mod:`ctxviewer.assess` (the scanner, the budget). No Qt here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Protocol, runtime_checkable

from ctxviewer.model.findings import Finding, Severity
from ctxviewer.model.trace import RequestTrace
from ctxviewer.util.plugins import PluginRegistry, conform, error_text

if TYPE_CHECKING:
    from ctxviewer.assess.config import CheckConfig

ENTRY_POINT_GROUP = "ctxviewer.checks"
"""Entry-point group third-party checks register under."""

BUILTIN = tuple(
    f"ctxviewer.assess.checks.{module}:CHECK"
    for module in ("policy",  # first: Table 3.1 row 1
                   "capacity", "injection", "guardrail",
                   "accounting", "commitments", "evidence", "json_output", "required", "spans", "tool_calls",
                   "tool_results", "truncation", "validations",  # the diagnostics
                   "limits",  # endpoint profiles
                   "plausible")  # implausible recorded values
)
"""The built-in checks in running order (the order findings are listed in before sorting)."""


@runtime_checkable
class Check(Protocol):
    """The shape of one check (see the module docstring)."""

    id: str
    """Stable id, e.g. ``"policy"``; rule ids of its findings start with it."""
    title: str
    """One line of words for the check, e.g. ``"correct policy omitted (Table 3.1 row 1)"``."""

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The findings for ``trace``; empty when there is nothing to report."""
        ...


def check_of(obj: Any) -> Check:
    """An entry point's (or built-in spec's) object as a check, its shape checked (a class or
    factory is called first). Raises :class:`TypeError` for an object without ``id``, ``title``
    and ``run``, or whose ``id`` is not a non-empty string."""
    check: Check = conform(obj, Check, "a check", "id, title, run")
    if not isinstance(check.id, str) or not check.id:
        raise TypeError(f"{check!r}: a check's id is a non-empty string, not {check.id!r}")
    return check


CHECKS: PluginRegistry[Check] = PluginRegistry(
    "check", key=lambda c: c.id, shape=check_of, builtin=BUILTIN, group=ENTRY_POINT_GROUP, key_name="id")
"""Every check, in running order (loaded on first use)."""


def register(check: Check) -> Check:
    """Add ``check`` to :data:`CHECKS` after those registered so far; once the checks are loaded,
    one with the same id is replaced in its place (before that, a built-in's id stays the
    built-in's: :class:`~ctxviewer.util.plugins.PluginRegistry`). Returns it. Raises
    :class:`TypeError` for an object without the shape."""
    return CHECKS.register(check)


def load_checks() -> None:
    """Load the built-in checks and the entry-point plug-ins now (else on first use)."""
    CHECKS.load()


def run_checks(trace: RequestTrace, config: CheckConfig | None = None) -> list[Finding]:
    """Every registered check's findings for ``trace``, in registration order.

    ``config`` (expected policy versions, user-marked documents; :mod:`ctxviewer.assess.config`) applies to this
    run (the assessment's context); without it the empty config does. Never raises for a
    well-typed trace: a check that raises yields one ``check.error`` finding (severity
    ``warning``) whose message names the check and the error, and each check plug-in that could
    not be loaded one ``check.error`` finding after the others, naming it and its error.
    """
    from ctxviewer.assess.config import restore, using

    checks = CHECKS.all()
    token = using(config) if config is not None else None
    out: list[Finding] = []
    try:
        for check in checks:
            try:
                out.extend(check.run(trace))
            except Exception as exc:  # one failing check never breaks the panel
                out.append(Finding(
                    rule="check.error",
                    severity=Severity.WARNING,
                    message=f"check {check.id!r} failed on this trace: {error_text(exc)}",
                ))
    finally:
        if token is not None:
            restore(token)
    out.extend(Finding(rule="check.error", severity=Severity.WARNING,
                       message=f"check plug-in {p.name!r} ({p.source}) could not be loaded: {p.message}")
               for p in CHECKS.load_problems)
    return out
