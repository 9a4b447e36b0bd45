"""What the checks need to know beyond the trace: expected policy versions and the user's marks.

A :class:`CheckConfig` holds

* ``expected_policy`` -- per application (``RequestTrace.service``; the key ``"*"`` applies to
  every application) the policy version each policy id must have (Table 3.1 row 1, "not the
  version expected");
* ``needed`` -- per trace id, the evidence item ids the user marked as the document the answer
  needed (Table 3.1 row 3).

It is read from ``ctxviewer.toml`` beside the trace database (:func:`load_for_db`)::

    [expected_policy."*"]
    support-policy = "2026-10-03"

    [expected_policy."support-assistant"]
    refund-policy = "v7"

    [context_window.models]          # for traces that record no C (over the model catalogue)
    "my-finetune-*" = 32768

    [context_window.traces]          # one trace's C, over what it recorded
    "trace-4471" = 16000

and from ``--expected-policy ID=VERSION`` options (:func:`parse_expected`). The assessment's
context (:func:`ctxviewer.assess.context.context_for_db`) holds the config of a database and hands
it to :func:`~ctxviewer.assess.checks.run_checks` for the one run; there is no process-wide
default. No Qt here.
"""

from __future__ import annotations

import contextvars
import fnmatch
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Mapping

from frozendict import frozendict

CONFIG_NAME = "ctxviewer.toml"
"""File name of the check configuration, looked up in the trace database's directory."""


@dataclass(frozen=True)
class CheckConfig:
    """Settings of the checks (see the module docstring)."""

    expected_policy: Mapping[str, Mapping[str, str]] = field(default_factory=frozendict)
    """Application (or ``"*"``) -> policy id -> expected version."""
    needed: Mapping[str, tuple[str, ...]] = field(default_factory=frozendict)
    """Trace id -> evidence item ids the user marked as needed."""
    model_windows: Mapping[str, int] = field(default_factory=frozendict)
    """Model name pattern (fnmatch, case-insensitive) -> context window C in tokens, for traces that
    record none (``[context_window.models]``): the user's word over the model catalogue's."""
    trace_windows: Mapping[str, int] = field(default_factory=frozendict)
    """Trace id -> context window C in tokens (``[context_window.traces]``): the user's word for that
    one trace, over what it recorded."""

    def context_window(self, trace_id: str, model: str | None) -> tuple[int, str] | None:
        """``(C, where it came from)`` the user set for ``trace_id`` or its ``model``, or ``None``:
        a per-trace value first, then the first matching model pattern."""
        if trace_id in self.trace_windows:
            return self.trace_windows[trace_id], "set for this trace in ctxviewer.toml"
        low = (model or "").lower()
        for pattern, tokens in self.model_windows.items():
            if model and fnmatch.fnmatchcase(low, pattern.lower()):
                return tokens, f"assumed (ctxviewer.toml: context_window for {pattern})"
        return None

    def expected_version(self, service: str | None, policy_id: str | None) -> str | None:
        """The expected version of ``policy_id`` for application ``service``; ``None`` if not configured."""
        if policy_id is None:
            return None
        for app in (service, "*"):
            if app is not None and policy_id in self.expected_policy.get(app, {}):
                return self.expected_policy[app][policy_id]
        return None

    def expected_policies(self, service: str | None) -> frozenset[str]:
        """The policy ids ``ctxviewer.toml`` expects for application ``service`` (its own table and
        ``"*"``); empty when none is configured."""
        return frozenset(pid for app in (service, "*") if app is not None for pid in self.expected_policy.get(app, {}))

    def with_expected(self, pairs: Mapping[str, str], app: str = "*") -> CheckConfig:
        """A copy where ``pairs`` (policy id -> version) are expected for ``app``."""
        merged = {k: dict(v) for k, v in self.expected_policy.items()}
        merged.setdefault(app, {}).update(pairs)
        return replace(self, expected_policy=frozendict({k: frozendict(v) for k, v in merged.items()}))

    def with_needed(self, needed: Mapping[str, Iterable[str]]) -> CheckConfig:
        """A copy whose user-marked needed documents are ``needed`` (trace id -> item ids)."""
        return replace(self, needed=frozendict({k: tuple(v) for k, v in needed.items()}))


def parse_expected(values: Iterable[str]) -> dict[str, str]:
    """``["support-policy=2026-10-03"]`` -> ``{"support-policy": "2026-10-03"}``.

    Raises ``ValueError`` naming the value that is not ``ID=VERSION``."""
    out: dict[str, str] = {}
    for v in values:
        pid, sep, version = v.partition("=")
        if not sep or not pid.strip() or not version.strip():
            raise ValueError(f"expected policy {v!r} is not ID=VERSION (e.g. support-policy=2026-10-03)")
        out[pid.strip()] = version.strip()
    return out


def load_file(path: Path) -> CheckConfig:
    """The config in TOML file ``path`` (module docstring). Raises ``ValueError`` naming the file
    and the key when it is not valid TOML or a value is not a string."""
    import tomllib  # read only when a ctxviewer.toml is there (``list`` on a bare database never parses one)

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from None
    table = data.get("expected_policy", {})
    if not isinstance(table, dict):
        raise ValueError(f"{path}: expected_policy must be a table of applications")
    expected: dict[str, frozendict[str, str]] = {}
    for app, pins in table.items():
        bad = _first_bad(pins, lambda v: isinstance(v, str))
        if bad is not None:
            raise ValueError(f'{path}: expected_policy."{app}" must map policy ids to version strings; {bad}')
        expected[app] = frozendict(pins)
    windows = data.get("context_window", {})
    if not isinstance(windows, dict) or set(windows) - {"models", "traces"}:
        raise ValueError(f"{path}: context_window must hold the tables models and traces")
    found: dict[str, frozendict[str, int]] = {}
    for part in ("models", "traces"):
        sub = windows.get(part, {})
        bad = _first_bad(sub, lambda v: type(v) is int and v > 0)
        if bad is not None:
            raise ValueError(f"{path}: context_window.{part} must map names to positive token counts (integers); {bad}")
        found[part] = frozendict(sub)
    return CheckConfig(expected_policy=frozendict(expected), model_windows=found["models"], trace_windows=found["traces"])


def _first_bad(table: object, good: Callable[[object], bool]) -> str | None:
    """What is wrong in a TOML table that maps names to values: ``"it is 5"`` (not a table),
    ``'"gpt-*" is 'big''`` (the first value ``good`` refuses), else ``None``."""
    if not isinstance(table, dict):
        return f"it is {table!r}"
    return next((f'"{k}" is {v!r}' for k, v in table.items() if not good(v)), None)


def load_for_db(db_path: Path) -> CheckConfig:
    """The config in ``ctxviewer.toml`` beside ``db_path``; an empty config when there is none."""
    path = Path(db_path).parent / CONFIG_NAME
    return load_file(path) if path.is_file() else CheckConfig()


_EMPTY = CheckConfig()
_override: contextvars.ContextVar[CheckConfig | None] = contextvars.ContextVar("check_config", default=None)


def active() -> CheckConfig:
    """The config the checks read now: the one :func:`~ctxviewer.assess.checks.run_checks` was given
    for this run (the assessment's context, :mod:`ctxviewer.assess.context`), else the empty one.
    There is no process-wide default: every surface passes its database's context."""
    return _override.get() or _EMPTY


def marked_documents(trace_id: str) -> tuple[str, ...]:
    """The ids of the documents the user marked as needed for ``trace_id`` in the :func:`active`
    config (empty when none): what :func:`ctxviewer.assess.evidence_positions.evidence_map` takes."""
    return tuple(active().needed.get(trace_id, ()))


def using(config: CheckConfig) -> contextvars.Token[CheckConfig | None]:
    """Make ``config`` active in this context; undo with :func:`restore` and the returned token."""
    return _override.set(config)


def restore(token: contextvars.Token[CheckConfig | None]) -> None:
    """Undo a :func:`using`."""
    _override.reset(token)
