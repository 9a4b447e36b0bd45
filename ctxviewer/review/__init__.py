"""The review queue: every prompt-injection and tool-call finding of a trace database, worked
through to a reviewer's verdict.

* :mod:`.keys` -- :class:`FindingKey` (trace, item, rule, span): what identifies a finding across
  re-imports, and :class:`ReviewVerdict` (confirmed injection / false positive / needs follow-up).
* :mod:`.verdicts` -- :class:`ReviewFile`, the reviewer's verdicts and notes in their own SQLite
  file (never in the trace database), written transactionally.
* :mod:`.location` -- :func:`review_location`, where that file is: beside the database when its
  folder is writable, else in the user data directory, or ``--review-file``.
* :mod:`.pending` -- :class:`~.pending.PendingNotes`, notes not saved yet, kept until saved or
  discarded.
* :mod:`.reviewer` -- :func:`reviewer_for`, the name recorded with each verdict (a
  ``[review] reviewer`` setting in ``ctxviewer.toml``, else the OS user).
* :mod:`.queue` -- collecting the findings over a database and :class:`ReviewQueue`, the sorted,
  filterable view with its counts ("37 of 112 reviewed") shared by the GUI audit view, SARIF and
  the HTML report.

May import: :mod:`ctxviewer.store`, :mod:`ctxviewer.assess`, :mod:`ctxviewer.model`,
:mod:`ctxviewer.util`. No Qt here.

A new reviewer workflow (a verdict kind, a queue filter) goes here; its pane goes into
:mod:`ctxviewer.gui`.
"""

from __future__ import annotations

from ctxviewer.review.keys import FindingKey, Review, ReviewVerdict, key_of
from ctxviewer.review.location import ReviewLocation, review_location
from ctxviewer.review.queue import ReviewEntry, ReviewQueue, collect, is_reviewable
from ctxviewer.review.reviewer import Reviewer, reviewer_for
from ctxviewer.review.verdicts import ReviewFile, review_path

__all__ = ["FindingKey", "Review", "ReviewEntry", "ReviewFile", "ReviewLocation", "ReviewQueue", "ReviewVerdict",
           "Reviewer", "collect", "is_reviewable", "key_of", "review_location", "review_path", "reviewer_for"]
