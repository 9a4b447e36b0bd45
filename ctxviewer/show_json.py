"""The object ``ctxviewer show DB TRACE_ID --json`` prints, and that command answered without click.

:func:`load_for_show` reads one trace of a database as ``show`` presents it (messages dropped
between calls derived, :func:`ctxviewer.diff.conversation.derive_for_display`) and
:func:`show_summary` is the object ``show --json`` prints: :func:`ctxviewer.report.trace_summary`
-- the one assessment (:func:`ctxviewer.assessment.assess`) the window shows too. The ``show``
command (:mod:`ctxviewer.cli`) and :func:`answer` both call them.

:func:`answer` is the start-up path of the one command that scripts run in loops (issue 11: a CLI
command within 2.5x a bare interpreter): ``show DB TRACE_ID --json [--content]``, flags in any
order, is answered without importing click, the command group or any other command. It writes
what the click command writes -- the same JSON text, through the same inert output
(:class:`ctxviewer.cli_output.InertStream` in JSON mode) -- and exits 0. Anything else (another
command or option, ``--help``, a stream that is not UTF-8, a database that does not open, an
unknown trace id) is left to the click command, which then says what it always says: :func:`answer`
writes nothing before it has the whole answer, so falling back repeats nothing.

No Qt here, and no click.
"""

from __future__ import annotations

import codecs
import json
import os
import sys
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from .model import RequestTrace

FLAGS = frozenset({"--json", "--content"})
"""The options :func:`answer` takes (``--json`` required); any other sends the call to click."""


def load_for_show(db: str, trace_id: str) -> RequestTrace:
    """Trace ``trace_id`` of database ``db`` (opened read-only) as ``show`` presents it: messages
    dropped between calls derived where the format records no omissions (issue 8).

    Raises :class:`ctxviewer.store.StoreError` when ``db`` cannot be opened or read and
    ``KeyError`` when it holds no such trace."""
    from .diff.conversation import derive_for_display
    from .store import TraceStore

    with TraceStore.open(db) as store:
        return derive_for_display(store, store.load(trace_id))


def show_summary(trace: RequestTrace, content: bool = False) -> dict[str, Any]:
    """The ``show --json`` object of ``trace`` (keys in the README, "Command line"):
    :func:`ctxviewer.report.trace_summary`; ``content`` adds each item's stored ``text`` (issue 6)."""
    from .report import trace_summary

    summary = trace_summary(trace)
    if content:
        for entry, item in zip(summary["items"], trace.items):
            entry["text"] = item.content
    return summary


def json_text(obj: object) -> str:
    """``obj`` as the CLI prints JSON: indented by 2, non-ASCII characters as they are."""
    return json.dumps(obj, indent=2, ensure_ascii=False)


def fast_arguments(argv: Sequence[str]) -> tuple[str, str, bool] | None:
    """``(db, trace_id, content)`` when ``argv`` (the words after the program name) is
    ``show DB TRACE_ID`` with ``--json`` and optionally ``--content``, in any order after ``show``;
    ``None`` for anything else (left to click)."""
    if not argv or argv[0] != "show":
        return None
    words = list(argv[1:])
    flags = [w for w in words if w.startswith("-")]
    positional = [w for w in words if not w.startswith("-")]
    if len(positional) != 2 or "--json" not in flags or not set(flags) <= FLAGS:
        return None
    return positional[0], positional[1], "--content" in flags


def _utf8(stream: Any) -> bool:
    encoding = getattr(stream, "encoding", None)
    try:
        return encoding is not None and codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def answer(argv: Sequence[str]) -> bool:
    """Answer ``show DB TRACE_ID --json [--content]`` (see the module docstring) and return True, or
    return False having written nothing (the caller runs the click command). Raises nothing for a
    database or trace that cannot be read: those go to click, which reports them."""
    args = fast_arguments(argv)
    if args is None or os.name == "nt" or not (_utf8(sys.stdout) and _utf8(sys.stderr)):
        return False
    from .store import StoreError

    db, trace_id, content = args
    try:
        trace = load_for_show(db, trace_id)
    except (StoreError, KeyError, OSError):
        return False
    text = json_text(show_summary(trace, content))
    from .cli_output import install

    restore = install(json_mode=lambda: True)
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (``| head``): exit 1 quietly, as click does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the flush at exit finds no pipe
        raise SystemExit(1) from None
    finally:
        restore()
    return True
