"""Runtime assets, loaded with :mod:`importlib.resources` from the ``ctxviewer.resources`` package.

They live in ``ctxviewer/resources/`` inside the package, so the
same calls work from an editable install and an installed wheel.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

PACKAGE = "ctxviewer.resources"


def files() -> Traversable:
    """The root of the resources package. Raises ``ModuleNotFoundError`` if ctxviewer is not installed."""
    return resources.files(PACKAGE)


def read_text(name: str) -> str:
    """Text of resource ``name`` (UTF-8), e.g. ``read_text("app.qss")``. Raises ``FileNotFoundError``."""
    return files().joinpath(name).read_text(encoding="utf-8")


def read_bytes(name: str) -> bytes:
    """Bytes of resource ``name``, e.g. ``read_bytes("icons/ctxviewer.svg")``. Raises ``FileNotFoundError``."""
    return files().joinpath(name).read_bytes()
