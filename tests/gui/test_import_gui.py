"""Import from the GUI: off the GUI thread, own store connection, progress, cancel, problems named."""

from __future__ import annotations

import threading
from pathlib import Path

from factories import make_trace

from ctxviewer.gui.worker import Task
from ctxviewer.importers.formats.native import write_jsonl


def test_task_runs_off_gui_thread_and_reports(qtbot) -> None:
    seen: dict[str, object] = {}

    def job(progress, cancelled):  # type: ignore[no-untyped-def]
        seen["thread"] = threading.current_thread()
        progress(1, 2)
        return 42

    task = Task(job)
    with qtbot.waitSignal(task.sig_finished, timeout=5000) as done:
        task.start()
    assert done.args == [42]
    assert seen["thread"] is not threading.main_thread()
    assert task.done


def test_task_failure_and_cancel(qtbot) -> None:
    def boom(progress, cancelled):  # type: ignore[no-untyped-def]
        raise ValueError("bad.json: line 3: broken")

    task = Task(boom)
    with qtbot.waitSignal(task.sig_failed, timeout=5000) as failed:
        task.start()
    assert failed.args == ["bad.json: line 3: broken"]

    started = threading.Event()

    def slow(progress, cancelled):  # type: ignore[no-untyped-def]
        started.set()
        while not cancelled():
            pass
        return "stopped"

    task = Task(slow)
    with qtbot.waitSignal(task.sig_finished, timeout=5000) as done:
        task.start()
        started.wait(5)
        task.cancel()
    assert done.args == ["stopped"] and task.is_cancelled


def test_import_into_new_database_then_open_it(qtbot, tmp_path: Path, windows) -> None:
    src = tmp_path / "traces.jsonl"
    write_jsonl([make_trace(trace_id="imported-1"), make_trace(trace_id="imported-2")], src)
    bad = tmp_path / "bad.json"
    bad.write_text("hello")
    target = tmp_path / "out.db"
    w = windows.new(show=False)
    with qtbot.waitSignal(w.sig_trace_shown, timeout=30_000) as shown:
        w.importer.import_into([str(src), str(bad)], str(target))
    assert shown.args == ["imported-1"]
    assert w.store is not None and w.store.readonly and w.store.path == target
    assert w.trace_model.total == 2
    assert str(bad) in windows.message(w)  # the problem names the file


def test_problems_text_counts_files_that_yielded_traces() -> None:
    from ctxviewer.gui.importer import problems_text
    from ctxviewer.importers import ImportProblem
    from ctxviewer.pipeline.importing import ImportReport

    report = ImportReport(imported=2, problems=[ImportProblem("missing.jsonl", "whole file", "cannot read file")],
                          files=2, files_imported=1)
    assert problems_text(report).splitlines()[0] == "Imported 2 traces from 1 of 2 files; 1 problems:"
    assert problems_text(report).splitlines()[2] == "missing.jsonl: whole file: cannot read file"


def test_problems_text_says_what_was_left_out_as_the_cli_does() -> None:
    from ctxviewer.gui.importer import problems_text
    from ctxviewer.importers import ImportProblem
    from ctxviewer.pipeline.importing import ImportReport

    report = ImportReport(imported=2, files=3, files_imported=2, problems=[
        ImportProblem("missing.jsonl", "whole file", "cannot read file", dropped=1),
        ImportProblem("t.jsonl", "line 4", "invalid JSON", dropped=1),
        ImportProblem("o.json", "span 1", "parent span 0 is not in this file")])
    assert problems_text(report).splitlines()[0] == (
        "Imported 2 traces from 2 of 3 files; 3 problems (1 file(s) could not be read, 1 record(s) skipped):")


def test_import_of_nothing_removes_the_database_it_created(qtbot, tmp_path: Path, windows) -> None:
    """GUI and CLI share ctxviewer.pipeline.importing.import_into: a new database that received no trace is
    removed, and the message says so (it used to stay behind, empty)."""
    junk = tmp_path / "notatrace.json"
    junk.write_text('{"hello": "world"}')
    target = tmp_path / "new.db"
    w = windows.new(show=False)
    with qtbot.waitSignal(w.importer.sig_finished, timeout=10000) as done:
        w.importer.import_into([str(junk)], str(target))
    report = done.args[0]
    assert (report.imported, report.removed_database, report.database) == (0, True, str(target))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notatrace.json"]  # no database, no journal
    assert windows.message(w).splitlines()[0] == f"No traces imported; removed {target}, which this import had created."
    assert f"{junk}: whole file: not a recognised trace file" in windows.message(w)
    assert w.store is None  # nothing to open


def test_import_of_nothing_keeps_an_existing_database(qtbot, tmp_path: Path, windows) -> None:
    target = tmp_path / "old.db"
    src = tmp_path / "t.jsonl"
    write_jsonl([make_trace(trace_id="kept")], src)
    junk = tmp_path / "notatrace.json"
    junk.write_text('{"hello": "world"}')
    w = windows.new(show=False)
    with qtbot.waitSignal(w.sig_trace_shown, timeout=30_000):  # the imported database is opened
        w.importer.import_into([str(src)], str(target))
    with qtbot.waitSignal(w.importer.sig_finished, timeout=10000) as done:
        w.importer.import_into([str(junk)], str(target))
    assert done.args[0].removed_database is False and target.exists()
    assert windows.message(w).splitlines()[0] == "No traces imported."


def test_dropped_corpus_files_of_three_formats_import(qtbot, tmp_path: Path, windows,
                                                       shared: Path, monkeypatch) -> None:
    """Drag-and-drop of trace files (issue 6): an Inspect ``.eval`` zip, a recorded Anthropic
    cassette and an OTLP JSON file go through the same import as the CLI into the chosen database."""
    from PySide6.QtWidgets import QFileDialog

    from ctxviewer.gui.importer import IMPORT_FILTER

    for suffix in (".json", ".jsonl", ".gz", ".pb", ".eval", ".yaml"):
        assert f"*{suffix} " in IMPORT_FILTER or f"*{suffix})" in IMPORT_FILTER
    corpus = shared / "corpus"
    files = [corpus / "other/inspect_ai/inspect-log-read-sample.eval",
             corpus / "provider-api/anthropic/messages-cache-token-usage.vcr.yaml",
             corpus / "otel-genai/interlingua-raw-openai-v2.otlp.json"]
    target = tmp_path / "dropped.db"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    w = windows.new(show=False)
    with qtbot.waitSignal(w.importer.sig_finished, timeout=20000) as done:
        w.open_paths(files)
    report = done.args[0]
    assert (report.files, report.files_imported, report.imported, report.problems) == (3, 3, 3, [])
    qtbot.waitUntil(lambda: w.store is not None and w.trace_model.total == 3, timeout=10000)
    assert windows.shown(w).trace_id == w.trace_model.trace_id(0)  # the first imported trace is shown


def test_cancel_inside_a_huge_item_stops_the_run_and_leaves_no_file(qtbot, tmp_path: Path, windows) -> None:
    """Issue 12: Cancel acts inside one huge record (ctxviewer.util.interrupt checkpoints in the token count),
    not after it; the new database is removed and the message says nothing was written."""
    from dataclasses import replace

    base = make_trace()
    big = replace(base, trace_id="big", items=(replace(base.items[0], content="word " * 3_000_000, tokens=None),))
    src = tmp_path / "big.jsonl"
    write_jsonl([big], src)
    target = tmp_path / "new.db"
    w = windows.new(show=False)
    with qtbot.waitSignal(w.importer.sig_finished, timeout=120000) as done:
        task = w.importer.import_into([str(src)], str(target))
        qtbot.waitUntil(target.exists, timeout=60000)  # under way: the database was created
        assert w.importer.progress is not None
        w.importer.progress.canceled.emit()  # what the dialog's Cancel button sends
    report = done.args[0]
    assert report.cancelled and report.removed_database and task.is_cancelled
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("new.db")]  # no database, no journal
    assert windows.message(w) == f"Import cancelled; nothing was written; removed {target}, which this import had created."


def test_a_huge_item_says_what_it_is_doing_under_the_dialog_label(qtbot, tmp_path: Path, windows,
                                                                   monkeypatch) -> None:
    """Issue 12: a 50 MB item imported "with no progress". The dialog's label now tells the step."""
    from dataclasses import replace

    from ctxviewer.util import interrupt

    monkeypatch.setattr(interrupt, "PROGRESS_EVERY_S", 0.0)
    base = make_trace()
    items = list(base.items)
    items[4] = replace(items[4], content=("The parcel left the depot on Monday. " * 33_000)[:1_200_000], tokens=None)
    src = tmp_path / "huge.jsonl"
    write_jsonl([replace(base, trace_id="huge", items=tuple(items))], src)
    w = windows.new(show=False)
    labels: list[str] = []
    w.importer.activity.sig_activity.connect(  # after the controller's own slot: the label is already set
        lambda _text: labels.append(w.importer.progress.labelText() if w.importer.progress else ""))
    with qtbot.waitSignal(w.importer.sig_finished, timeout=120000) as done:
        w.importer.import_into([str(src)], str(tmp_path / "o.db"))
    assert done.args[0].imported == 1
    assert labels[0] == "Importing 1 files into o.db…\ncounting tokens: 0 % of 1.2 million characters"
    assert "Importing 1 files into o.db…\nscanning for instruction-like text: 0 % of 1.2 million characters" in labels
