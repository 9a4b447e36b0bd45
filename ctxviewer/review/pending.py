"""Notes the reviewer typed that are not in a review file yet: kept until saved or discarded.

A note is pending when saving it failed (the review file's folder is read-only at that moment, the
file is not a review file) or when it was typed and not saved before the reviewer went to
another finding. :class:`PendingNotes` keeps each with its database, the
:class:`~.location.ReviewLocation` it belongs in and the finding's key, so it can be shown again
when the finding is, saved later (:meth:`PendingNotes.save_all`: the window is closing and the
reviewer chose Save) or dropped only on the reviewer's word (:meth:`PendingNotes.discard`). No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ctxviewer.review.keys import FindingKey
from ctxviewer.review.location import ReviewLocation
from ctxviewer.review.queue import ReviewQueue
from ctxviewer.review.verdicts import ReviewFileError


@dataclass(frozen=True)
class PendingNote:
    """One note not saved yet."""

    db: Path | None
    location: ReviewLocation | None
    """Where it is to be saved (``None``: no review file could be found for the database)."""
    key: FindingKey
    text: str


class PendingNotes:
    """The pending notes of one audit view, by database and finding (see the module docstring)."""

    def __init__(self) -> None:
        self._notes: dict[tuple[Path | None, FindingKey], PendingNote] = {}

    def keep(self, db: Path | None, location: ReviewLocation | None, key: FindingKey, text: str) -> None:
        """Keep ``text`` as the note of ``key`` in ``db`` (replacing a pending one)."""
        self._notes[(db, key)] = PendingNote(db, location, key, text)

    def get(self, db: Path | None, key: FindingKey) -> str | None:
        """The pending note of ``key`` in ``db``, or ``None``."""
        note = self._notes.get((db, key))
        return note.text if note is not None else None

    def discard(self, db: Path | None, key: FindingKey) -> None:
        """Forget the pending note of ``key`` in ``db`` (saved, or the reviewer discarded it)."""
        self._notes.pop((db, key), None)

    def discard_all(self) -> None:
        """Forget every pending note (the reviewer chose Discard)."""
        self._notes.clear()

    def __len__(self) -> int:
        return len(self._notes)

    def __iter__(self) -> Iterator[PendingNote]:
        return iter(list(self._notes.values()))

    def save_all(self, current_db: Path | None, queue: ReviewQueue | None, reviewer: str | None) -> list[str]:
        """Save every pending note, keeping each finding's verdict; the saved ones are forgotten.

        A note of ``current_db`` is written through ``queue`` (so the view shows it); any other
        through its own review file. Returns why each note that could not be saved failed
        (:class:`~.verdicts.ReviewFileError` messages naming the file); those stay pending."""
        failed: list[str] = []
        for note in self:
            try:
                entry = next((e for e in queue.entries if e.key == note.key), None) if queue is not None else None
                if note.db == current_db and queue is not None and queue.file is not None and entry is not None:
                    queue.note(entry, note.text)
                elif note.location is not None:
                    with note.location.open() as rf:
                        old = rf.all().get(note.key)
                        rf.write(note.key, old.verdict if old else None, note.text, reviewer)
                else:
                    failed.append(f"{note.db}: no review file to save the note of {note.key.rule} in")
                    continue
            except ReviewFileError as exc:
                failed.append(str(exc))
                continue
            self.discard(note.db, note.key)
        return failed
