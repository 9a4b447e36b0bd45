"""The "Open Recent" list: up to :data:`MAX_RECENT` database paths, newest first, kept in QSettings."""

from __future__ import annotations

from PySide6.QtCore import QSettings

MAX_RECENT = 8
"""How many recent databases File > Open Recent remembers."""

KEY = "recent_files"
"""QSettings key holding the list."""


class RecentFiles:
    """Recent database paths in ``settings`` (absolute paths as strings, newest first, no duplicates)."""

    def __init__(self, settings: QSettings) -> None:
        self._settings = settings

    def paths(self) -> list[str]:
        """The remembered paths, newest first (at most :data:`MAX_RECENT`)."""
        value = self._settings.value(KEY, [])
        if isinstance(value, str):  # QSettings returns a lone string for a one-element list
            value = [value]
        if not isinstance(value, list):
            return []
        return [str(v) for v in value if v][:MAX_RECENT]

    def add(self, path: str) -> None:
        """Put ``path`` first, dropping an older copy and anything past :data:`MAX_RECENT`."""
        paths = [path, *(p for p in self.paths() if p != path)][:MAX_RECENT]
        self._settings.setValue(KEY, paths)
        self._settings.sync()

    def remove(self, path: str) -> None:
        """Forget ``path`` (no-op if absent)."""
        self._settings.setValue(KEY, [p for p in self.paths() if p != path])
        self._settings.sync()
