"""Checks: a registry of small modules that each turn a trace into findings (mitmproxy style).

A check has one shape (:class:`Check`): an ``id``, a one-line ``title``, and ``run(trace)``, which
returns the :class:`~ctxviewer.model.findings.Finding` objects it concludes. Built-in checks live in this
package, one module per check (or per Table 3.1 row), and register with :func:`register` when
imported; :func:`run_checks` runs them all. A check that raises never breaks the others: its error
becomes one ``check.error`` finding (severity ``warning``) naming the check.

No Qt here.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Iterable, Protocol

from ctxviewer.model.findings import Finding, Severity
from ctxviewer.model.trace import RequestTrace

if TYPE_CHECKING:
    from ctxviewer.assess.checks.config import CheckConfig


class Check(Protocol):
    """The shape of one check (see the module docstring)."""

    id: str
    """Stable id, e.g. ``"policy"``; rule ids of its findings start with it."""
    title: str
    """One line of words for the check, e.g. ``"correct policy omitted (Table 3.1 row 1)"``."""

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        """The findings for ``trace``; empty when there is nothing to report."""
        ...


CHECKS: dict[str, Check] = {}
"""Registered checks by id, in running order."""


def register(check: Check) -> Check:
    """Add ``check`` to :data:`CHECKS` (replacing one with the same id). Returns it."""
    CHECKS[check.id] = check
    return check


@functools.cache
def load_builtin() -> None:
    """Import the built-in check modules once; importing a module registers its check."""
    # Registration order is the order checks run and findings are listed: keep ruff's isort away.
    # isort: off
    from ctxviewer.assess.checks import policy  # noqa: F401  (first: Table 3.1 row 1)
    from ctxviewer.assess.checks import capacity as budget  # noqa: F401
    from ctxviewer.assess.checks import injection  # noqa: F401
    from ctxviewer.assess.checks import accounting, commitments, evidence, json_output, required, spans, tool_calls, tool_results, truncation, validations  # noqa: F401  (diagnostics, issue 9)
    from ctxviewer.assess.checks import limits  # noqa: F401  (endpoint profiles, issue 7)
    from ctxviewer.assess.checks import plausible  # noqa: F401  (implausible recorded values, issue 12)
    # isort: on


def run_checks(trace: RequestTrace, config: CheckConfig | None = None) -> list[Finding]:
    """Every registered check's findings for ``trace``, in registration order.

    ``config`` (expected policy versions, user-marked documents; :mod:`.config`) applies to this
    run (the assessment's context); without it the empty config does. Never raises for a well-typed trace: a check that raises yields one ``check.error`` finding
    (severity ``warning``) whose message names the check and the error.
    """
    load_builtin()
    from ctxviewer.assess.checks.config import restore, using

    token = using(config) if config is not None else None
    out: list[Finding] = []
    try:
        for check in CHECKS.values():
            try:
                out.extend(check.run(trace))
            except Exception as exc:  # one failing check never breaks the panel
                out.append(Finding(
                    rule="check.error",
                    severity=Severity.WARNING,
                    message=f"check {check.id!r} failed on this trace: {type(exc).__name__}: {exc}",
                ))
    finally:
        if token is not None:
            restore(token)
    return out
