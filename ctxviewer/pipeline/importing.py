"""Importing trace files into a store: detect each file's format, load it, count missing tokens,
and add every trace of the run in one transaction.

Invariants:

* All traces of one :func:`import_files` run go through a single ``TraceStore.add`` call, so a
  crash, a store error or a cancel part-way leaves the database's traces unchanged.
* A file that fails wholesale (unreadable, unrecognised: :class:`ImportFailed`) becomes one
  :class:`ImportProblem` naming the file; the other files still load. A bad record inside a
  file is the importer's problem record; the rest of the file still loads.
* Files read together (:mod:`ctxviewer.pipeline.companion_files`): a spans file and a separate
  OTLP logs file of the same calls, given together (two paths, or a folder holding both), are
  joined -- the joining files load first, the joined ones after them.
* A directory among the paths stands for the regular, non-hidden files directly inside it, in
  name order (and those of its sub-folders with ``recursive``): :func:`ctxviewer.pipeline.folders.expand_paths`; every entry left
  out is named in the report with why (:class:`~ctxviewer.pipeline.folders.Skipped`).
* Token counts are counted here and only here (importers never count): an item with content but
  ``tokens=None`` gets ``store.token_counts([content, ...], encoding)`` (cached per content hash
  and encoding; the distinct texts not cached counted once each, in parallel over the cores), with
  the model's own encoding (:func:`ctxviewer.tokens.profiles.counting_encoding`: the recorded
  ``endpoint.encoding``, else the model's endpoint profile -- ``o200k_base`` for the GPT-4o family --
  the same encoding ``ctxviewer tokens`` and the what-if use), and the provenance ``counted`` with
  that encoding, or ``estimated`` when the encoding only approximates the model's tokenizer. Counts an importer read from the file keep
  the provenance it gave (``recorded``, ``reported``).

No Qt here.
"""

from __future__ import annotations

import os
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from ctxviewer.assess.context import EMPTY, AssessContext, context_for_db
from ctxviewer.diff.conversation import conversation_key
from ctxviewer.importers import REGISTRY, ImportFailed, ImportProblem, Registry
from ctxviewer.importers.common.field_account import UNMAPPED_ATTRIBUTE, count_unmapped
from ctxviewer.importers.contract import Record
from ctxviewer.model.run import RunSpan
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.assess_pool import assessed, default_workers, import_workers
from ctxviewer.pipeline.companion_files import plan
from ctxviewer.pipeline.derived_facts import refresh_derived
from ctxviewer.pipeline.folders import expand_paths
from ctxviewer.pipeline.hints import create_store
from ctxviewer.pipeline.import_claim import NewFileClaim
from ctxviewer.pipeline.import_report import ImportReport as ImportReport  # where the CLI and GUI import it from
from ctxviewer.pipeline.ingest_chunk import Ready, repaired
from ctxviewer.pipeline.ingest_pool import Pool, forced, pooled, staged, use_pool
from ctxviewer.pipeline.missing_counts import counted
from ctxviewer.pipeline.sanitize import CheckedForms
from ctxviewer.store import StoreError, TraceStore
from ctxviewer.store.writes import WriteCancelled
from ctxviewer.util.interrupt import Interrupted, watching


class ImportCancelled(Exception):
    """Raised inside an import run when ``cancelled()`` returns True; the transaction is undone."""


def remove_database(path: str | Path) -> None:
    """Delete the database ``path`` and its ``-journal``, ``-wal`` and ``-shm`` files, where present.

    For a database this run created and left empty; never call it on a database that existed.
    """
    for name in (str(path), f"{path}-journal", f"{path}-wal", f"{path}-shm"):
        try:
            os.remove(name)
        except OSError:  # absent, or a read-only file system where it was never created
            pass


def import_files(
    paths: Sequence[str | Path],
    store: TraceStore,
    fmt: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    registry: Registry = REGISTRY,
    waiting: Callable[[str], None] | None = None,
    activity: Callable[[str], None] | None = None,
    workers: int | None = None,
    context: AssessContext | None = None,
    read: Callable[[int], None] | None = None,
    recursive: bool = False,
    pool: bool | None = None,
) -> ImportReport:
    """Import every trace in ``paths`` into ``store`` in one transaction.

    Directories in ``paths`` are expanded with :func:`~ctxviewer.pipeline.folders.expand_paths`
    (their sub-folders too with ``recursive``). ``fmt`` forces an importer by name (``native``, ``otel``, ...); by default each file's format
    is detected. ``progress(files_done, files_total)`` is called after each file (and with
    ``(0, total)`` first); ``cancelled()`` is polled between records and, when it returns True,
    the run is rolled back and reported with ``cancelled=True``. ``registry`` is where importers
    come from (default: built-ins plus entry points); a bug in one importer's ``sniff`` or
    ``load`` becomes a problem naming the file and the importer, and the run goes on. A file that
    yields no trace under a forced ``fmt`` gets a hint naming the format detection would pick
    (:meth:`Registry.hint`: ``"it looks like otel; try --format otel"``).
    ``waiting(message)`` is told when another import holds the write lock
    (:meth:`~ctxviewer.store.TraceStore.add` waits for it, polling ``cancelled()``).
    ``activity(message)`` hears how far a long step inside one record is (token counting and
    scanning of a huge item: :func:`ctxviewer.util.interrupt.progress`), a few times a second.
    ``read(traces)`` is called after each trace read, with the number read so far in this run
    (they are counted, assessed and written a few hundred behind: the CLI's progress line).

    Speed: token counts are counted for batches of traces at once (each distinct text
    once, over the cores: :func:`count_missing_tokens_many`), and the per-trace assessment whose
    facts the store keeps runs in ``workers`` processes while this one parses and writes (default
    :func:`ctxviewer.pipeline.assess_pool.import_workers`: one per core from 3 cores, else none;
    ``1`` assesses in this process). A big OTel JSON Lines file is instead parsed, mapped, repaired,
    counted and assessed in chunks in ``workers`` processes (default: as the assessment's, one per
    core from 3 cores -- on 2 it measured no faster --, or one per core when ``pool`` or
    ``CTXVIEWER_INGEST_POOL=pool`` asks for it) while this one writes (:mod:`ctxviewer.pipeline.ingest_pool`; by the file's size, ``pool`` True or False
    forces it). None of this changes what is stored or the order of the problems. The facts are
    computed in ``context``, by default the store's own (:func:`ctxviewer.assess.context.context_for_db`:
    ``ctxviewer.toml`` and the marks beside it), the context every surface then reads the trace in;
    a broken ``ctxviewer.toml`` or marks file there is a problem naming it, and the traces are
    assessed without it.

    Returns an :class:`ImportReport`. Raises :class:`ImportFailed` for an unknown ``fmt``,
    :class:`~ctxviewer.store.StoreError` when the store is read-only or refuses the write (nothing
    written); an exception from a callback or the store propagates after rolling back.
    """
    importer = registry.get(fmt) if fmt is not None else None
    report = ImportReport(imported=0, files=0)
    report.problems.extend(registry.load_problems)  # plug-ins that could not be loaded
    if context is None:
        try:
            context = context_for_db(store.path)
        except ValueError as exc:
            report.problems.append(ImportProblem(str(store.path), "settings", f"{exc}; the traces were assessed without it"))
            context = EMPTY
    entries = expand_paths(paths, skip=store.path, skipped=report.skipped, recursive=recursive)
    total = sum(1 for e in entries if isinstance(e, Path))
    named = {Path(p) for p in paths}  # a file a folder held that is no trace file is only a warning
    in_conversations: dict[str, None] = {}  # calls that may have dropped earlier turns (derived after the add)
    held: list[bool] = []  # [whether the database held traces before this run], known at the first trace
    runs: list[RunSpan] = []  # the steps of each run (the run tree), written in the same transaction
    forms = CheckedForms()  # each trace's record as checked, written without converting it again

    # by default the big files' pool too runs from POOL_MIN_CORES cores (on 2 cores it measured no
    # faster: ingest_pool.POOL_MIN_BYTES), unless pool=True or CTXVIEWER_INGEST_POOL=pool asks for it
    asked = pool if pool is not None else forced()
    workers_pool = Pool(workers if workers is not None else default_workers() if asked else import_workers())
    ready_forms: dict[str, tuple[RequestTrace, dict[str, Any] | None]] = {}

    def details(trace: RequestTrace) -> dict[str, Any] | None:  # a worker's stored form, else the checked one
        kept = ready_forms.pop(trace.trace_id, None)
        return kept[1] if kept is not None and kept[0] is trace else forms.take(trace)

    def traces() -> Iterator[RequestTrace | Ready]:
        if progress:
            progress(0, total)
        done = 0
        n_read = 0
        planned, companions = plan(entries, importer, registry)
        for entry in planned:
            path = entry.path
            if isinstance(path, ImportProblem):
                report.problems.append(path)
                continue
            done += 1
            yielded = False
            failed: str | None = None  # why the whole file failed
            detected = False
            report.problems.extend(entry.sniffed)
            try:
                if entry.failed is not None:
                    raise entry.failed
                imp = entry.importer
                assert imp is not None  # a path without a failure has its importer
                detected = True
                serial = partial(registry.load, imp, path, runs, companions)
                records: Iterable[Record | Ready] = (
                    pooled(path, workers_pool, context, runs, store.remember_counts, serial)
                    if use_pool(path, imp, companions, workers_pool.n, pool) else serial())
                for record in records:
                    if cancelled and cancelled():
                        raise ImportCancelled()
                    if isinstance(record, Ready):
                        trace = _noted(record.trace, record.repairs, record.conversation, str(path), report,
                                       in_conversations, (store, held))
                    else:
                        trace = _accepted(record, str(path), report, in_conversations, (store, held), forms)
                    if trace is None:
                        continue
                    yielded = True
                    n_read += 1
                    if read:
                        read(n_read)
                    yield record if isinstance(record, Ready) else trace
            except ImportFailed as exc:
                failed = _strip_path(str(exc), str(path))
                if detected and importer is None and entry.importer is not None:  # a guess may be wrong: say whose
                    failed += f" (read as {entry.importer.name}, the format detected; --format NAME forces another)"
            hint = registry.hint(path, importer) if importer is not None and not yielded else None
            if failed is not None:
                report.problems.append(ImportProblem(str(path), "whole file", failed + (f"; {hint}" if hint else ""),
                                                     dropped=_lost(path, named, detected, failed)))
            elif hint is not None and importer is not None:
                report.problems.append(ImportProblem(str(path), "whole file",
                                                     f"no traces read with --format {importer.name}; {hint}"))
            report.files = done
            if yielded or (companions is not None and companions.joined.get(path)):  # records joined to another file's traces
                report.files_imported += 1
            if progress:
                progress(done, total)
            if cancelled and cancelled():
                raise ImportCancelled()

    try:
        with watching(cancelled, activity):  # long counts and scans stop at their checkpoints (ctxviewer.util.interrupt)
            store.add(staged(traces(), lambda part: assessed(counted(part, store), import_workers() if workers is None
                                                               else workers, context=context), ready_forms),
                      waiting=waiting, cancelled=cancelled,
                      runs=runs, details=details)
        report.imported = len(report.items_by_trace)  # distinct traces: what the database now holds from this run
    except (ImportCancelled, WriteCancelled, Interrupted):
        workers_pool.close()
        report.items_by_trace.clear()
        report.imported = 0
        report.replaced = 0
        report.files_imported = 0
        report.cancelled = True
        return report
    finally:
        workers_pool.close()
    _refresh_conversations(store, in_conversations, context, report)
    return report


def import_records(records: Iterable[Record], store: TraceStore, source: str,
                   context: AssessContext | None = None) -> ImportReport:
    """Store the traces among ``records`` (an importer's output that came from no file: the live
    OTLP receiver's spans mapped by :func:`ctxviewer.importers.formats.otel.load_spans`) in one
    transaction, as :func:`import_files` stores a file's: repaired, counted, assessed in this
    process, a trace id already stored replaced, then the derived omissions of their conversations.
    ``source`` names them in problems (``"OTLP/HTTP"``); ``context`` as for :func:`import_files`.

    Returns the :class:`ImportReport` (``files`` 1). Raises :class:`~ctxviewer.store.StoreError`
    when the store refuses the write (nothing written)."""
    report = ImportReport(imported=0, files=1)
    if context is None:
        try:
            context = context_for_db(store.path)
        except ValueError as exc:
            report.problems.append(ImportProblem(str(store.path), "settings", f"{exc}; the traces were assessed without it"))
            context = EMPTY
    in_conversations: dict[str, None] = {}
    forms = CheckedForms()  # each trace's record as checked, written without converting it again
    accepted = (_accepted(r, source, report, in_conversations, forms=forms) for r in records)
    store.add(assessed(counted((t for t in accepted if t is not None), store), 1, context=context),
              details=forms.take)
    report.imported = len(report.items_by_trace)
    report.files_imported = 1 if report.imported else 0
    _refresh_conversations(store, in_conversations, context, report)
    return report


def _accepted(record: Record, file: str, report: ImportReport, in_conversations: dict[str, None],
              already: tuple[TraceStore, list[bool]] | None = None, forms: CheckedForms | None = None,
              ) -> RequestTrace | None:
    """One record of an import run noted in ``report``: a problem is added to it (``None``); a trace
    is repaired (:func:`ctxviewer.pipeline.ingest_chunk.repaired`; ``None`` when still unreadable), counted in ``items_by_trace``
    (a repeated id replaces the earlier one, with a problem; with ``already`` -- the store and its
    "held any trace" cache -- a trace an earlier import stored is counted in ``replaced`` and said)
    and, when it may have dropped earlier turns, remembered in ``in_conversations``. The live
    receiver passes no ``already``: rewriting a trace as its spans arrive is the point. ``forms``
    keeps the trace's record as it was checked, for the write."""
    if isinstance(record, ImportProblem):
        (report.notes if record.info else report.problems).append(record)  # a note only says what was done
        return None
    repairs: list[ImportProblem] = []
    trace = repaired(record, file, repairs, forms)
    conversation = trace is not None and not trace.omissions_recorded and conversation_key(trace) is not None
    return _noted(trace, repairs, conversation, file, report, in_conversations, already)


def _noted(trace: RequestTrace | None, repairs: list[ImportProblem], conversation: bool, file: str,
           report: ImportReport, in_conversations: dict[str, None],
           already: tuple[TraceStore, list[bool]] | None = None) -> RequestTrace | None:
    """The run's books of one repaired trace (``None``: left out, ``repairs`` say why), as
    :func:`_accepted` keeps them; ``conversation``: it may have dropped earlier turns."""
    if trace is None:  # the store could not read it back: left out, with a problem saying why
        report.problems.extend(repairs)
        return None
    if trace.trace_id in report.items_by_trace:  # same id again: the later record replaces it
        report.problems.append(ImportProblem(file, f"trace {trace.trace_id}",
                                             "trace id already imported in this run; this record replaces the earlier one"))
    elif already is not None and _already_stored(*already, trace.trace_id):  # from an earlier import: said, counted
        report.replaced += 1
        report.problems.append(ImportProblem(file, f"trace {trace.trace_id}",
                                             f"trace {trace.trace_id} is already in {already[0].path}; this record replaces it"))
    report.items_by_trace[trace.trace_id] = len(trace.items)
    if UNMAPPED_ATTRIBUTE in trace.attributes:
        count_unmapped(trace.attributes, report.unmapped.setdefault(file, Counter()))
    report.problems.extend(repairs)
    if conversation:
        in_conversations[trace.trace_id] = None
    return trace


def _refresh_conversations(store: TraceStore, in_conversations: dict[str, None], context: AssessContext,
                           report: ImportReport) -> None:
    """The dropped-between-calls facts of ``in_conversations``, as show and check derive them (a
    second, small transaction); a store error becomes a problem in ``report``."""
    if not in_conversations:
        return
    try:
        refresh_derived(store, in_conversations, context)
    except StoreError as exc:
        report.problems.append(ImportProblem(str(store.path), "derived omissions",
                                             f"{exc}; the rows keep the facts without them"))


def import_into(
    db_path: str | Path,
    paths: Sequence[str | Path],
    fmt: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    registry: Registry = REGISTRY,
    waiting: Callable[[str], None] | None = None,
    activity: Callable[[str], None] | None = None,
    workers: int | None = None,
    read: Callable[[int], None] | None = None,
    recursive: bool = False,
    pool: bool | None = None,
) -> ImportReport:
    """Import ``paths`` into the database ``db_path``: the whole import, as the CLI and the GUI run it.

    Creates the database (or upgrades an older schema) with :meth:`TraceStore.create`, imports in
    one transaction with :func:`import_files` (``fmt``, ``progress``, ``cancelled``, ``registry``,
    ``waiting``, ``activity``, ``workers``, ``read``, ``recursive`` and ``pool`` as there), closes it, and -- when this call created the file and nothing was
    imported (no traces, a cancel, or an error) -- removes it again (:func:`remove_database`) and
    says so in the report (``removed_database``). An existing database is never removed.

    Returns the :class:`ImportReport` (``database`` set). Raises
    :class:`~ctxviewer.store.StoreError` (not a ctxviewer database, read-only, cannot be written)
    and :class:`ImportFailed` (unknown ``fmt``); a database this call created is removed first.
    """
    with NewFileClaim(db_path) as claim:
        try:
            with create_store(db_path) as store:
                report = import_files(paths, store, fmt=fmt, progress=progress, cancelled=cancelled,
                                      registry=registry, waiting=waiting, activity=activity, workers=workers,
                                      read=read, recursive=recursive, pool=pool)
        except BaseException:
            if claim.may_remove():
                remove_database(db_path)
            raise
        report.database = str(db_path)
        if (report.imported == 0 or report.cancelled) and claim.may_remove():
            remove_database(db_path)
            report.removed_database = True
    return report


def _lost(path: Path, named: set[Path], detected: bool, failed: str) -> int:
    """``1`` when the failure of the whole file ``path`` lost data: always for a file named for the
    import, and for a file a folder held unless it is simply no trace file (empty, not recognised:
    a folder's notes.txt); ``0`` for such a file (a warning)."""
    return int(path in named or detected or failed.startswith("cannot read"))


def _already_stored(store: TraceStore, held: list[bool], trace_id: str) -> bool:
    """Whether ``store`` held ``trace_id`` before this run (the caller knows this run's own ids).
    ``held`` caches whether it held any trace at all, asked once (a new database is never looked up)."""
    if not held:
        held.append(bool(store.estimate_count()))
    return held[0] and store.key_of(trace_id) is not None


def _strip_path(message: str, path: str) -> str:
    """ImportFailed messages start with the path; the problem already names the file."""
    prefix = f"{path}: "
    return message[len(prefix):] if message.startswith(prefix) else message

