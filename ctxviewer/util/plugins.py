"""Plug-ins: the one registry type behind every kind of plug-in ctxviewer loads.

Three kinds use it, each with its own declared shape (a :class:`typing.Protocol`) and entry-point
group:

============== =================================================== ==========================
kind           shape                                               entry-point group
============== =================================================== ==========================
importer       :class:`ctxviewer.importers.contract.Importer`      ``ctxviewer.importers``
check          :class:`ctxviewer.assess.checks.Check`              ``ctxviewer.checks``
scanner rule   :class:`ctxviewer.assess.scanner.patterns.Rule`     ``ctxviewer.scanner_rules``
============== =================================================== ==========================

A :class:`PluginRegistry` holds the plug-ins of one kind, in this order: the built-ins (specs
``"module:attribute"``, datasette's ``DEFAULT_PLUGINS`` style), then objects registered directly
with :meth:`PluginRegistry.register` before the first use, then the entry points of the group in
the order :func:`importlib.metadata.entry_points` lists them. Built-ins and entry points are
loaded alike, once, on first use (from whichever thread asks first; a second thread waits for the
whole list); a group no installed distribution has is known from a memo without looking
(:mod:`ctxviewer.util.entry_point_memo`). An entry point (or built-in spec) names the plug-in object itself, or a class or
factory that returns one when called with no arguments. Another package adds one in its
``pyproject.toml``::

    [project.entry-points."ctxviewer.checks"]
    mycheck = "mypkg.checks:CHECK"

**Isolation.** A plug-in that cannot be loaded -- its module does not import, its factory raises,
the object does not have the kind's shape (:func:`conform`), or its key is already taken -- is left
out and recorded as a :class:`PluginProblem` naming the plug-in and the error; the other plug-ins
load. Failures while a plug-in runs are recorded by the code that runs it, in the record of its
kind (an importer's :class:`~ctxviewer.importers.contract.ImportProblem`, a check's ``check.error``
finding, a scanner rule's :class:`PluginProblem` in :attr:`PluginRegistry.problems`), worded by
:func:`failure`. A plug-in never loses a run.

May import: the standard library only (this is :mod:`ctxviewer.util`, the ground floor).
"""

from __future__ import annotations

import functools
import importlib
import threading
from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterator, Sequence, TypeVar

from ctxviewer.util import entry_point_memo

P = TypeVar("P")


@dataclass(frozen=True)
class PluginProblem:
    """A plug-in that could not be loaded, or that raised while it ran.

    ``str()`` gives ``"check plug-in 'mine' (mypkg.checks:CHECK): ModuleNotFoundError: No module
    named 'mypkg'"``."""

    kind: str
    """The kind of plug-in: ``"importer"``, ``"check"``, ``"scanner rule"``."""
    name: str
    """Which plug-in: its entry-point name, its key (importer name, check id, rule id) or its spec."""
    source: str
    """Where it came from: the entry point's value or the built-in spec (``"mypkg.checks:CHECK"``)."""
    message: str
    """What went wrong, e.g. ``"ModuleNotFoundError: No module named 'mypkg'"``."""

    def __str__(self) -> str:
        return f"{self.kind} plug-in {self.name!r} ({self.source}): {self.message}"


def error_text(exc: BaseException) -> str:
    """``"ZeroDivisionError: division by zero"``: an exception as the words of a problem record."""
    return f"{type(exc).__name__}: {exc}"


def failure(kind: str, name: str, what: str, exc: BaseException) -> str:
    """The one wording of a plug-in's failure at run time: ``"importer 'broken' failed in load:
    ZeroDivisionError: division by zero"`` (``what`` names the member that raised)."""
    return f"{kind} {name!r} failed in {what}: {error_text(exc)}"


def conform(obj: Any, shape: Any, noun: str, members: str) -> Any:
    """``obj`` as a plug-in of ``shape`` (a :func:`typing.runtime_checkable` Protocol).

    A class, or a callable that is not itself of the shape (a factory), is called with no
    arguments first. Raises :class:`TypeError` ``"<obj> is not <noun> (needs <members>)"`` when
    the result lacks a member of the shape; the factory's own exceptions propagate."""
    if isinstance(obj, type) or (callable(obj) and not isinstance(obj, shape)):
        obj = obj()
    if not isinstance(obj, shape):
        raise TypeError(f"{obj!r} is not {noun} (needs {members})")
    return obj


def load_spec(spec: str) -> Any:
    """The object a ``"module:attribute"`` spec names (what an entry point's ``load()`` does for
    its value). Raises what the import raises, :class:`AttributeError` when the module has no
    such attribute (also while that module is still being imported), :class:`ValueError` for a
    spec without ``:``."""
    module, sep, attr = spec.partition(":")
    if not sep or not attr:
        raise ValueError(f"{spec!r} is not a 'module:attribute' spec")
    return getattr(importlib.import_module(module), attr)


class PluginRegistry(Generic[P]):
    """The plug-ins of one kind, in order (see the module docstring).

    ``kind`` words the problem records (``"importer"``); ``key`` gives a plug-in's name (an
    importer's ``name``, a check's ``id``); ``shape`` turns a loaded object into a plug-in or
    raises (:func:`conform` with the kind's Protocol, plus any contract check of the kind);
    ``builtin`` lists the built-in specs in order; ``group`` is the entry-point group (``None``:
    no entry points, for tests). With ``unique`` a key names one plug-in: a direct
    :meth:`register` of a known key (after the first use) replaces it in place; while loading, a
    built-in keeps its key, and a plug-in registered before the first use or an entry point with a
    key already taken is left out as a problem (``"importer name 'x' is already taken; left out"``, ``key_name`` naming the
    key); without it (scanner rules, where several rules may share a family id) every plug-in is
    kept. ``on_change`` is called after every change of the membership.
    """

    def __init__(self, kind: str, *, key: Callable[[P], str], shape: Callable[[Any], P],
                 builtin: Sequence[str] = (), group: str | None = None, unique: bool = True,
                 key_name: str = "name", on_change: Callable[[], None] | None = None) -> None:
        self.kind = kind
        """The kind of plug-in, as problem records name it."""
        self.group = group
        """The entry-point group read on first use (``None``: none)."""
        self.builtin = tuple(builtin)
        """The built-in specs (``"module:attribute"``), in order."""
        self._key = key
        self._key_name = key_name
        self._shape = shape
        self._unique = unique
        self._on_change = on_change
        self._plugins: list[P] = []
        self._problems: list[PluginProblem] = []
        self._noted: list[PluginProblem] = []
        self._loaded = False
        self._loading = False
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ loading

    def load(self) -> None:
        """Load the built-ins and the entry points once (later calls return at once).

        A second thread asking meanwhile waits for the whole list; a built-in module that asks
        while it is being imported (same thread) sees the plug-ins loaded so far."""
        if self._loaded:
            return
        with self._lock:
            if self._loaded or self._loading:
                return
            self._loading = True
            try:
                self._load()
            finally:
                self._loaded, self._loading = True, False
        self._changed()

    @property
    def loaded(self) -> bool:
        """Whether :meth:`load` has run (the built-ins and entry points are in)."""
        return self._loaded

    def _load(self) -> None:
        found: list[P] = []
        for spec in self.builtin:
            plugin = self._try(spec, spec, functools.partial(load_spec, spec))
            if plugin is not None:
                found.append(plugin)
        registered, self._plugins = self._plugins, []
        for plugin in found:  # built-ins first, in order
            self._add(plugin, replace=True)
        for plugin in registered:  # then those registered before the first use (a built-in's key stays the built-in's)
            self._join(plugin, self._key(plugin), source_of(plugin))
        if self.group is None or entry_point_memo.known_empty(self.group):  # none installed: no look-up
            return
        from importlib.metadata import entry_points  # only when plug-ins are looked up (start-up time)

        for ep in entry_points(group=self.group):
            plugin = self._try(ep.name, ep.value, ep.load)
            if plugin is not None:
                self._join(plugin, ep.name, ep.value)

    def _join(self, plugin: P, name: str, source: str) -> None:
        """Add ``plugin`` while loading, unless (``unique``) its key is taken: then it is left out
        as a problem -- except when it is the very object already in (its module registered it)."""
        known = self.find(self._key(plugin)) if self._unique else None
        if known is plugin:
            return
        if known is not None:
            self._problems.append(PluginProblem(self.kind, name, source, f"{self.kind} {self._key_name} "
                                                f"{self._key(plugin)!r} is already taken; left out"))
            return
        self._add(plugin, replace=False)

    def _try(self, name: str, source: str, get: Callable[[], Any]) -> P | None:
        """The plug-in ``get()`` names, or ``None`` with a problem recorded."""
        try:
            return self._shape(get())
        except Exception as exc:  # a broken plug-in never breaks the others
            self._problems.append(PluginProblem(self.kind, name, source, error_text(exc)))
            return None

    def _add(self, plugin: P, *, replace: bool) -> None:
        if self._unique:
            key = self._key(plugin)
            for n, known in enumerate(self._plugins):
                if self._key(known) == key:
                    if replace:
                        self._plugins[n] = plugin
                    return
        self._plugins.append(plugin)

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

    def reset(self) -> None:
        """Forget every plug-in and problem; the next use loads the built-ins and entry points
        again (tests, and a host that installed a plug-in while running)."""
        entry_point_memo.reset()
        with self._lock:
            self._plugins, self._problems, self._noted = [], [], []
            self._loaded = self._loading = False
        self._changed()

    # ------------------------------------------------------------------ membership

    def register(self, plugin: Any) -> P:
        """Add ``plugin`` after those registered so far (checked by the kind's shape: raises
        :class:`TypeError` for an object without it). With ``unique``, a plug-in of a known key
        replaces that one in its place. Returns the plug-in."""
        checked = self._shape(plugin)
        self._add(checked, replace=True)
        self._changed()
        return checked

    def unregister(self, key: str) -> None:
        """Remove every plug-in whose key is ``key`` (none: nothing happens)."""
        self.load()
        self._plugins = [p for p in self._plugins if self._key(p) != key]
        self._changed()

    def all(self) -> list[P]:
        """Every plug-in, in order."""
        self.load()
        return list(self._plugins)

    def __iter__(self) -> Iterator[P]:
        return iter(self.all())

    def __len__(self) -> int:
        return len(self.all())

    def keys(self) -> list[str]:
        """The key of every plug-in, in order."""
        return [self._key(p) for p in self.all()]

    def find(self, key: str) -> P | None:
        """The (first) plug-in whose key is ``key``, or ``None``. Does not load by itself."""
        return next((p for p in self._plugins if self._key(p) == key), None)

    def get(self, key: str) -> P:
        """The plug-in whose key is ``key``. Raises :class:`KeyError` when there is none."""
        self.load()
        found = self.find(key)
        if found is None:
            raise KeyError(key)
        return found

    # ------------------------------------------------------------------ problems

    @property
    def load_problems(self) -> list[PluginProblem]:
        """Plug-ins that could not be loaded (left out), in the order they were met."""
        self.load()
        return list(self._problems)

    @property
    def problems(self) -> list[PluginProblem]:
        """:attr:`load_problems`, then the failures noted while plug-ins ran (:meth:`note`)."""
        self.load()
        return self._problems + self._noted

    def note(self, name: str, source: str, message: str) -> PluginProblem:
        """Record a failure of plug-in ``name`` (from ``source``) at run time, once per plug-in
        and message (a rule that fails on every text is one record). Returns the record."""
        problem = PluginProblem(self.kind, name, source, message)
        with self._lock:
            if problem not in self._noted:
                self._noted.append(problem)
        return problem


def source_of(plugin: object) -> str:
    """``"module:QualifiedClass"`` of a plug-in object: where a run-time problem says it came from."""
    cls = type(plugin)
    return f"{cls.__module__}:{cls.__qualname__}"
