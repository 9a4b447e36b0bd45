"""What identifies a finding for review, and the reviewer's verdicts.

A finding is keyed by trace id, item id, rule and character span (code points), not by its
position in a list or its message: re-importing the same traces, or a new scanner version that
rewords a reason, keeps the key and therefore the verdict. A finding without an item or span
(e.g. ``injection.permitted_after_flag``) uses its first item id (or ``""``) and the span
``(-1, -1)``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timezone

from ctxviewer.model.findings import Finding


class ReviewVerdict(str, enum.Enum):
    """A reviewer's verdict on one finding; ``.label`` is the words, ``.key`` the keyboard key."""

    CONFIRMED = "confirmed"
    FALSE_POSITIVE = "false_positive"
    FOLLOW_UP = "follow_up"

    @property
    def label(self) -> str:
        """``"confirmed injection"``, ``"false positive"`` or ``"needs follow-up"``."""
        return {"confirmed": "confirmed injection", "false_positive": "false positive",
                "follow_up": "needs follow-up"}[self.value]

    @property
    def key(self) -> str:
        """The one key that gives this verdict in the audit view: ``C``, ``F`` or ``U``."""
        return {"confirmed": "C", "false_positive": "F", "follow_up": "U"}[self.value]


@dataclass(frozen=True, order=True)
class FindingKey:
    """Trace, item, rule and span of one finding (see the module docstring)."""

    trace_id: str
    item_id: str
    rule: str
    start: int
    """First code point of the span in the item's content; ``-1`` when the finding has no span."""
    end: int
    """One past the last code point; ``-1`` when the finding has no span."""


@dataclass(frozen=True)
class Review:
    """What the reviewer recorded on one finding."""

    verdict: ReviewVerdict | None
    """The verdict; ``None`` while only a note was written."""
    note: str
    """Free text ("" when none)."""
    reviewed_at: datetime | None
    """When the verdict or note was last written (UTC)."""
    reviewer: str | None = None
    """Who wrote it (:mod:`.reviewer`); ``None``: not recorded (a review file of schema 1)."""

    @property
    def when(self) -> str:
        """:attr:`reviewed_at` in UTC as ISO 8601 with a ``Z`` (``"2026-12-03T05:50:00Z"``, the form
        SARIF 2.1.0 3.9 asks for); ``"time not recorded"`` when there is none."""
        if self.reviewed_at is None:
            return "time not recorded"
        at = self.reviewed_at if self.reviewed_at.tzinfo else self.reviewed_at.replace(tzinfo=timezone.utc)
        return at.astimezone(timezone.utc).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"

    @property
    def by(self) -> str:
        """``"by alice · 2026-12-03T05:50:00Z"``, or ``"reviewer not recorded · …"``."""
        who = f"by {self.reviewer}" if self.reviewer else "reviewer not recorded"
        return f"{who} · {self.when}"


def key_of(trace_id: str, finding: Finding) -> FindingKey:
    """The :class:`FindingKey` of ``finding`` in trace ``trace_id``."""
    ev = finding.evidence
    if ev.spans:
        span = ev.spans[0]
        return FindingKey(trace_id, span.item_id, finding.rule, span.start, span.end)
    return FindingKey(trace_id, ev.item_ids[0] if ev.item_ids else "", finding.rule, -1, -1)
