"""A memo of a pure function's results for the last few objects it was given, found by identity.

``functools.lru_cache`` keys a call by its arguments' hash and equality. For a
:class:`~ctxviewer.model.trace.RequestTrace` that means hashing the whole trace (every item, every
frozen attribute) on each call, hit or miss; during an import every trace is new, so each call
paid that hashing and never hit (about 6% of the assessment; for import speed). The
surfaces that share one computation per trace (the assessment, the budget check, the chart) pass
the very same trace object, so a lookup by identity finds them at the cost of a dict lookup.

An equal trace that is another object (loaded again from the store) is computed again: the
function is pure, so only time differs. The memo holds a strong reference to each remembered
object, so an id is never reused while its entry lives. Safe to call from several threads (a
race can only compute a result twice). No Qt here.
"""

from __future__ import annotations

import functools
from typing import Callable, Generic, TypeVar

K = TypeVar("K")
R = TypeVar("R")


class ByIdentity(Generic[K, R]):
    """``fn(obj)`` remembered for the last :attr:`size` objects, each found by ``id(obj)`` and
    checked with ``is``; call it like ``fn``. :meth:`cache_clear` forgets everything."""

    def __init__(self, fn: Callable[[K], R], size: int = 16) -> None:
        self.fn = fn
        self.size = size
        self._memo: dict[int, tuple[K, R]] = {}
        functools.update_wrapper(self, fn)

    def __call__(self, obj: K) -> R:
        got = self._memo.get(id(obj))
        if got is not None and got[0] is obj:
            return got[1]
        result = self.fn(obj)
        memo = self._memo
        memo[id(obj)] = (obj, result)
        while len(memo) > self.size:
            try:
                del memo[next(iter(memo))]  # the oldest entry (dicts keep insertion order)
            except (KeyError, StopIteration, RuntimeError):  # another thread changed it meanwhile
                break
        return result

    def cache_clear(self) -> None:
        """Forget every remembered result."""
        self._memo.clear()


def by_identity(size: int = 16) -> Callable[[Callable[[K], R]], ByIdentity[K, R]]:
    """Decorator: :class:`ByIdentity` of the decorated one-argument function, ``size`` entries."""
    def wrap(fn: Callable[[K], R]) -> ByIdentity[K, R]:
        return ByIdentity(fn, size)
    return wrap
