"""The importer registry: built-in importers, third-party ones from entry points, detection, and
exception isolation.

* Membership is a :class:`ctxviewer.util.plugins.PluginRegistry` (the registry type importers,
  checks and scanner rules share): the built-ins of :data:`BUILTIN` (``"module:attribute"``
  specs, in sniffing order), importers registered with :meth:`Registry.register`, then the entry
  points of :data:`ENTRY_POINT_GROUP` (``ctxviewer.importers``). An entry point names an importer
  object or a class/factory that returns one; its shape is checked (:func:`importer_of`). A
  plug-in that fails to load is left out and recorded in :attr:`Registry.load_problems`; it never
  breaks the built-ins.
* :meth:`Registry.detect` asks every importer's ``sniff`` for a confidence and picks the most
  confident (ties: registration order, built-ins first; the scale is
  :data:`~.contract.CONFIDENT`'s). It reads :data:`HEAD_SIZES` in turn -- 64 KiB first, then
  more -- until an importer is confident or the whole file was read, so a span list whose first
  span is over 64 KiB is still recognised. The sniff contract is held (:func:`sniff_score`): a
  result that is not a real number in ``[0, 1]`` scores 0 and is a problem naming the importer.
* A bug in one importer (any exception from ``sniff``, or from ``load`` other than
  :class:`~.contract.ImportFailed`) becomes an :class:`~.contract.ImportProblem` naming the file
  and the importer; the run goes on with the next file (:meth:`Registry.detect`,
  :meth:`Registry.load`).

No Qt here.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from ctxviewer.importers.common import notes
from ctxviewer.importers.contract import CONFIDENT, Companions, Importer, ImportFailed, ImportProblem, Record
from ctxviewer.model.run import RunSpan
from ctxviewer.model.trace import RequestTrace
from ctxviewer.util.plugins import PluginRegistry, conform, failure, load_spec

_END = object()

ENTRY_POINT_GROUP = "ctxviewer.importers"
"""Entry-point group third-party importers register under (``pyproject.toml``:
``[project.entry-points."ctxviewer.importers"] myformat = "mypkg.importer:IMPORTER"``)."""

BUILTIN = tuple(
    f"ctxviewer.importers.formats.{module}:IMPORTER"
    for module in ("native", "openinference", "otel", "otel.logs", "ctxviewer_otlp",  # most specific first: OpenInference OTLP is OTLP too
                   "cassette", "inspect_ai", "langfuse", "langfuse.blob", "langfuse_chatml", "langsmith", "litellm", "mlflow", "promptfoo",
                   "provider_api", "phoenix_annotations")
)
"""The built-in importers (``ctxviewer/importers/formats/<module>.py``), in sniffing order (which
breaks ties between equal confidences; no real export relies on it: each is surest of its own)."""

HEAD_SIZES = (64 * 1024, 1024 * 1024, 16 * 1024 * 1024)
"""Bytes of a file that :meth:`Registry.detect` shows the sniffers, in turn, until one is confident."""


_SQLITE_MAGIC = b"SQLite format 3\x00"


def _database_message(path: Path) -> str:
    """Why an SQLite file is not imported: a ctxviewer trace database (it has a ``traces`` table)
    is opened or upgraded, not imported (databases are not merged); a corrupt one says what SQLite
    found (also when its message is not UTF-8); any other is not a trace file."""
    import sqlite3

    from ctxviewer.util.sqlite_errors import SQLITE_FAILURES, is_corrupt_error, sqlite_message

    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            ours = con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'traces'").fetchone()
        finally:
            con.close()
    except SQLITE_FAILURES as exc:
        if is_corrupt_error(exc):
            return f"{path}: is corrupt: {sqlite_message(exc)}"
        ours = None
    except sqlite3.Error:
        ours = None
    if ours:
        return (f"{path}: is already a ctxviewer trace database; import reads trace files and does not merge "
                f"databases: open it (ctxviewer {path}), or copy an older one to this version with "
                f"'ctxviewer upgrade {path} -o NEW.db'")
    return f"{path}: is an SQLite database, not a trace file"


def importer_of(obj: Any) -> Importer:
    """An entry point's (or built-in spec's) object as an importer, its shape checked: a class or
    factory is called first (:func:`ctxviewer.util.plugins.conform`). Raises :class:`TypeError`
    for an object without the members of :class:`~.contract.Importer`, a ``name`` that is not a
    non-empty string or a ``records_omissions`` that is not a bool."""
    imp: Importer = conform(obj, Importer, "an importer", "name, description, records_omissions, sniff, load")
    if not isinstance(imp.name, str) or not imp.name:
        raise TypeError(f"{imp!r}: an importer's name is a non-empty string, not {imp.name!r}")
    if not isinstance(imp.records_omissions, bool):
        raise TypeError(f"importer {imp.name!r}: records_omissions is a bool, not {imp.records_omissions!r}")
    return imp


def sniff_score(imp: Importer, path: Path, head: bytes) -> tuple[float, str | None]:
    """``imp.sniff(path, head)`` with the contract held: the score, and ``None`` -- or ``0.0`` and
    the problem's message when the sniff raised or returned anything but a real number in
    ``[0, 1]`` (a bool, NaN, 1.5, a string)."""
    try:
        score: object = imp.sniff(path, head)
    except Exception as exc:
        return 0.0, failure("importer", imp.name, "sniff", exc)
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0:  # NaN fails the range
        return 0.0, (f"importer {imp.name!r} broke the sniff contract: it returned {score!r} "
                     f"({type(score).__name__}), not a float in [0, 1]")
    return float(score), None


def blank_problem(data: bytes) -> str | None:
    """What is wrong with a file whose whole content is ``data`` when it holds nothing to read:
    ``"is empty (0 bytes)"``, ``"holds only white space (N bytes)"``, else ``None``."""
    if data.strip():
        return None
    return "is empty (0 bytes)" if not data else f"holds only white space ({len(data)} bytes)"


def forced_blank(path: Path, importer: Importer) -> ImportFailed | None:
    """For ``--format NAME`` (``importer``), which skips :meth:`Registry.detect`: the failure of a
    regular file that is empty or only white space (:func:`blank_problem`), naming the file and
    the format -- ``"F: is empty (0 bytes); nothing to read as --format native"`` -- rather than
    the importer's own words ("not JSON: Expecting value", or nothing at all). ``None`` for any other
    file, and when it cannot be read (the importer says why)."""
    try:
        if not path.is_file() or path.stat().st_size > HEAD_SIZES[0]:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    blank = blank_problem(data)
    return None if blank is None else ImportFailed(f"{path}: {blank}; nothing to read as --format {importer.name}")


class Registry:
    """Importers by name, in sniffing order. Use the module's default :data:`REGISTRY`.

    Membership is a :class:`~ctxviewer.util.plugins.PluginRegistry` (:attr:`plugins`): the
    ``builtin`` specs, importers registered directly, then the entry points of ``group``
    (``None``: none)."""

    def __init__(self, builtin: tuple[str, ...] = BUILTIN, group: str | None = ENTRY_POINT_GROUP) -> None:
        self.plugins: PluginRegistry[Importer] = PluginRegistry(
            "importer", key=lambda i: i.name, shape=importer_of, builtin=builtin, group=group)
        """The importers, in sniffing order, and the problems loading them."""
        self._builtin_omissions: dict[str, bool] = {}  # source format -> its built-in's records_omissions

    # ------------------------------------------------------------------ membership

    @property
    def load_problems(self) -> list[ImportProblem]:
        """Plug-ins that could not be loaded: file ``"entry point NAME"`` (``"built-in SPEC"``),
        record its value (``"mypkg.importer:IMPORTER"``), message the error."""
        return [ImportProblem(f"built-in {p.name}" if p.source in self.plugins.builtin else f"entry point {p.name}",
                              p.source, p.message) for p in self.plugins.load_problems]

    def register(self, importer: Importer) -> Importer:
        """Add ``importer`` (sniffed after those already registered; once loaded, the same name
        replaces in place, before that a built-in keeps its name). Returns it. Raises
        :class:`TypeError` for an object without the importer shape."""
        return self.plugins.register(importer)

    def unregister(self, name: str) -> None:
        """Remove the importer ``name`` if registered (tests, plug-in reloads)."""
        self.plugins.unregister(name)

    def importers(self) -> list[Importer]:
        """Every registered importer, in sniffing order."""
        return self.plugins.all()

    def names(self) -> list[str]:
        """Registered importer names, in sniffing order."""
        return self.plugins.keys()

    def get(self, name: str) -> Importer:
        """The importer ``name``. Raises :class:`ImportFailed` listing the known names."""
        try:
            return self.plugins.get(name)
        except KeyError:
            raise ImportFailed(f"unknown format {name!r}; known formats: {', '.join(self.names())}") from None

    def records_omissions(self, source_format: str | None) -> bool:
        """Whether traces from ``source_format`` can say which candidates were omitted: the
        importer's declared ``records_omissions``; True for ``None`` (built by an application)
        and for unknown formats."""
        if source_format is None:
            return True
        if not self.plugins.loaded:  # the built-in of that name wins; load only its module (start-up time)
            known = self._builtin_omissions.get(source_format)  # asked once per trace at import
            if known is not None:
                return known
            spec = next((s for s in self.plugins.builtin if s.partition(":")[0].rsplit(".", 1)[-1] == source_format), None)
            if spec is not None:
                builtin = importer_of(load_spec(spec))
                if builtin.name == source_format:
                    self._builtin_omissions[source_format] = builtin.records_omissions
                    return builtin.records_omissions
        self.plugins.load()
        imp = self.plugins.find(source_format)
        return True if imp is None else imp.records_omissions

    # ------------------------------------------------------------------ detection and loading

    def detect(self, path: Path, problems: list[ImportProblem] | None = None) -> Importer:
        """The most confident importer for ``path`` (see the module docstring).

        A ``sniff`` that raises scores 0 and appends an :class:`ImportProblem` naming the file and
        the importer to ``problems``. Raises :class:`ImportFailed` when the file cannot be read or
        no importer gives it a confidence above 0 (saying so when its JSON nests deeper than
        :data:`~.common.peek.MAX_DEPTH`; sniffing such a file is bounded by that cap).
        """
        importers = self.importers()
        scores: dict[str, float] = {}
        failed: dict[str, str] = {}
        try:
            with open(path, "rb") as fh:
                head = b""
                for size in HEAD_SIZES:
                    head += fh.read(size - len(head))
                    whole = len(head) < size
                    for imp in importers:
                        if imp.name not in failed:
                            scores[imp.name] = self._sniff(imp, path, head, failed)
                    if whole or max(scores.values(), default=0.0) >= CONFIDENT:
                        break
        except OSError as exc:
            raise ImportFailed(f"{path}: cannot read file: {exc.strerror or exc}") from None
        blank = blank_problem(head) if whole else None
        if blank is not None:  # nothing to sniff: say so rather than "not recognised"
            raise ImportFailed(f"{path}: {blank}" + ("; no traces in it" if head else ""))
        if problems is not None:
            problems.extend(ImportProblem(str(path), "whole file", msg) for msg in failed.values())
        best = max(importers, key=lambda i: scores.get(i.name, 0.0), default=None)
        if best is None or scores.get(best.name, 0.0) <= 0.0:
            from ctxviewer.importers.common.containers import head_text
            from ctxviewer.importers.common.peek import MAX_DEPTH, peek_json

            if head.startswith(_SQLITE_MAGIC):
                raise ImportFailed(_database_message(path))
            if peek_json(head_text(head).encode("utf-8")).too_deep:
                raise ImportFailed(f"{path}: not a recognised trace file: its JSON is nested more than "
                                   f"{MAX_DEPTH} levels deep (no trace format nests like this)")
            gunzipped = " once gunzipped" if head.startswith(b"\x1f\x8b") else ""  # gzip magic: its contents were sniffed
            raise ImportFailed(
                f"{path}: not a recognised trace file{gunzipped} (known formats: {', '.join(self.names())}); "
                "use --format to force one"
            )
        return best

    def hint(self, path: Path, tried: Importer) -> str | None:
        """For a file that gave no trace read as ``tried`` (a forced format): ``"it looks like
        otel; try --format otel"`` when :meth:`detect` picks another importer for it, else ``None``
        (also when detection fails). Never raises."""
        try:
            found = self.detect(path)
        except Exception:  # unreadable, unrecognised, or a sniffer's bug: no better guess
            return None
        return None if found.name == tried.name else f"it looks like {found.name}; try --format {found.name}"

    @staticmethod
    def _sniff(imp: Importer, path: Path, head: bytes, failed: dict[str, str]) -> float:
        score, problem = sniff_score(imp, path, head)
        if problem is not None:
            failed[imp.name] = problem
        return score

    def load(self, importer: Importer, path: Path, runs: list[RunSpan] | None = None,
             companions: Companions | None = None) -> Iterator[Record]:
        """``importer.load(path)`` with its bugs isolated. With ``runs``, an importer that knows
        runs is read by its ``load_runs(path)`` instead and the steps it yields
        (:class:`~ctxviewer.model.run.RunSpan`) are appended to ``runs``, not yielded. With
        ``companions`` (the other files of the run: :class:`~ctxviewer.importers.contract.Companions`),
        an importer whose ``load`` (or ``load_runs``) takes a ``companions`` keyword gets it.

        :class:`ImportFailed` propagates (the file is unreadable). Any other exception ends this
        file with an :class:`ImportProblem` (``whole file``) naming the importer and the error;
        traces yielded before it are kept. A yielded object that is neither a trace nor a
        problem becomes a problem too. A trace of an importer that does not record omissions
        (``records_omissions`` False) comes with ``omissions_recorded`` False.
        """
        file = str(path)
        load_runs = getattr(importer, "load_runs", None) if runs is not None else None
        reader: Any = load_runs if callable(load_runs) else importer.load
        records = iter(reader(path, companions=companions) if companions is not None and _takes_companions(reader)
                       else reader(path))
        while True:
            failed: ImportProblem | None = None
            with notes.collecting(file) as noted:  # warnings of shared readers (containers)
                try:
                    record_any: object = next(records)  # a plug-in may yield anything
                except StopIteration:
                    record_any = _END
                except ImportFailed:
                    raise
                except RecursionError:
                    failed = ImportProblem(file, "whole file", f"importer {importer.name!r} could not read a value "
                                                               "nested too deep; the rest of the file is left out",
                                            dropped=1)
                except Exception as exc:
                    failed = ImportProblem(file, "whole file", failure("importer", importer.name, "load", exc), dropped=1)
            yield from noted
            if failed is not None:
                yield failed
                return
            if record_any is _END:
                return
            if isinstance(record_any, RequestTrace):
                if record_any.omissions_recorded and not importer.records_omissions:
                    record_any = replace(record_any, omissions_recorded=False)  # the format cannot record them
                yield record_any
            elif isinstance(record_any, ImportProblem):
                yield record_any
            elif isinstance(record_any, RunSpan) and runs is not None:
                runs.append(record_any)
            else:
                yield ImportProblem(file, "whole file", failure("importer", importer.name, "load", TypeError(
                    f"yielded {type(record_any).__name__}, not a RequestTrace or ImportProblem")), dropped=1)


def _takes_companions(reader: Any) -> bool:
    """Whether ``reader`` (an importer's ``load`` / ``load_runs``) takes a ``companions`` keyword."""
    import inspect

    try:
        return "companions" in inspect.signature(reader).parameters
    except (TypeError, ValueError):  # a builtin or an odd callable of a plug-in
        return False


REGISTRY = Registry()
"""The registry every surface uses (CLI, GUI, import pipeline)."""
