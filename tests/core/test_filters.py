"""Display filters (issue 11): the grammar, its SQL and its errors with positions (ctxviewer.store.filters)."""

from __future__ import annotations

import pytest

from ctxviewer.store.filters import FilterError, compile_filter, parse_filter, quote

DISTINCT_MODEL = (
    "model IN (WITH RECURSIVE v(x) AS (SELECT min(model) FROM traces UNION ALL SELECT (SELECT min(model) "
    "FROM traces WHERE model > v.x) FROM v WHERE v.x IS NOT NULL) SELECT x FROM v WHERE x LIKE ? ESCAPE '\\')"
)


def test_issue_example_compiles_to_narrow_parameterised_sql() -> None:
    c = compile_filter('model ~ "gpt-4o" and omitted > 2 and finding == "injection" and capacity < 16000 '
                       'and conversation == "c-17"')
    assert c.where == (
        f"(({DISTINCT_MODEL}) AND (omitted_count > ?) AND (traces.trace_id IN (SELECT f.trace_id FROM "
        "trace_findings f WHERE ((f.rule = ? OR (f.rule > ? AND f.rule < ?))))) AND (capacity < ?) "
        "AND (session_id = ?))")
    assert c.params == ("%gpt-4o%", 2, "injection", "injection.", "injection/", 16000, "c-17")


@pytest.mark.parametrize(("text", "where", "params"), [
    ("", "1", ()),
    ("   ", "1", ()),
    ("capacity <= 8_000", "(capacity <= ?)", (8000,)),
    ("margin < -1", "(margin < ?)", (-1,)),
    ("created >= 2026-11-06", "(created >= ?)", ("2026-11-06",)),
    ("fits == no", "(fits = ?)", (0,)),
    ("not fits", "(((fits = 1)) IS NOT 1)", ()),
    ("!fits || replay_of", "((((fits = 1)) IS NOT 1) OR (replay_of IS NOT NULL AND replay_of != ''))", ()),
    ("omitted", "(omitted_count IS NOT NULL AND omitted_count != 0)", ()),
    ("state in (failure, 'warning')", "(state IN (?, ?))", ("failure", "warning")),
    ("id ~ 100%", "(trace_id LIKE ? ESCAPE '\\')", ("%100\\%%",)),
    ("id !~ x_y", "((trace_id IS NOT NULL AND NOT (trace_id LIKE ? ESCAPE '\\')))", ("%x\\_y%",)),
    ('model == "a \\"b\\""', "(model = ?)", ('a "b"',)),
    ("item.tokens > 500", "EXISTS (SELECT 1 FROM items i WHERE i.trace_id = traces.trace_id AND i.tokens > ?)", (500,)),
    ("item(kind == evidence && status == omitted)",
     "(omitted_count > 0 AND EXISTS (SELECT 1 FROM items i WHERE i.trace_id = traces.trace_id AND ((i.kind = ?) AND (i.status = ?))))",
     ("evidence", "omitted")),
    # the trace row's count of items by status rejects a trace before its items are read
    ("item.status == 'retained'",
     "(retained_count > 0 AND EXISTS (SELECT 1 FROM items i WHERE i.trace_id = traces.trace_id AND i.status = ?))",
     ("retained",)),
    ("item(status == omitted or kind == tool)",
     "EXISTS (SELECT 1 FROM items i WHERE i.trace_id = traces.trace_id AND ((i.status = ?) OR (i.kind = ?)))",
     ("omitted", "tool")),
    ("item(status != omitted)",
     "EXISTS (SELECT 1 FROM items i WHERE i.trace_id = traces.trace_id AND (i.status != ?))", ("omitted",)),
    ("finding", "EXISTS (SELECT 1 FROM trace_findings f WHERE f.trace_id = traces.trace_id)", ()),
    ("finding != budget",
     "(NOT EXISTS (SELECT 1 FROM trace_findings f WHERE f.trace_id = traces.trace_id AND "
     "((f.rule = ? OR (f.rule > ? AND f.rule < ?)))))", ("budget", "budget.", "budget/")),
    ("text ~ 'Ignore prev'",
     "(traces.trace_id IN (SELECT i.trace_id FROM content_fts JOIN blobs b ON b.rowid = content_fts.rowid "
     "JOIN items i ON i.content_hash = b.hash WHERE content_fts MATCH ?))", ('"ignore"* AND "prev"*',)),
    ("claude", "(trace_id LIKE ? ESCAPE '\\' OR model LIKE ? ESCAPE '\\' OR service LIKE ? ESCAPE '\\' "
     "OR provider LIKE ? ESCAPE '\\')", ("%claude%",) * 4),
    ('"model"', "(trace_id LIKE ? ESCAPE '\\' OR model LIKE ? ESCAPE '\\' OR service LIKE ? ESCAPE '\\' "
     "OR provider LIKE ? ESCAPE '\\')", ("%model%",) * 4),
])
def test_compiled_sql(text: str, where: str, params: tuple[object, ...]) -> None:
    c = compile_filter(text)
    assert (c.where, c.params) == (where, params)


def test_precedence_not_over_and_over_or_and_side_by_side_is_and() -> None:
    assert compile_filter("a or b c").where.count(" OR ") == 1 + 3 * 3  # three quick words of 4 columns
    c = compile_filter("state == ok or omitted > 1 and capacity < 9")
    assert c.where == "((state = ?) OR ((omitted_count > ?) AND (capacity < ?)))"
    c = compile_filter("not state == ok and fits")
    assert c.where == "((((state = ?)) IS NOT 1) AND (fits = 1))"
    assert compile_filter("OMITTED > 1 AND Capacity < 9").params == (1, 9)  # keywords and fields: any case
    assert parse_filter("omitted > 1 and (capacity < 9)").children[0].data == "and_expr"


@pytest.mark.parametrize(("text", "message", "position"), [
    ("model ~", "filter ends early: expected a value", 7),
    ("capacity < lots", "capacity takes a number (recorded context capacity C, tokens), not 'lots'", 11),
    ("(omitted > 1", "filter ends early: expected ')'", 12),
    ('model == "abc', "unterminated quoted value", 9),
    ("model ==== 3", "unexpected '==': expected a value", 8),
    ("omitted > 1 and", "filter ends early: expected a field, a word or '('", 15),
    ("capacity < 9 )", "unexpected ')': expected the end", 13),
    ("modle == x", "unknown field 'modle'; fields: id, created, service, provider, model, capacity, input, reserved, "
     "retained, omitted, margin, fits, state, worst, conversation, status, agent, operation, replay_of, format, cost, output, duration, finding, score, score.<name>, text, item.<field>", 0),
    ("fits == maybe", "fits is yes or no, not 'maybe'", 8),
    ("state == bogus", "state is one of ok, warning, failure, not 'bogus'", 9),
    ("state in (ok, bad)", "state is one of ok, warning, failure, not 'bad'", 14),
    # new-user finding N8: a misspelt span status matched nothing, exit 0 ("errors 0" in stats)
    ("status == eror", "status is one of ok, error, unset, unfinished, not 'eror'", 10),
    ("item(kind == evidence and status == gone)", "status is one of retained, omitted, not 'gone'", 36),
    ("item.trust != maybe", "trust is one of trusted, untrusted, not 'maybe'", 14),
    ("created >= 2026-13-45", "created takes an ISO-8601 UTC date or time (2026-11-02, 2026-11-02T09:14:05Z), "
     "not '2026-13-45'", 11),
    ("created < 2026-02-30", "created takes an ISO-8601 UTC date or time (2026-11-02, 2026-11-02T09:14:05Z), "
     "not '2026-02-30'", 10),
    ("and", "'and' needs a condition on each side (quote it to search for the word)", 0),
    ("fits or", "filter ends early: expected a field, a word or '('", 7),
    ("omitted ~ 2", "~ (contains) works on text fields; omitted is a number", 0),
    ("item.colour == red", "unknown item field 'item.colour'; item fields: id, kind, status, trust, role, tokens, "
     "priority, position, reason", 0),
    ("item(kind == tool and item(kind == user))", "item(...) cannot be nested", 22),
    ("text == foo", "text takes ~ (contains the words) or !~, not ==", 0),
    ("text ~ '...'", "text ~ needs at least one word", 7),
])
def test_errors_say_what_and_where(text: str, message: str, position: int) -> None:
    with pytest.raises(FilterError) as err:
        compile_filter(text)
    assert (err.value.message, err.value.position) == (message, position)
    assert str(err.value) == f"{message} (at column {position + 1})"
    assert err.value.caret() == f"{text}\n{' ' * position}^"


ESCAPE_RULE = "in a quoted value: only \\\" \\' and \\\\ are escapes (a backslash itself is \\\\)"


@pytest.mark.parametrize(("text", "shown", "position"), [
    ('model == "gpt\\x4o"', "x", 13),                 # was model == "gptx4o", silently
    ("budget-8k and model == 'a\\nb'", "n", 25),     # was 'anb': not a newline
    ('"ab\\\\\\q"', "q", 5),                         # "ab\\\q": the pair, then \q
    ('item(id == "K\\tB")', "t", 13),
    ('id in (a, "b\\c")', "c", 12),
    ('score.x == "1\\.0"', ".", 13),
])
def test_an_unknown_escape_is_refused_at_its_backslash(text: str, shown: str, position: int) -> None:
    """New user (wt-nu): a backslash before any letter was dropped, so "gpt\\x4o" compared 'gptx4o'."""
    with pytest.raises(FilterError) as err:
        compile_filter(text)
    assert (err.value.message, err.value.position) == (f"unknown escape '\\{shown}' {ESCAPE_RULE}", position)
    assert text[position] == "\\"


def test_the_three_escapes_still_mean_their_character() -> None:
    assert compile_filter(r'id == "a\"b\\c\'d"').params == ('a"b\\c\'d',)
    assert compile_filter("id == 'it\\'s'").params == ("it's",)


def test_quote_round_trips_any_value() -> None:
    for value in ['a"b\\c', "x:y", "", "  spaced  ", "ünï ✓"]:
        assert compile_filter(f"id == {quote(value)}").params == (value,)


def test_valid_values_of_checked_fields_still_compile() -> None:
    assert compile_filter("state == failure").params == ("failure",)
    assert compile_filter("created >= 2026-11-02").params == ("2026-11-02",)
    assert compile_filter("created < 2026-11-02T09:14:05.120Z").params == ("2026-11-02T09:14:05.120Z",)
    assert compile_filter("created ~ 2026-13").params == ("%2026-13%",)  # ~ takes a part: not checked
    assert compile_filter('"and"').params == ("%and%",) * 4  # quoted: a word search


def test_a_whole_number_beyond_sqlite_integers_is_an_error_at_its_column() -> None:
    # newuser s3 #3: 'capacity > 99999999999999999999999' was an OverflowError traceback
    with pytest.raises(FilterError) as err:
        compile_filter("capacity > 99999999999999999999999")
    assert (err.value.message, err.value.position) == (
        "capacity: number too large: '99999999999999999999999' (at most 9,223,372,036,854,775,807)", 11)
    assert compile_filter("capacity > 9223372036854775807").params == (9223372036854775807,)
    assert compile_filter("capacity >= -9223372036854775808").params == (-9223372036854775808,)
    with pytest.raises(FilterError, match="number too large: '9223372036854775808'"):
        compile_filter("capacity > 9223372036854775808")


@pytest.mark.parametrize(("text", "message", "column"), [
    ("capacity < 1e400", "capacity: number too large: '1e400' (at most 9,223,372,036,854,775,807)", 11),
    ("margin > -1e400", "margin: number too small: '-1e400' (at least -9,223,372,036,854,775,808)", 9),
    ("item.priority > 1e400", "priority: number too large: '1e400' (beyond the largest float, 1.8e+308)", 16),
    ("item.priority < -1e400", "priority: number too small: '-1e400' (beyond the largest float, 1.8e+308)", 16),
])
def test_a_number_that_overflows_to_infinity_is_refused_like_1e40(text: str, message: str, column: int) -> None:
    # newuser F-FILTER-INF: 'capacity < 1e400' became inf and matched every trace
    with pytest.raises(FilterError) as err:
        compile_filter(text)
    assert (err.value.message, err.value.position) == (message, column)
    assert compile_filter("item.priority > 1e300").params == (1e300,)  # large but finite: a number


def test_chains_of_not_are_one_test_and_long_runs_of_and_stay_shallow() -> None:
    assert compile_filter("not " * 1000 + "fits").where == "(((fits = 1)) IS 1)"  # was a RecursionError
    assert compile_filter("not " * 101 + "fits").where == "(((fits = 1)) IS NOT 1)"  # was "parser stack overflow"
    where = compile_filter(" and ".join(["fits"] * 1000)).where  # was "Expression tree is too large"
    assert where.count("(fits = 1)") == 1000 and where.count(" AND ") == 999
    assert where.startswith("(((fits = 1) AND ") and where.count("((fits") == 16  # 16 runs of <= 64, one group


def test_a_filter_nested_too_deep_is_an_error_at_the_group() -> None:
    deep = "".join("fits or (" if i % 2 else "fits and (" for i in range(20)) + "fits" + ")" * 20
    with pytest.raises(FilterError) as err:
        compile_filter(deep)
    assert (err.value.message, err.value.position) == (
        "filter nested too deep: more than 12 levels of grouping", [i for i, c in enumerate(deep) if c == "("][11] + 1)
