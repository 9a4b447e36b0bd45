"""Who gives the verdicts: the name recorded with every review.

:func:`reviewer_for` takes the first of

1. ``[review] reviewer = "..."`` in the user's own ``ctxviewer.toml`` (platformdirs'
   ``user_config_dir("ctxviewer")``: ``~/.config/ctxviewer/ctxviewer.toml`` on Linux,
   ``$XDG_CONFIG_HOME`` honoured) -- one person's setting, for every database;
2. ``[review] reviewer = "..."`` in the ``ctxviewer.toml`` beside the database;
3. the operating-system user (:func:`getpass.getuser`);

and says where the name came from. When none is known (no setting, and the OS cannot name the
user) the reviewer is "not recorded". A ``ctxviewer.toml`` that is not valid TOML, or whose
``reviewer`` is not a non-empty string, is skipped and named in :attr:`Reviewer.source`. No Qt here.
"""

from __future__ import annotations

import getpass
import tomllib
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from ctxviewer.review.location import APP

CONFIG_NAME = "ctxviewer.toml"
"""The settings file: in the user config directory, and beside the database."""


@dataclass(frozen=True)
class Reviewer:
    """The reviewer's name and where it came from."""

    name: str | None
    """``None``: not recorded."""
    source: str
    """``"[review] reviewer in /home/me/.config/ctxviewer/ctxviewer.toml"``, ``"the OS user"``, ..."""

    def describe(self) -> str:
        """One line for the view: ``"reviewer: alice ([review] reviewer in …/ctxviewer.toml)"``."""
        return f"reviewer: {self.name} ({self.source})" if self.name else f"reviewer: not recorded ({self.source})"


def user_config_path() -> Path:
    """The user's own ``ctxviewer.toml``."""
    return Path(platformdirs.user_config_dir(APP)) / CONFIG_NAME


def _setting(path: Path) -> tuple[str | None, str | None]:
    """``(name, problem)`` of ``[review] reviewer`` in ``path``: ``(None, None)`` when not set."""
    if not path.is_file():
        return None, None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return None, f"{path} skipped: not valid TOML ({exc})"
    table = data.get("review", {})
    name = table.get("reviewer") if isinstance(table, dict) else None
    if name is None and isinstance(table, dict):
        return None, None
    if not isinstance(name, str) or not name.strip():
        return None, f"{path} skipped: [review] reviewer must be a non-empty string"
    return name.strip(), None


def reviewer_for(db: str | Path | None) -> Reviewer:
    """The reviewer of verdicts on ``db`` (``None``: no database; the user's setting and the OS
    user only). See the module docstring."""
    problems: list[str] = []
    places = [user_config_path(), *([Path(db).parent / CONFIG_NAME] if db is not None else [])]
    for path in places:
        name, problem = _setting(path)
        if problem:
            problems.append(problem)
        if name:
            return Reviewer(name, "; ".join([f"[review] reviewer in {path}", *problems]))
    try:
        user = getpass.getuser()
    except (OSError, KeyError, ImportError):
        user = ""
    if user:
        return Reviewer(user, "; ".join(["the OS user", *problems]))
    return Reviewer(None, "; ".join(["no [review] reviewer in ctxviewer.toml and no OS user name", *problems]))
