"""import_files: detection, problems, token counting at import, one transaction, cancel."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest
from factories import make_trace

from ctxviewer.importers import ImportFailed, ImportProblem
from ctxviewer.importers.formats.native import trace_line, write_jsonl
from ctxviewer.model.trace import Endpoint, Kind, TokenProvenance, TokenSource
from ctxviewer.pipeline.importing import ImportReport, expand_paths, import_files, import_into
from ctxviewer.pipeline.missing_counts import count_missing_tokens
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import StoreError, TraceStore, content_digest
from ctxviewer.tokens.counting import count_tokens
from ctxviewer.tokens.item_rule import content_tokens
from tests.shared_data import CORPUS, needs_corpus


@pytest.fixture
def store(tmp_path: Path):
    with TraceStore.create(tmp_path / "traces.db") as s:
        yield s


def _ids(store: TraceStore) -> list[str]:
    return [r.trace_id for r in store.list()]


def test_one_bad_line_in_the_middle(tmp_path: Path, store: TraceStore) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(
        trace_line(make_trace(trace_id="a")) + "\n{not json\n" + trace_line(make_trace(trace_id="b")) + "\n",
        encoding="utf-8",
    )
    report = import_files([path], store)
    assert report == ImportReport(
        imported=2,
        problems=[ImportProblem(str(path), "line 2", "invalid JSON: Expecting property name enclosed in double quotes (column 2)")],
        files=1,
        files_imported=1,
    )
    assert _ids(store) == ["a", "b"]
    assert store.load("a") == make_trace(trace_id="a")


def test_unrecognised_file_is_a_problem_and_others_still_load(tmp_path: Path, store: TraceStore) -> None:
    good = tmp_path / "good.jsonl"
    write_jsonl([make_trace()], good)
    junk = tmp_path / "notes.txt"
    junk.write_text("hello\n")
    missing = tmp_path / "missing.jsonl"
    progress: list[tuple[int, int]] = []
    report = import_files([junk, good, missing], store, progress=lambda d, t: progress.append((d, t)))
    assert report.imported == 1 and report.files == 3 and report.files_imported == 1
    assert [(p.file, p.record) for p in report.problems] == [(str(junk), "whole file"), (str(missing), "whole file")]
    assert report.problems[0].message.startswith("not a recognised trace file")
    assert report.problems[1].message.startswith("cannot read file")
    assert progress == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert _ids(store) == [make_trace().trace_id]


def test_forced_format(tmp_path: Path, store: TraceStore) -> None:
    path = tmp_path / "no-extension"
    write_jsonl([make_trace()], path)
    assert import_files([path], store, fmt="native").imported == 1
    with pytest.raises(ImportFailed, match="unknown format 'nope'"):
        import_files([path], store, fmt="nope")


def test_missing_token_counts_are_counted_and_cached(tmp_path: Path, store: TraceStore) -> None:
    bare = make_trace(
        trace_id="bare",
        endpoint=replace(make_trace().endpoint, encoding=None),
        items=tuple(replace(i, tokens=None, tokens_provenance=None) for i in make_trace().items),
    )
    path = tmp_path / "bare.jsonl"
    write_jsonl([bare], path)
    assert import_files([path], store).imported == 1
    loaded = store.load("bare")
    assert loaded.endpoint.encoding == "o200k_base"  # gpt-4o-mini's own (its endpoint profile)
    assert [i.tokens for i in loaded.items] == [content_tokens(i.content, "o200k_base", i.kind is Kind.TOOL)
                                                for i in bare.items]  # a tool definition by its lines (F13)
    assert {i.tokens_provenance for i in loaded.items} == {TokenProvenance(TokenSource.COUNTED, "o200k_base")}
    assert store.list()[0].input_tokens == sum(i.tokens for i in loaded.retained)
    with closing(sqlite3.connect(store.path)) as conn:
        cached = conn.execute(
            "SELECT tokens FROM token_counts WHERE content_hash = ? AND encoding = 'o200k_base'",
            (content_digest(bare.items[0].content),),
        ).fetchall()
    assert cached == [(loaded.items[0].tokens,)]


def test_recorded_counts_and_encoding_are_kept(store: TraceStore) -> None:
    trace = make_trace(items=(replace(make_trace().items[0], tokens=7), *make_trace().items[1:]))
    assert count_missing_tokens(trace, store) is trace  # nothing to count: unchanged


def test_an_encoding_not_available_offline_is_counted_with_the_nearest_one_as_an_estimate(
        tmp_path: Path, store: TraceStore) -> None:
    trace = make_trace(
        endpoint=Endpoint(model="m", encoding="p50k_base"),
        items=(replace(make_trace().items[0], tokens=None),),
    )
    path = tmp_path / "t.jsonl"
    write_jsonl([trace], path)
    report = import_files([path], store)
    assert (report.imported, report.problems) == (1, [])
    (item,) = store.load(trace.trace_id).items
    assert (item.tokens, item.tokens_provenance) == (
        count_tokens(trace.items[0].content, "cl100k_base"), TokenProvenance(TokenSource.ESTIMATED, "cl100k_base"))


def test_all_or_nothing_when_the_store_fails_mid_way(tmp_path: Path, store: TraceStore, monkeypatch) -> None:
    store.add(with_facts([make_trace(trace_id="before")]))
    files = []
    for n in range(3):
        files.append(tmp_path / f"f{n}.jsonl")
        write_jsonl([make_trace(trace_id=f"t{n}")], files[-1])
    original = store._write
    calls = []

    def failing(trace, stored=None, known=None):
        calls.append(trace.trace_id)
        if len(calls) == 3:
            raise sqlite3.OperationalError("database or disk is full")
        original(trace, stored, known)

    monkeypatch.setattr(store, "_write", failing)
    with pytest.raises(StoreError, match="disk is full") as err:
        import_files(files, store)
    assert str(store.path) in str(err.value)
    assert calls == ["t0", "t1", "t2"]
    monkeypatch.undo()
    assert _ids(store) == ["before"]
    with closing(sqlite3.connect(store.path)) as conn:
        assert conn.execute("SELECT count(*) FROM items").fetchone() == (7,)


def test_cancel_leaves_the_database_unchanged(tmp_path: Path, store: TraceStore) -> None:
    files = []
    for n in range(3):
        files.append(tmp_path / f"f{n}.jsonl")
        write_jsonl([make_trace(trace_id=f"t{n}")], files[-1])
    done: list[int] = []
    report = import_files(files, store, progress=lambda d, t: done.append(d), cancelled=lambda: len(done) >= 3)
    assert report.cancelled and report.imported == 0
    assert report.files == 2 and report.files_imported == 0
    assert store.count() == 0


def test_readonly_store_refuses(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    TraceStore.create(db).close()
    path = tmp_path / "t.jsonl"
    write_jsonl([make_trace()], path)
    with TraceStore.open(db) as ro, pytest.raises(StoreError, match="read-only"):
        import_files([path], ro)


def test_report_stays_backward_compatible() -> None:
    old_style = ImportReport(3, [], 2, False)  # positional construction from before files_imported
    assert (old_style.imported, old_style.files, old_style.cancelled, old_style.files_imported) == (3, 2, False, 0)


def test_files_imported_counts_files_that_yielded_a_trace(tmp_path: Path, store: TraceStore) -> None:
    two = tmp_path / "two.jsonl"
    write_jsonl([make_trace(trace_id="a"), make_trace(trace_id="b")], two)
    only_bad = tmp_path / "bad.jsonl"
    only_bad.write_text(trace_line(make_trace(trace_id="c"))[:-1] + "\n", encoding="utf-8")  # one broken record
    report = import_files([tmp_path / "missing.jsonl", two, only_bad], store)
    assert (report.imported, report.files_imported, report.files) == (2, 1, 3)


def test_directory_imports_its_regular_files_in_name_order(tmp_path: Path, store: TraceStore) -> None:
    folder = tmp_path / "exported"
    (folder / "sub").mkdir(parents=True)
    write_jsonl([make_trace(trace_id="b")], folder / "b.jsonl")
    write_jsonl([make_trace(trace_id="a")], folder / "a.jsonl")
    write_jsonl([make_trace(trace_id="hidden")], folder / ".hidden.jsonl")
    write_jsonl([make_trace(trace_id="nested")], folder / "sub" / "nested.jsonl")
    (folder / "notes.txt").write_text("hello\n")
    progress: list[tuple[int, int]] = []
    report = import_files([folder], store, progress=lambda d, t: progress.append((d, t)))
    assert (report.imported, report.files_imported, report.files) == (2, 2, 3)
    assert [(p.file, p.record) for p in report.problems] == [(str(folder / "notes.txt"), "whole file")]
    assert progress == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert _ids(store) == ["a", "b"]


def test_expand_paths(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    for name in ("z.json", "a.jsonl", ".DS_Store"):
        (folder / name).write_text("x")
    (folder / "inner").mkdir()
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".hidden").write_text("x")
    assert expand_paths([tmp_path / "f.jsonl", folder, empty, "missing.jsonl"]) == [
        tmp_path / "f.jsonl",
        folder / "a.jsonl",
        folder / "z.json",
        ImportProblem(str(empty), "whole directory", "no files to import in this directory"),
        Path("missing.jsonl"),
    ]


def test_expand_paths_recursive_walks_sub_folders_in_name_order(tmp_path: Path) -> None:
    from ctxviewer.pipeline.folders import HIDDEN, LINKED_FOLDER, Skipped

    top = tmp_path / "exports"
    (top / "b-project" / "deep").mkdir(parents=True)
    (top / "a-project").mkdir()
    (top / ".git").mkdir()
    (top / "z.jsonl").write_text("x")
    (top / "a-project" / "spans.json").write_text("x")
    (top / "b-project" / "deep" / "logs.jsonl").write_text("x")
    (top / "b-project" / "c.json").write_text("x")
    (top / ".git" / "HEAD").write_text("x")
    (top / "loop").symlink_to(top, target_is_directory=True)  # a link back up: never followed
    skipped: list[Skipped] = []
    assert expand_paths([top], skipped=skipped, recursive=True) == [
        top / "a-project" / "spans.json",
        top / "b-project" / "c.json",
        top / "b-project" / "deep" / "logs.jsonl",
        top / "z.jsonl",
    ]
    assert skipped == [Skipped(str(top / ".git"), "folder", HIDDEN), Skipped(str(top / "loop"), "folder", LINKED_FOLDER)]
    # without --recursive the same folder gives its one file and names each sub-folder
    plain: list[Skipped] = []
    assert expand_paths([top], skipped=plain) == [top / "z.jsonl"]
    assert [(s.path, s.reason.split(":")[0]) for s in plain] == [
        (str(top / ".git"), "hidden"), (str(top / "a-project"), "not scanned"), (str(top / "b-project"), "not scanned"),
        (str(top / "loop"), "not scanned")]
    only_folders = tmp_path / "nested"
    (only_folders / "empty").mkdir(parents=True)
    assert expand_paths([only_folders], recursive=True) == [
        ImportProblem(str(only_folders), "whole directory", "no files to import in this directory or its sub-folders")]


@needs_corpus
def test_import_recursive_reads_the_corpus_folder_whole(tmp_path: Path) -> None:
    report = import_into(tmp_path / "t.db", [CORPUS], recursive=True)
    assert report.skipped == []  # every sub-folder read
    flat = import_into(tmp_path / "flat.db", [CORPUS])
    assert (flat.imported, flat.removed_database) == (0, True)  # the corpus keeps its files in sub-folders
    assert report.imported == 54


def test_empty_directory_is_a_problem(tmp_path: Path, store: TraceStore) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    report = import_files([empty], store)
    assert report == ImportReport(
        imported=0,
        problems=[ImportProblem(str(empty), "whole directory", "no files to import in this directory")],
        files=0,
    )


def test_directory_holding_the_store_skips_the_database_files(tmp_path: Path) -> None:
    write_jsonl([make_trace(trace_id="a")], tmp_path / "a.jsonl")
    with TraceStore.create(tmp_path / "here.db") as store:
        (tmp_path / "here.db-journal").write_bytes(b"")  # as SQLite may leave one mid-write
        report = import_files([tmp_path], store)
    assert (report.imported, report.files, report.problems) == (1, 1, [])


# ---------------------------------------------------------------- import_into: the whole import, CLI and GUI


def test_import_into_creates_the_database_and_reports(tmp_path: Path) -> None:
    src = tmp_path / "t.jsonl"
    write_jsonl([make_trace(trace_id="a"), make_trace(trace_id="b")], src)
    db = tmp_path / "new.db"
    report = import_into(db, [src])
    assert (report.imported, report.files, report.database, report.removed_database) == (2, 1, str(db), False)
    assert report.summary() == f"imported 2 trace(s) from 1 file(s) into {db}" and report.outcome() is None
    with TraceStore.open(db) as store:
        assert _ids(store) == ["a", "b"]


def test_import_into_removes_a_database_it_created_when_nothing_was_imported(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("hello\n")
    db = tmp_path / "new.db"
    report = import_into(db, [junk])
    assert (report.imported, report.removed_database) == (0, True)
    assert report.summary() == "imported 0 trace(s) from 0 of 1 file(s)"  # names no database that is gone
    assert report.outcome() == f"no traces imported; removed {db}, which this import had created"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_import_into_never_removes_an_existing_database(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    write_jsonl([make_trace(trace_id="kept")], tmp_path / "t.jsonl")
    import_into(db, [tmp_path / "t.jsonl"])
    (tmp_path / "notes.txt").write_text("hello\n")
    report = import_into(db, [tmp_path / "notes.txt"])
    assert (report.imported, report.removed_database, report.outcome()) == (0, False, "no traces imported")
    with TraceStore.open(db) as store:
        assert _ids(store) == ["kept"]


def test_import_into_cancelled_removes_the_new_database(tmp_path: Path) -> None:
    write_jsonl([make_trace()], tmp_path / "t.jsonl")
    db = tmp_path / "new.db"
    report = import_into(db, [tmp_path / "t.jsonl"], cancelled=lambda: True)
    assert (report.cancelled, report.imported, report.removed_database) == (True, 0, True)
    assert report.outcome() == f"import cancelled; nothing was written; removed {db}, which this import had created"
    assert not db.exists()


def test_import_into_errors_remove_only_what_it_created(tmp_path: Path) -> None:
    write_jsonl([make_trace()], tmp_path / "t.jsonl")
    with pytest.raises(ImportFailed, match="unknown format 'nope'"):
        import_into(tmp_path / "new.db", [tmp_path / "t.jsonl"], fmt="nope")
    assert not (tmp_path / "new.db").exists()
    foreign = tmp_path / "foreign.db"
    with closing(sqlite3.connect(foreign)) as conn:
        conn.execute("CREATE TABLE notes (x)")
    with pytest.raises(StoreError, match="not a ctxviewer trace database"):
        import_into(foreign, [tmp_path / "t.jsonl"])
    assert foreign.exists()


def test_batched_counting_equals_one_trace_at_a_time_and_estimates_an_unavailable_encoding(
        tmp_path: Path, store: TraceStore) -> None:
    from ctxviewer.pipeline.missing_counts import count_missing_tokens_many

    base = make_trace()
    blank = tuple(replace(i, tokens=None, tokens_provenance=None) for i in base.items)
    traces = [replace(base, trace_id="a", items=blank),
              replace(base, trace_id="b", items=blank, endpoint=replace(base.endpoint, encoding="o200k_base")),
              replace(base, trace_id="c", items=blank[:2] + base.items[2:])]  # only two items to count
    batched = count_missing_tokens_many(traces, store)
    with TraceStore.create(tmp_path / "other.db") as other:
        assert batched == [count_missing_tokens(t, other) for t in traces]
    assert [i.tokens for i in batched[1].items] == [content_tokens(i.content, "o200k_base", i.kind is Kind.TOOL)
                                                    for i in base.items]
    assert batched[2].items[2:] == base.items[2:]  # recorded counts kept as they were
    # in a file, a trace whose encoding is not available offline between countable ones: estimated
    odd = replace(base, trace_id="odd", items=blank, endpoint=Endpoint(model="m", encoding="p50k_base"))
    path = tmp_path / "mixed.jsonl"
    write_jsonl([traces[0], odd, traces[1]], path)
    report = import_files([path], store)
    assert report.imported == 3 and report.problems == []
    assert store.load("odd").items[0].tokens_provenance == TokenProvenance(TokenSource.ESTIMATED, "cl100k_base")
    assert [i.tokens for i in store.load("b").items] == [i.tokens for i in batched[1].items]


def test_an_import_that_finds_nothing_keeps_what_another_import_wrote_into_the_new_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two imports into one new file: the one that created it and imported nothing used to remove
    it, with the other's traces in it."""
    import ctxviewer.pipeline.importing as importing

    db = tmp_path / "new.db"

    def meanwhile(paths, store, **_kw):  # type: ignore[no-untyped-def]
        with TraceStore.create(db) as other:  # the second import lands while this one reads nothing
            other.add(with_facts([replace(make_trace(), trace_id="from-the-other-import")]))
        return ImportReport(imported=0, files=1)

    monkeypatch.setattr(importing, "import_files", meanwhile)
    report = import_into(db, [tmp_path / "empty.jsonl"])
    assert (report.imported, report.removed_database) == (0, False)
    assert report.outcome() == "no traces imported"
    with TraceStore.open(db) as st:
        assert _ids(st) == ["from-the-other-import"]


def test_only_the_import_that_created_the_file_removes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file is claimed with O_EXCL: an empty database another import has just created is not
    this import's to remove, even when nothing is imported into it."""
    import ctxviewer.pipeline.importing as importing

    db = tmp_path / "new.db"
    monkeypatch.setattr(importing, "import_files", lambda paths, store, **_kw: ImportReport(imported=0, files=1))
    assert import_into(db, [tmp_path / "x.jsonl"]).removed_database is True and not db.exists()
    db.touch()  # created by someone else a moment before
    assert import_into(db, [tmp_path / "x.jsonl"]).removed_database is False and db.exists()


def test_an_import_that_finds_nothing_keeps_a_new_file_another_import_is_still_writing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review of s17: the other import's transaction is not committed yet, so the file holds no
    traces a reader can see; its claim (a shared lock held while it runs) keeps the file."""
    import ctxviewer.pipeline.importing as importing
    from ctxviewer.pipeline.import_claim import NewFileClaim

    db = tmp_path / "new.db"
    other: list[NewFileClaim] = []

    def meanwhile(paths, store, **_kw):  # type: ignore[no-untyped-def]
        other.append(NewFileClaim(db).__enter__())  # the second import has started, nothing written yet
        return ImportReport(imported=0, files=1)

    monkeypatch.setattr(importing, "import_files", meanwhile)
    report = import_into(db, [tmp_path / "empty.jsonl"])
    assert (report.imported, report.removed_database, db.exists()) == (0, False, True)
    assert other[0].created is False and other[0].may_remove() is False
    other[0].__exit__(None, None, None)


def test_expand_paths_recursive_goes_any_depth(tmp_path: Path) -> None:
    """Review 2026-12-07: 1,100 nested folders raised RecursionError (a traceback, no summary). Here
    300 levels under a recursion limit of 200 (the path stays under the system's length limit)."""
    import sys

    deep = tmp_path / "deep"
    leaf = deep.joinpath(*["a"] * 300)
    leaf.mkdir(parents=True)
    (leaf / "spans.json").write_text("x")
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        found = expand_paths([deep], recursive=True)
    finally:
        sys.setrecursionlimit(old)
    assert found == [leaf / "spans.json"]
