"""genai-prices imported without the part ctxviewer never runs: its price-update client.

``import genai_prices`` imports ``genai_prices.update_prices``, the background updater that fetches
newer prices over HTTP, and with it ``httpx2`` and ``asyncio`` (with ``ssl``, sockets and an HTTP
client behind them: about 25 ms of every process's first price, e.g. ``ctxviewer show``).
ctxviewer prices from the bundled data only and never starts the updater, whose module uses both
names only inside its functions. :func:`load` imports the package with each of the two modules not
imported yet standing in as a :class:`DeferredModule` -- the real module is imported on the first
attribute read, so a caller of the updater still gets the real client -- and takes the stand-ins
out of ``sys.modules`` again once the package is in, so any later ``import httpx2`` or
``import asyncio`` is the real module. No Qt here.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types

DEFERRED = ("httpx2", "asyncio")
"""The modules the updater imports at its top and uses only inside its functions."""

_lock = threading.Lock()


class DeferredModule(types.ModuleType):
    """Stands in for the module of its name until an attribute is read from it: then the real
    module is imported (in ``sys.modules`` from then on) and the attribute is the real one's."""

    def __getattr__(self, attr: str) -> object:
        real = sys.modules.get(self.__name__)
        if real is None or real is self:
            if sys.modules.get(self.__name__) is self:
                del sys.modules[self.__name__]
            real = importlib.import_module(self.__name__)
        return getattr(real, attr)


def load() -> types.ModuleType:
    """The ``genai_prices`` package, imported once with :data:`DEFERRED` standing in (module
    docstring). Raises ``ImportError`` when genai-prices is not installed (nothing is left behind)."""
    loaded = sys.modules.get("genai_prices")
    if loaded is not None:
        return loaded
    with _lock:
        placed = [name for name in DEFERRED if name not in sys.modules]
        for name in placed:
            sys.modules[name] = DeferredModule(name)
        try:
            return importlib.import_module("genai_prices")
        finally:
            for name in placed:
                if isinstance(sys.modules.get(name), DeferredModule):
                    del sys.modules[name]
