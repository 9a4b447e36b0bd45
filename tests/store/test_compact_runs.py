"""Schema 13 (issue 25, item 4, "compact storage"): a run step's long attribute values are stored
once in ``span_values`` and referenced from ``run_spans.attribute_refs``; ``idx_run_spans_trace``
holds the model calls' steps only. Every reader sees what it saw before: the real exports of
``../shared/corpus``, the sample traces and the multi-step run inputs, imported fresh and upgraded
from their schema-12 form, give the same ``load``, run steps, ``show --json`` and ``tree --json``."""

from __future__ import annotations

import json
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner
from shared_data import CORPUS, needs_corpus

from ctxviewer.cli import cli
from ctxviewer.model.run import RunSpan
from ctxviewer.pipeline.importing import import_into
from ctxviewer.store import StoreError, TraceStore, record, runs, span_values
from ctxviewer.store.migrations import RUN_SPANS_TRACE_INDEX

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces" / "traces.jsonl"
RUNS = ROOT / "tests" / "data" / "runs"


def _corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix not in (".md",) and "spec-schemas" not in p.parts)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not present")
    db = tmp_path_factory.mktemp("runs13") / "fresh.db"
    import_into(db, [*_corpus_files(), SAMPLES, *sorted(RUNS.iterdir())])
    return db


def _ids(db: Path) -> tuple[list[str], list[str]]:
    """``(trace ids, run ids)`` of ``db``."""
    with TraceStore.open(db) as st:
        return ([r.trace_id for r in st.list(limit=-1)],
                [r[0] for r in st._conn.execute("SELECT DISTINCT run_id FROM run_spans ORDER BY run_id")])


def schema12_copy(src: Path, dst: Path) -> None:
    """Write ``dst`` as schema 12 stored the database ``src``: every step's attributes whole in
    ``run_spans.attributes`` (``runs._row``, the writer of schemas 8-12), no ``attribute_refs``
    column, no ``span_values``, ``idx_run_spans_trace`` over every step; each trace record's
    attributes whole (no ``attributes_in_row``)."""
    with TraceStore.open(src) as st:
        run_ids = [r[0] for r in st._conn.execute("SELECT DISTINCT run_id FROM run_spans ORDER BY run_id")]
        whole = [(runs._row(s.span)[11], s.span.run_id, s.span.span_id) for r in run_ids for s in st.run_steps(r)]
    with closing(sqlite3.connect(src)) as a, closing(sqlite3.connect(dst)) as conn:
        a.backup(conn)
        conn.executemany("UPDATE run_spans SET attributes = ? WHERE run_id = ? AND span_id = ?", whole)
        cols = ", ".join(f"t.{c}" for c in record.ATTRIBUTE_COLUMNS)
        records = []
        for tid, text, *values in conn.execute(f"SELECT d.trace_id, d.json, {cols} FROM details d "
                                              "JOIN traces t ON t.trace_id = d.trace_id").fetchall():
            d = record.restore_attributes(json.loads(text), dict(zip(record.ATTRIBUTE_COLUMNS, values)))
            records.append((json.dumps(d, ensure_ascii=False, separators=(",", ":")), tid))
        conn.executemany("UPDATE details SET json = ? WHERE trace_id = ?", records)
        conn.execute("ALTER TABLE run_spans DROP COLUMN attribute_refs")
        conn.execute("DROP TABLE span_values")
        conn.execute("DROP INDEX idx_run_spans_trace")
        conn.execute("CREATE INDEX idx_run_spans_trace ON run_spans (trace_id)")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm023_compact_attributes'")
        conn.execute("PRAGMA user_version = 12")
        conn.commit()
        conn.execute("VACUUM")


def _run(*args: str) -> str:
    res = CliRunner().invoke(cli, list(args))
    assert res.exit_code in (0, 1), res.output
    return res.stdout


def _readers(db: Path, trace_ids: list[str], run_ids: list[str]) -> dict[str, object]:
    """What every reader gives: each trace loaded, each run's steps, and the CLI's JSON of each."""
    with TraceStore.open(db) as st:
        loaded = {t: st.load(t) for t in trace_ids}
        steps = {r: st.run_steps(r) for r in run_ids}
    return {"load": loaded, "steps": steps,
            "attribute order": {r: [list(s.span.attributes) for s in ss] for r, ss in steps.items()},
            "show": [_run("show", str(db), t, "--json") for t in trace_ids],
            "tree": [_run("tree", str(db), r, "--json") for r in run_ids],
            "tree of calls": [_run("tree", str(db), t, "--json") for t in trace_ids if st_run_of(db, t)]}


def st_run_of(db: Path, trace_id: str) -> bool:
    """Whether a stored run holds the model call ``trace_id``."""
    with TraceStore.open(db) as st:
        return st.run_of(trace_id) is not None


@needs_corpus
def test_a_schema_12_database_upgrades_to_read_as_a_fresh_import(fresh: Path, tmp_path: Path) -> None:
    old, new = tmp_path / "v12.db", tmp_path / "v13.db"
    schema12_copy(fresh, old)
    trace_ids, run_ids = _ids(fresh)
    assert (len(trace_ids), len(run_ids)) == (68, 25)
    with closing(sqlite3.connect(old)) as conn:  # really the schema-12 form: long values inline
        assert conn.execute("SELECT count(*) FROM run_spans WHERE length(attributes) > 1000").fetchone()[0] >= 20
        before = {(r, s): json.loads(a) for r, s, a in conn.execute(
            "SELECT run_id, span_id, attributes FROM run_spans WHERE attributes IS NOT NULL")}
        assert conn.execute("SELECT count(*) FROM details WHERE json LIKE '%\"gen_ai.operation.name\"%'").fetchone() == (13,)
        assert conn.execute("SELECT count(*) FROM details WHERE json LIKE '%attributes_in_row%'").fetchone() == (0,)
        record_attrs = {t: json.loads(j).get("attributes") for t, j in conn.execute("SELECT trace_id, json FROM details")}
    res = CliRunner().invoke(cli, ["upgrade", str(old), "-o", str(new)])
    assert res.exit_code == 0, res.output
    assert "schema step 1 of 1: m023_compact_attributes" in res.stderr
    got = _readers(new, trace_ids, run_ids)
    assert got == _readers(fresh, trace_ids, run_ids)
    # the attributes every reader sees are those schema 12 stored, key order included
    steps = got["steps"]
    assert isinstance(steps, dict)
    seen = {(s.span.run_id, s.span.span_id): dict(runs._thaw(s.span.attributes)) for ss in steps.values() for s in ss}
    assert {k: v for k, v in seen.items() if v} == before
    assert {k: list(v) for k, v in seen.items() if v} == {k: list(v) for k, v in before.items()}
    loaded = got["load"]
    assert isinstance(loaded, dict)
    for tid, attrs in record_attrs.items():  # the trace's attributes as schema 12 stored them, in order
        assert attrs is None or [(k, v) for k, v in runs._thaw(loaded[tid].attributes).items()] == list(attrs.items()), tid
    with closing(sqlite3.connect(new)) as a:
        assert a.execute("SELECT count(*) FROM details WHERE json LIKE '%\"attributes_in_row\":%'").fetchone() == (45,)
    with closing(sqlite3.connect(new)) as a, closing(sqlite3.connect(fresh)) as b:
        for q in ("SELECT * FROM run_spans ORDER BY run_id, span_id", "SELECT * FROM span_values ORDER BY hash",
                  "SELECT * FROM details ORDER BY trace_id"):
            assert a.execute(q).fetchall() == b.execute(q).fetchall()  # the upgrade writes what an import writes


@needs_corpus
def test_long_values_leave_the_steps_and_are_stored_once(fresh: Path, tmp_path: Path) -> None:
    old = tmp_path / "v12.db"
    schema12_copy(fresh, old)
    with closing(sqlite3.connect(fresh)) as new, closing(sqlite3.connect(old)) as conn:
        inline_before = conn.execute("SELECT sum(length(attributes)) FROM run_spans").fetchone()[0]
        inline_after = new.execute("SELECT sum(length(attributes)) + sum(coalesce(length(attribute_refs), 0)) "
                                   "FROM run_spans").fetchone()[0]
        assert inline_before > 3 * inline_after
        moved, refs = new.execute("SELECT count(*), sum(length(attribute_refs)) / 33 FROM run_spans "
                                  "WHERE attribute_refs IS NOT NULL").fetchone()
        assert moved >= 50
        assert new.execute("SELECT count(*) FROM span_values").fetchone()[0] <= refs
        assert new.execute("SELECT count(*) FROM run_spans WHERE length(attributes) >= 100 AND "
                           "attributes LIKE '%\"gen_ai.input.messages\":%'").fetchone() == (0,)


def _bench_db(tmp_path: Path, n: int) -> Path:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_import import trace_lines

    src = tmp_path / "spans.otlp.jsonl"
    src.write_text("".join(line + "\n" for k in range(n) for line in trace_lines(k)), encoding="utf-8")
    db = tmp_path / "bench.db"
    import_into(db, [src])
    return db


def test_the_agents_instructions_and_the_tool_definitions_are_stored_once(tmp_path: Path) -> None:
    db = _bench_db(tmp_path, 30)
    with closing(sqlite3.connect(db)) as conn:
        values = [json.loads(t)[0] for (t,) in conn.execute("SELECT text FROM span_values ORDER BY text")]
        assert values == ["gen_ai.system_instructions", "gen_ai.tool.definitions"]
        assert conn.execute("SELECT kind, count(*), min(length(attribute_refs)), max(length(attribute_refs)) "
                            "FROM run_spans GROUP BY kind ORDER BY kind").fetchall() == [("agent", 30, 33, 33),
                                                                                         ("llm", 30, 33, 33)]
        agent = conn.execute("SELECT attributes, attribute_refs FROM run_spans WHERE kind = 'agent' "
                             "ORDER BY run_id LIMIT 1").fetchone()
    assert json.loads(agent[0]) == {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support",
                                    "gen_ai.conversation.id": "conv-0", "otel.span.kind": "internal",
                                    "service.name": "bench-agent"}
    assert agent[1][0] == 3  # gen_ai.system_instructions was the 4th attribute
    with TraceStore.open(db) as st:
        step = next(s for s in st.run_steps(f"{0:032x}") if s.span.kind == "agent")
    assert list(step.span.attributes) == ["gen_ai.operation.name", "gen_ai.agent.name", "gen_ai.conversation.id",
                                          "gen_ai.system_instructions", "otel.span.kind", "service.name"]
    assert "You are a support assistant for ACME" in step.span.attributes["gen_ai.system_instructions"]


def test_split_and_join_keep_every_value_and_its_place() -> None:
    long = "x" * 200
    attrs = {"a": 1, "long": long, "b": None, "nested": {"k": [1, 2, {"z": long}]}, "short": [1], "t": True}
    kept, refs, moved = span_values.split(attrs)
    assert json.loads(kept or "") == {"a": 1, "b": None, "short": [1], "t": True}
    assert refs is not None and len(refs) == 66 and (refs[0], refs[33]) == (1, 3)
    assert sorted(json.loads(t)[0] for t in moved.values()) == ["long", "nested"]
    back = span_values.join(kept, refs, moved.get)
    assert back == attrs and list(back) == list(attrs)
    many = {f"k{n}": "v" * 120 for n in range(300)}  # places past 255 stay inline
    kept, refs, moved = span_values.split(many)
    assert refs is not None and len(refs) == 256 * 33 and len(json.loads(kept or "")) == 44
    assert list(span_values.join(kept, refs, moved.get)) == list(many)
    assert span_values.split({"a": "short"}) == ('{"a":"short"}', None, {})
    with pytest.raises(ValueError, match="span value [0-9a-f]{64} missing"):
        span_values.join(kept, refs, lambda _digest: None)


def test_a_step_whose_value_is_missing_is_named_damaged(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    with TraceStore.create(db) as st:
        st.add([], runs=[RunSpan("run-1", "s1", None, "agent", "agent", None, None, attributes={"prompt": "p" * 300})])
        assert st.run_steps("run-1")[0].span.attributes["prompt"] == "p" * 300
        st._conn.execute("DELETE FROM span_values")
        st._conn.commit()
        with pytest.raises(StoreError, match=r"run 'run-1' step 's1' is damaged: span value [0-9a-f]{64} missing"):
            st.run_steps("run-1")


def test_the_model_calls_index_answers_the_runs_lookups(tmp_path: Path) -> None:
    db = _bench_db(tmp_path, 30)
    with closing(sqlite3.connect(db)) as conn:
        sql = conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'idx_run_spans_trace'").fetchone()[0]
        assert sql == RUN_SPANS_TRACE_INDEX
        assert conn.execute("SELECT count(*) FROM run_spans INDEXED BY idx_run_spans_trace "
                            "WHERE trace_id IS NOT NULL").fetchone() == (30,)
        for q in ("SELECT run_id FROM run_spans WHERE trace_id = ? LIMIT 1",  # run_of
                  "SELECT run_id, span_id FROM run_spans WHERE trace_id = ? LIMIT 1"):  # step_path
            plan = " ".join(str(r[-1]) for r in conn.execute("EXPLAIN QUERY PLAN " + q, ("x",)))
            assert "USING COVERING INDEX idx_run_spans_trace (trace_id=?)" in plan, plan


def test_the_record_leaves_out_the_span_facts_its_row_holds_and_puts_them_back_in_place() -> None:
    columns = {"operation": "chat", "agent": "support", "duration_ms": 1250.0}
    attrs = {"gen_ai.operation.name": "chat", "otel.span.name": "chat gpt-4o-mini", "ctxviewer.duration_ms": 1250.0,
             "gen_ai.agent.name": "support", "otel.status_code": "ok"}
    d = record.slim_attributes({"attributes": dict(attrs), "usage": {}}, columns)
    assert d == {"attributes": {"otel.span.name": "chat gpt-4o-mini", "otel.status_code": "ok"}, "usage": {},
                 "attributes_in_row": [0, 3, 2]}
    back = record.restore_attributes(d, columns)
    assert back == {"attributes": attrs, "usage": {}} and list(back["attributes"]) == list(attrs)
    # only an equal value of the same type leaves: an int duration (the column is REAL), another agent
    d = record.slim_attributes({"attributes": {"ctxviewer.duration_ms": 1250, "gen_ai.agent.name": "other",
                                               "gen_ai.operation.name": "chat"}}, columns)
    assert d == {"attributes": {"ctxviewer.duration_ms": 1250, "gen_ai.agent.name": "other"}, "attributes_in_row": [2]}
    assert record.slim_attributes({"attributes": {"a": 1}}, columns) == {"attributes": {"a": 1}}
    with pytest.raises(ValueError, match="names 'gen_ai.agent.name', but the row's agent is NULL"):
        record.restore_attributes({"attributes": {}, "attributes_in_row": [None, 0]}, {"agent": None})
    with pytest.raises(ValueError, match=r"attributes_in_row \['x'\] is damaged"):
        record.restore_attributes({"attributes": {}, "attributes_in_row": ["x"]}, columns)
