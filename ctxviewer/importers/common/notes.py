"""Warnings raised deep inside shared readers, delivered as problem records of the file being loaded.

Shared readers (:mod:`.containers`: undecodable bytes, over-deep JSON) find problems far from the
importer's record loop, and every importer would otherwise have to pass a list through. Instead
:meth:`~ctxviewer.importers.registry.Registry.load` opens a :func:`collecting` scope for the file it loads, readers
call :func:`warn`, and the registry yields each collected warning as an
:class:`~ctxviewer.importers.contract.ImportProblem` (file, record, message) ahead of the next record.

The scope is per thread (an import runs on a worker thread in the GUI). Outside a scope
:func:`warn` does nothing: a reader used on its own (a sniffer, a test) simply repairs.
No Qt here.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from ctxviewer.importers.contract import ImportProblem

_LOCAL = threading.local()


def _stack() -> list[tuple[str, list[ImportProblem]]]:
    stack: list[tuple[str, list[ImportProblem]]] | None = getattr(_LOCAL, "stack", None)
    if stack is None:
        stack = _LOCAL.stack = []
    return stack


@contextmanager
def collecting(file: str) -> Iterator[list[ImportProblem]]:
    """A scope in which :func:`warn` appends problems naming ``file`` to the yielded list."""
    found: list[ImportProblem] = []
    stack = _stack()
    stack.append((file, found))
    try:
        yield found
    finally:
        if stack and stack[-1][1] is found:
            stack.pop()


def warn(record: str | None, message: str) -> None:
    """Note a problem with ``record`` (``"line 3"``, ``"byte 834 (line 1)"``; ``None``: a value
    whose record the reader does not know, named ``"a value"``) of the file being loaded."""
    stack = _stack()
    if stack:
        file, found = stack[-1]
        found.append(ImportProblem(file, record or "a value", message))
