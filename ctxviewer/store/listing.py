"""Listing and counting traces by a :class:`~ctxviewer.store.TraceQuery` (the paged list of
``ctxviewer list`` and the conversation lookups), and planning its display filter for this
database (:meth:`TraceListing.filter_where`, also what the keyed list of the window runs). Reads
only the narrow ``traces`` table. No Qt here.
"""

from __future__ import annotations

import builtins
import sqlite3
from typing import Any, Iterator

from ctxviewer.store.connection import StoreConnection
from ctxviewer.store.cursor import after_condition
from ctxviewer.store.query import ROW_COLUMNS, TraceQuery, TraceRow, count_sql, list_sql

PROBE_ROWS = 5000
"""A filter term keeping at most this many rows drives the list query (:meth:`TraceStore.filter_where`):
looking up and sorting 5,000 rows costs tens of milliseconds, walking a million in list order to
find them seconds. Above it, a term is better tested row by row along the list order: measured on
1M generated traces, ``omitted > 2`` (2,207 rows) driven 15-22 ms against 105 ms walked, and
``finding == injection`` (12,996) walked 55-70 ms against 249 ms driven."""


_MAX_RULES = 500
"""Distinct finding rules :meth:`TraceListing.absent_rules_note` reads at most (a database holds a few dozen)."""

_MEMBER = "(traces.trace_id IN ("
"""How a compiled ``finding`` / ``text`` term starts (:mod:`ctxviewer.store.filters`): membership in a list of trace ids."""


class TraceListing(StoreConnection):
    """The listing part of :class:`~ctxviewer.store.TraceStore`: :meth:`filter_where`,
    :meth:`count`, :meth:`list` (one page by offset) and :meth:`stream` (rows after a keyset cursor,
    read as taken). Raises :class:`~ctxviewer.store.StoreError`
    when the database cannot be read."""

    def filter_where(self, query: TraceQuery | None) -> tuple[str, builtins.list[Any]]:
        """``(where, params)`` for ``query``'s display filter (``"1"`` for none), planned for this
        database: each top-level term an index answers alone (:attr:`CompiledFilter.probes
        <ctxviewer.store.filters.CompiledFilter.probes>`) is counted up to :data:`PROBE_ROWS` + 1 rows
        through its index, and when one keeps at most :data:`PROBE_ROWS`, the query is driven from
        it (``traces.rowid IN (...)``) instead of walking the sort order and filtering. The result
        reads ``traces`` without an alias (the list and count SQL of :mod:`.query`)."""
        text = query.text if query is not None else ""
        if not text.strip():  # no filter: nothing to plan (and no grammar imported)
            return "1", []
        from ctxviewer.store.filters import compile_filter

        compiled = compile_filter(text)
        best: tuple[int, str, tuple[Any, ...]] | None = None
        where = compiled.where
        for sql, params in compiled.probes:
            n = int(self._conn.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM traces WHERE {sql} LIMIT {PROBE_ROWS + 1})", params).fetchone()[0])
            if n <= PROBE_ROWS and (best is None or n < best[0]):
                best = (n, sql, params)
            elif n > PROBE_ROWS and sql.startswith(_MEMBER):
                # SQLite would drive the list from this membership list anyway (a lookup per
                # member, then a sort of them all); unary + keeps it to a test along the list order
                where = where.replace(sql, "(+" + sql[1:], 1)
        if best is None:
            return where, builtins.list(compiled.params)
        return (f"traces.rowid IN (SELECT rowid FROM traces WHERE {best[1]}) AND {where}",
                [*best[2], *compiled.params])

    def absent_rules_note(self, text: str) -> str | None:
        """For a display filter whose ``finding ==`` / ``!=`` / ``in`` terms name a rule or family no
        trace of this database has a finding of (a misspelt ``finding == injecton`` keeps nothing,
        ``finding != injecton`` everything, both silently): ``"no trace has a finding 'injecton'; the
        findings here: budget.over_capacity, injection (3 rules)"``, the rule families present and
        each family's rules when it has one or two (at most 12 families named). ``None`` when every
        name is found, for no such term, and for text that does not compile (its error is said
        elsewhere). Reads ``trace_findings`` through its rule index (one seek per name and per rule
present, whatever the number of traces). Raises
        :class:`~ctxviewer.store.StoreError` when the database cannot be read."""
        if "finding" not in text.lower():
            return None
        from ctxviewer.store.filters import FilterError, compile_filter

        try:
            names = compile_filter(text).rules_named
        except FilterError:
            return None
        try:
            absent = [r for r in names if self._conn.execute(
                "SELECT 1 FROM trace_findings WHERE rule = ? OR (rule > ? AND rule < ?) LIMIT 1",
                (r, r + ".", r + "/")).fetchone() is None]
            if not absent:
                return None
            rules: builtins.list[str] = []  # each next rule by the index: ~50 seeks, not a walk of every finding
            row = self._conn.execute("SELECT min(rule) FROM trace_findings").fetchone()
            while row is not None and row[0] is not None and len(rules) < _MAX_RULES:
                rules.append(str(row[0]))
                row = self._conn.execute("SELECT min(rule) FROM trace_findings WHERE rule > ?", (rules[-1],)).fetchone()
        except sqlite3.Error as exc:
            raise self._fail("cannot read the findings", exc) from None
        families: dict[str, list[str]] = {}
        for rule in rules:
            families.setdefault(rule.split(".", 1)[0], []).append(rule)
        shown = [", ".join(members) if len(members) <= 2 else f"{fam} ({len(members)} rules)"
                 for fam, members in builtins.list(families.items())[:12]]
        more = f", and {len(families) - 12} more families" if len(families) > 12 else ""
        here = f"the findings here: {', '.join(shown)}{more}" if rules else "no trace here has any finding"
        named = " or ".join(repr(r) for r in absent)
        return f"no trace has a finding {named}; {here}"

    def stream(self, query: TraceQuery | None = None, after: tuple[str | None, str] | None = None,
               limit: int = -1) -> Iterator[tuple[TraceRow, str | None]]:
        """The rows of ``query`` in ``(created, trace_id)`` order, read one by one as the caller
        takes them (memory does not grow with the row count): at most ``limit`` rows (negative:
        all), starting after the keyset cursor ``after`` (``(created text or None, trace_id)``,
        :mod:`ctxviewer.store.cursor`). Each row comes with its stored ``created`` text, which
        the next cursor is made of. ``query`` must have the default order (``sort="created"``,
        ascending): raises ``ValueError`` otherwise, :class:`~ctxviewer.store.StoreError` when
        the database cannot be read (also part-way)."""
        query = query or TraceQuery()
        if query.sort != "created" or query.descending:
            raise ValueError("stream() pages in (created, trace_id) order only")
        where, params = self.filter_where(query)
        if after is not None:
            cond, more = after_condition(*after)
            where, params = f"({where}) AND {cond}", [*params, *more]
        sql = f"SELECT {', '.join(ROW_COLUMNS)} FROM traces WHERE {where}{query.order_by()} LIMIT ?"
        created = ROW_COLUMNS.index("created")
        try:
            for r in self._conn.execute(sql, [*params, limit]):
                yield TraceRow.from_sql(r), r[created]
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot list traces", exc) from None

    def count(self, query: TraceQuery | None = None) -> int:
        """Number of traces matching ``query`` (all traces when ``None``). Reads ``traces`` only."""
        try:
            sql, params = count_sql(query or TraceQuery(), self.filter_where(query))
            return int(self._conn.execute(sql, params).fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot count traces", exc) from None

    def list(self, query: TraceQuery | None = None, offset: int = 0, limit: int = 200) -> builtins.list[TraceRow]:
        """One page of trace rows: ``limit`` rows (negative: all) after skipping ``offset``.

        Reads only the narrow ``traces`` table (no payloads). Raises ``ValueError`` for a
        negative ``offset``.
        """
        try:
            sql, params = list_sql(query or TraceQuery(), offset, limit, self.filter_where(query))
            return [TraceRow.from_sql(r) for r in self._conn.execute(sql, params)]
        except sqlite3.DatabaseError as exc:
            raise self._fail("cannot list traces", exc) from None
