"""Where the review file of a trace database is: beside it when the user can write there, else in
the user's data directory, or where ``--review-file PATH`` says.

:func:`review_location` decides it, the same way for the window (the audit view and File ›
Export Findings) and every command that reads verdicts (``report``, ``check --format sarif``), so
a verdict given in the window is the one the report shows:

1. ``--review-file PATH`` (the GUI launch and each such command take it): that file;
2. the database's folder is writable: ``traces.review.sqlite`` beside ``traces.db``
   (:func:`~ctxviewer.review.verdicts.review_path`);
3. else (a read-only share): ``<user data dir>/reviews/traces-<16 hex>.review.sqlite``, where the
   data directory is platformdirs' ``user_data_dir("ctxviewer")`` (``~/.local/share/ctxviewer``
   on Linux, ``$XDG_DATA_HOME`` honoured) and the hex digits are the first 16 of the SHA-256 of
   the database's absolute path, so two databases of the same name never share a file;
   except when that file does not exist yet but one beside the database does (a colleague's
   verdicts on the share): that one is read, and saving to it fails with a message naming the
   folder (give ``--review-file`` to save elsewhere).

No Qt here; only :meth:`ReviewLocation.open` touches the file system beyond checks.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from ctxviewer.review.verdicts import ReviewFile, review_path

APP = "ctxviewer"
"""The application name platformdirs places the data directory under."""

BESIDE = "beside the database"
GIVEN = "given with --review-file"


def folder_writable(folder: Path) -> bool:
    """Whether files can be created in ``folder`` (``os.access``; as root this is true even for
    mode 0o555, as the kernel lets root write there)."""
    return os.access(folder, os.W_OK)


def data_dir_path(db: str | Path) -> Path:
    """The review file of ``db`` in the user's data directory (see the module docstring)."""
    absolute = Path(os.path.abspath(db))
    digest = hashlib.sha256(str(absolute).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return Path(platformdirs.user_data_dir(APP)) / "reviews" / f"{absolute.stem}-{digest}.review.sqlite"


@dataclass(frozen=True)
class ReviewLocation:
    """The review file of one database and why it is there."""

    path: Path
    why: str
    """In words: ``"beside the database"``, ``"given with --review-file"`` or ``"in the user data
    directory (folder /share is not writable)"``."""
    make_folder: bool = False
    """True for the data-directory file: its folder is created on the first write."""

    def describe(self) -> str:
        """One line for the view: ``"review file: /data/s.review.sqlite (beside the database)"``."""
        return f"review file: {self.path} ({self.why})"

    def open(self) -> ReviewFile:
        """The :class:`~ctxviewer.review.verdicts.ReviewFile` at :attr:`path` (reads only until a
        write). Raises :class:`~ctxviewer.review.verdicts.ReviewFileError` like it."""
        return ReviewFile(self.path, make_folder=self.make_folder)


def review_location(db: str | Path, review_file: str | Path | None = None) -> ReviewLocation:
    """Where the review file of ``db`` is (module docstring); ``review_file`` is ``--review-file``."""
    if review_file is not None:
        return ReviewLocation(Path(review_file), GIVEN)
    beside = review_path(db)
    folder = Path(os.path.abspath(db)).parent
    if folder_writable(folder):
        return ReviewLocation(beside, BESIDE)
    data = data_dir_path(db)
    if not data.exists() and (beside.exists() or beside.is_symlink()):
        return ReviewLocation(beside, f"{BESIDE}, read-only: folder {folder} is not writable; "
                                      "give --review-file to save verdicts elsewhere")
    return ReviewLocation(data, f"in the user data directory: folder {folder} is not writable", make_folder=True)
