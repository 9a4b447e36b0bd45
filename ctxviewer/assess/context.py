"""The one context an assessment is computed from: everything it reads beyond the trace itself.

Every surface -- the window's list row and header, ``show`` (text and ``--json``), ``list`` and
``list --filter`` (through the facts stored at import), ``check``, the review queue, SARIF, the
HTML report, the diff and the what-if -- assesses a trace of a database in the context
:func:`context_for_db` builds for that database, so they cannot disagree:

* ``config`` -- the checks' settings: ``ctxviewer.toml`` beside the database (expected policy
  versions per application, :mod:`ctxviewer.assess.config`), ``--expected-policy`` options,
  and the documents the user marked as needed for a trace (``<db>.marks.json``,
  :mod:`ctxviewer.assess.marks`);
* ``observed`` -- per trace, the Table 3.1 row of the failure the user marked as observed (the
  findings panel leads with it; it orders what is shown, it changes no conclusion);
* the model catalogue (:mod:`ctxviewer.tokens.catalogue`) is data of the installed release and
  enters through :data:`RULES`.

:attr:`AssessContext.fingerprint` names the rule set and the settings a conclusion was computed
with: the facts stored on a trace row carry it, so a row computed with other settings (an edited
``ctxviewer.toml``, a new mark, a newer ctxviewer) is known to be stale. No Qt here.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Mapping

from frozendict import frozendict

from ctxviewer.assess.config import CheckConfig

RULES = "ctxviewer-rules/10"
"""The version of the rule set (checks, scanner, eq. 3.1 and the model catalogue): raised when a
release changes what a trace concludes, so facts stored by an earlier one are known to be stale."""


@dataclass(frozen=True)
class AssessContext:
    """What an assessment reads beyond the trace (see the module docstring); one per database."""

    config: CheckConfig = field(default_factory=CheckConfig)
    """The checks' settings: expected policy versions and the documents marked as needed."""
    observed: Mapping[str, int] = field(default_factory=frozendict)
    """Trace id -> the Table 3.1 row (1-based) of the failure the user marked as observed."""
    source: str = "no ctxviewer.toml, no marks"
    """Where the settings came from, in words (``"ctxviewer.toml and marks beside traces.db"``)."""

    @cached_property
    def fingerprint(self) -> str:
        """``"ctxviewer-rules/10 <16 hex>"``: the rule set and a digest of the settings that can
        change a conclusion (``config``; ``observed`` only orders findings and is left out)."""
        c = self.config
        settings = {"expected_policy": {app: dict(v) for app, v in sorted(c.expected_policy.items())},
                    "needed": {tid: list(ids) for tid, ids in sorted(c.needed.items())},
                    "context_window": [dict(c.model_windows), dict(sorted(c.trace_windows.items()))]}
        digest = hashlib.sha256(json.dumps(settings, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        return f"{RULES} {digest[:16]}"

    def observed_row(self, trace_id: str) -> int | None:
        """The Table 3.1 row the user marked as observed on ``trace_id``, or ``None``."""
        return self.observed.get(trace_id)


EMPTY = AssessContext()
"""The context of a trace outside any database (built in memory, or a file not yet imported):
no configuration, no marks."""


def context_for_db(db_path: Path | str, expected: Mapping[str, str] | None = None) -> AssessContext:
    """The context of the database at ``db_path``: ``ctxviewer.toml`` beside it, the user's marks
    (``<db>.marks.json``) and ``expected`` (``--expected-policy ID=VERSION`` pairs, for every
    application). Raises ``ValueError`` naming the file for a broken ``ctxviewer.toml`` or marks file."""
    from ctxviewer.assess.config import CONFIG_NAME, load_for_db
    from ctxviewer.assess.marks import load_marks, marks_path

    path = Path(db_path)
    marks = load_marks(path)
    config = load_for_db(path).with_needed({tid: m.needed for tid, m in marks.items() if m.needed})
    if expected:
        config = config.with_expected(expected)
    have = [what for what, there in ((CONFIG_NAME, (path.parent / CONFIG_NAME).is_file()),
                                    ("marks", marks_path(path).is_file()), ("--expected-policy", bool(expected)))
            if there]
    source = f"{' and '.join(have)} beside {path.name}" if have else "no ctxviewer.toml, no marks"
    return AssessContext(config, frozendict({tid: m.row for tid, m in marks.items() if m.row is not None}), source)
