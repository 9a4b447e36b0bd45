"""Times of a trace record and the record's format error, without the codec: ``created`` as ISO
8601 UTC with ``Z`` and millisecond precision (:func:`format_created`, :func:`parse_created`) and
:class:`TraceFormatError`. Here so that reading a list row (:mod:`ctxviewer.store.query`) and
``list --json`` need not import cattrs; :mod:`ctxviewer.model.codec` re-exports all of it.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any


class TraceFormatError(ValueError):
    """A trace record is malformed. ``path`` is the JSON path of the bad field ("" for the root),
    ``message`` what is wrong with it; ``str()`` is ``"path: message"``."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


class InvalidValue(ValueError):
    """A field's value breaks a rule; the message is shown after the field's path."""


def format_created(dt: datetime | None) -> str | None:
    """ISO 8601 UTC with ``Z`` and millisecond precision, e.g. ``2026-11-02T09:14:05.120Z``.

    The one time format of every surface (native lines, ``show --json``, ``list --json``)."""
    if dt is None:
        return None
    dt = dt.astimezone(timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def parse_created(value: Any, path: str = "created") -> datetime | None:
    """Parse an ISO 8601 time into aware UTC. Naive times are taken as UTC.

    Raises :class:`TraceFormatError` if ``value`` is not an ISO 8601 string.
    """
    try:
        return datetime_or_none(value)
    except InvalidValue as exc:
        raise TraceFormatError(path, str(exc)) from None


def stored_time(value: Any) -> datetime | None:
    """:func:`parse_created` of a time read back from a database column, ``None`` for an empty or
    unreadable one (a row another program wrote: epoch seconds, ``"garbage"``), so one bad row
    does not stop a listing; the row itself says so where it is listed
    (:attr:`ctxviewer.store.TraceRow.damaged`). Never raises."""
    if not value:
        return None
    try:
        return datetime_or_none(value)
    except (InvalidValue, TypeError, ValueError):
        return None


def datetime_or_none(value: Any, _: Any = None) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidValue(f"expected an ISO-8601 string, got {type(value).__name__}")
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidValue(f"{value!r} is not an ISO-8601 time") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc)
