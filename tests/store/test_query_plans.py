"""Every index the schema keeps is used by a query plan of the store's own queries, and schema 9
planned none of them worse than schema 8 (issue 25, item 4: "indexes no query plan uses are
dropped, EXPLAIN-tested").

The store is driven through its public reads -- the list in every sortable order both ways, a
filter on every field, findings, scores, full text, search, one trace, a conversation, a run --
with SQLite's trace callback recording each statement it runs; each SELECT is then planned with
``EXPLAIN QUERY PLAN`` on the same database."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from test_compact_storage import schema8_copy
from test_gen_traces import _gen

from ctxviewer.store import SORTABLE, TraceQuery, TraceStore
from ctxviewer.store.filters import FIELDS
from ctxviewer.store.query import ROW_COLUMNS

_INDEX = re.compile(r"USING (?:COVERING )?INDEX (\w+)|USING PRIMARY KEY")
_SCAN = re.compile(r"^SCAN (\w+)(?! USING)")


@pytest.fixture(scope="module")
def dbs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("plans")
    new, old = work / "gen.db", work / "v8.db"
    _gen().write(new, 600, seed=4)
    schema8_copy(new, old)
    return new, old


def _statements(db: Path) -> list[str]:
    """Every statement the store runs for the reads of the module docstring, as run (values inlined)."""
    seen: list[str] = []
    with TraceStore.open(db) as st:
        st._conn.set_trace_callback(seen.append)
        first = st._conn.execute(f"SELECT {', '.join(ROW_COLUMNS)} FROM traces ORDER BY trace_id LIMIT 1").fetchone()
        row = dict(zip(ROW_COLUMNS, first))
        for order in SORTABLE:
            for descending in (False, True):
                st.list(TraceQuery(sort=order, descending=descending), limit=50)
                list(st.first_rows(order=order, descending=descending, limit=50))
        for f in FIELDS.values():
            value = row.get(f.column)
            text = (f"{f.name} > 5" if f.kind in ("int", "float") else f"{f.name} == yes" if f.kind == "bool"
                    else f'{f.name} == "{value if value is not None else "x"}"')
            st.list(TraceQuery(text=text), limit=50)
            st.count(TraceQuery(text=text))
        st.list(TraceQuery(text=f'finding == "{row["worst_rule"]}"'), limit=50)
        st.list(TraceQuery(text="score == 1"), limit=50)
        st.list(TraceQuery(text="score.match < 1"), limit=50)
        st.list(TraceQuery(text='text ~ "the"'), limit=50)
        st.search("the invoice", limit=20)
        st.load(row["trace_id"])
        st.session_trace_ids(row["session_id"])
        st.key_of(row["trace_id"])
        st.run_of(row["trace_id"])
        st.children("run", None)
        st.token_count("some text", "cl100k_base")
        for by in (None, "model", "day", "session"):
            st.aggregate(None, by)
        st.stale_count(None, "ctxviewer-rules/3 0")
    return [s for s in seen if s.lstrip().upper().startswith("SELECT")]


def _plans(db: Path, statements: list[str]) -> list[list[str]]:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return [[str(r[-1]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql)] for sql in statements]


def test_every_index_is_used_by_a_plan_of_the_stores_queries(dbs: tuple[Path, Path]) -> None:
    new, _old = dbs
    statements = _statements(new)
    used = {m.group(1) for plan in _plans(new, statements) for line in plan for m in _INDEX.finditer(line) if m.group(1)}
    with closing(sqlite3.connect(new)) as conn:
        indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'index'")}
    ours = {i for i in indexes if not i.startswith("idx__sqlite_migrations")}  # sqlite-utils' own
    assert ours - used == set()
    assert {"idx_traces_created", "idx_traces_cost", "idx_items_content_hash", "idx_trace_findings_rule",
            "idx_traces_session_id", "sqlite_autoindex_traces_1"} <= used


def test_schema_9_plans_nothing_as_a_scan_that_schema_8_answered_from_an_index(dbs: tuple[Path, Path]) -> None:
    new, old = dbs
    statements = _statements(new)
    assert len(statements) == 150
    statements = [s for s in statements if "session_rollup" not in s]  # schema 12's table: not in schema 8
    assert len(statements) == 149
    worse = []
    as_schema_8 = [s.replace("r.attribute_refs", "NULL").replace("window_used", "input_tokens")  # schema 13's and
                   .replace("window_capacity", "capacity") for s in statements]  # 14's columns
    for sql, before, after in zip(statements, _plans(old, as_schema_8), _plans(new, statements)):
        indexed_before = {m.group(1) for line in before if (m := re.match(r"(?:SEARCH|SCAN) (\w+) USING", line))}
        scanned_after = {m.group(1) for line in after if (m := _SCAN.match(line))}
        if indexed_before & scanned_after:
            worse.append((sql, before, after))
    assert worse == []
