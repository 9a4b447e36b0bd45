"""Whether the window can be shown at all: a display to draw on, said in one line when there is none.

Qt aborts the process (status 134, a core dump) when its platform plugin finds no display; this
module answers the question first, without importing Qt, so ``ctxviewer [DB]`` can exit with
status 2 and a line that says what to do instead.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

NO_DISPLAY_STATUS = 2
"""Exit status of the viewer when there is no display (the CLI's status for unusable input)."""

X11_SOCKET_DIR = Path("/tmp/.X11-unix")
"""Where a local X server listens (``X<n>`` for display ``:n``)."""

_LOCAL_X = re.compile(r"^(?:unix)?:(\d+)(?:\.\d+)?$")


def missing_display(env: Mapping[str, str] | None = None, platform: str | None = None) -> str | None:
    """Why the window cannot be shown, or None when it can (as far as can be told without Qt).

    ``env``: the environment (default ``os.environ``); ``platform``: ``sys.platform`` by default.
    Only Linux and the BSDs need a display server; ``QT_QPA_PLATFORM`` set by the user means the
    user chose the platform (``offscreen``, ``vnc``, ...) and is trusted. A local X display
    (``:0``) counts only when its socket exists; a remote one (``host:0``) and any Wayland display
    are taken as given. Returns a reason in words, e.g. ``"DISPLAY and WAYLAND_DISPLAY are not set"``.
    """
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if not platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return None
    if env.get("QT_QPA_PLATFORM"):
        return None  # chosen by the user (an invisible one is :func:`invisible_platform`'s matter)
    if env.get("WAYLAND_DISPLAY"):
        return None
    display = env.get("DISPLAY", "")
    if not display:
        return "DISPLAY and WAYLAND_DISPLAY are not set"
    local = _LOCAL_X.match(display)
    if local and not (X11_SOCKET_DIR / f"X{local.group(1)}").exists():
        return f"no X server is listening on DISPLAY={display}"
    missing = xcb_plugin_error()
    if missing is not None:
        return f"DISPLAY={display} is set, but Qt's X11 (xcb) platform plugin cannot load: {missing}"
    return None


def xcb_plugin_error() -> str | None:
    """Why Qt's xcb platform plugin (``PySide6/Qt/plugins/platforms/libqxcb.so``) cannot be
    loaded, or None when it loads (or is not there to try). The plugin is loaded the way Qt will
    load it (``dlopen``), so the answer names the shared library really missing, e.g.
    ``"libxcb-icccm.so.4: cannot open shared object file"`` -- Qt itself only says that
    ``xcb-cursor0`` is needed, even when that one is installed and another is not."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    plugin = Path(next(iter(spec.submodule_search_locations))) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if not plugin.is_file():
        return None
    try:
        ctypes.CDLL(str(plugin))
    except OSError as exc:
        text = str(exc)
        return text.split(": ", 1)[1] if text.startswith(str(plugin)) and ": " in text else text
    return None


INVISIBLE_PLATFORMS = ("offscreen", "minimal")
"""Qt platforms that draw nowhere a person can see (fine for tests and ``ctxviewer screenshot``)."""


def invisible_platform(env: Mapping[str, str] | None = None) -> str | None:
    """The ``QT_QPA_PLATFORM`` the user chose when it draws nowhere (:data:`INVISIBLE_PLATFORMS`):
    the window would run unseen until killed. ``None`` otherwise."""
    env = os.environ if env is None else env
    name = env.get("QT_QPA_PLATFORM", "").split(":", 1)[0].strip().lower()
    return name if name in INVISIBLE_PLATFORMS else None


def invisible_message(platform: str) -> str:
    """The one line printed instead of running an unseen window on ``platform``."""
    return (f"ctxviewer: not opening the window: QT_QPA_PLATFORM={platform} draws it nowhere. To see it, "
            "render it to a PNG (ctxviewer screenshot DB TRACE -o shot.png) or unset QT_QPA_PLATFORM on a "
            "display; the CLI (ctxviewer list DB, ctxviewer show DB TRACE) needs no display.")


def no_display_message(reason: str) -> str:
    """The one line printed instead of opening the window (``reason`` from :func:`missing_display`)."""
    if "platform plugin cannot load" in reason:
        return (f"ctxviewer: cannot open the window: {reason} (install the missing library, e.g. with apt-get; "
                "Qt's list: https://doc.qt.io/qt-6/linux-requirements.html). Meanwhile use the CLI "
                "(ctxviewer list DB, ctxviewer show DB TRACE) or render the window to a PNG "
                "(QT_QPA_PLATFORM=offscreen ctxviewer screenshot DB TRACE -o shot.png).")
    return (f"ctxviewer: cannot open the window: no display ({reason}). Use the CLI (ctxviewer list DB, "
            "ctxviewer show DB TRACE), or render the window to a PNG "
            "(QT_QPA_PLATFORM=offscreen ctxviewer screenshot DB TRACE -o shot.png).")
