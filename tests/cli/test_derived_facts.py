"""A promise dropped between two calls of one thread: ``show``, ``check``, ``list`` and ``list
--filter 'finding == commitment.forgotten'`` all find it (the import stores the facts with the
derived omissions, :mod:`ctxviewer.pipeline.derived_facts`)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ctxviewer.cli import cli
from tests.diff.test_threads import SUPPORT, agent, chat, msg, store_of, text

# the second call carries the question but drops the reply that made the promise
THREAD = "7a2b3c4d5e6f708192a3b4c5d6e7f807"
PROMISE = "I promise we will refund the order in full by Friday."


def _cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout


def test_a_promise_dropped_between_calls_is_found_by_every_surface(tmp_path: Path) -> None:
    ask = msg("user", text("My order 4471 arrived broken. Can I get my money back?"))
    again = msg("user", text("Thanks. When exactly will the money arrive?"))
    db = store_of(tmp_path, [
        agent(THREAD, "00000000000000a0", "support", 0),
        chat(THREAD, "00000000000000f1", 1, [SUPPORT, ask], [text(PROMISE)], parent="00000000000000a0"),
        chat(THREAD, "00000000000000f2", 3, [SUPPORT, ask, again], [text("Within 10 days.")], parent="00000000000000a0"),
    ])
    second = f"{THREAD}:00000000000000f2"
    shown = json.loads(_cli("show", str(db), second, "--json")[1])
    rules = [f["rule"] for f in shown["findings"]]
    assert "commitment.forgotten" in rules
    checked = {r["trace_id"]: r for r in json.loads(_cli("check", str(db), "--json")[1])}
    assert [f["rule"] for f in checked[second]["findings"]] == rules
    listed = {r["trace_id"]: r for r in json.loads(_cli("list", str(db), "--json")[1])}
    assert (listed[second]["state"], listed[second]["verdict"]) == (shown["state"], shown["verdict"])
    found = json.loads(_cli("list", str(db), "--json", "--filter", "finding == commitment.forgotten")[1])
    assert [r["trace_id"] for r in found] == [second]


def test_the_refresh_loads_each_call_once_and_rewrites_the_same_facts(tmp_path: Path) -> None:
    """Three calls of one thread: refreshing them loads each from the store once (the predecessor
    is the call refreshed just before), and the facts it rewrites are those ``show`` finds."""
    from ctxviewer.assess.context import EMPTY
    from ctxviewer.pipeline.derived_facts import refresh_derived
    from ctxviewer.store import TraceStore

    ask = msg("user", text("My order 4471 arrived broken. Can I get my money back?"))
    again = msg("user", text("Thanks. When exactly will the money arrive?"))
    last = msg("user", text("And the shipping fee?"))
    db = store_of(tmp_path, [
        agent(THREAD, "00000000000000a0", "support", 0),
        chat(THREAD, "00000000000000f1", 1, [SUPPORT, ask], [text(PROMISE)], parent="00000000000000a0"),
        chat(THREAD, "00000000000000f2", 3, [SUPPORT, ask, again], [text("Within 10 days.")], parent="00000000000000a0"),
        chat(THREAD, "00000000000000f3", 5, [SUPPORT, ask, again, last], [text("Refunded too.")],
             parent="00000000000000a0"),
    ])
    ids = [f"{THREAD}:00000000000000f{n}" for n in (1, 2, 3)]
    before = {r["trace_id"]: r for r in json.loads(_cli("list", str(db), "--json")[1])}
    with TraceStore.create(db) as store:
        loaded: list[str] = []
        real = store.load
        store.load = lambda tid: loaded.append(tid) or real(tid)  # type: ignore[method-assign]
        assert refresh_derived(store, ids, EMPTY) == 2  # the second and third drop the promise
    assert sorted(loaded) == ids
    after = {r["trace_id"]: r for r in json.loads(_cli("list", str(db), "--json")[1])}
    assert after == before
    shown = json.loads(_cli("show", str(db), ids[1], "--json")[1])
    assert "commitment.forgotten" in [f["rule"] for f in shown["findings"]]


def test_the_earlier_calls_read_once_per_conversation_are_those_each_call_finds(tmp_path: Path) -> None:
    """:func:`earlier_calls` (the rows of every call, each conversation read once) gives, for every
    stored call, exactly the ids :func:`earlier_call_ids` finds for that call loaded: OTel trace
    ranges (a tie in send time broken by trace id, a neighbouring trace id outside the range), a
    conversation id spanning two OTel traces, a call alone, and an id not stored (left out)."""
    from ctxviewer.diff.conversation import earlier_call_ids
    from ctxviewer.pipeline.derived_facts import earlier_calls
    from ctxviewer.store import TraceStore

    other = THREAD[:-1] + "8"  # sorts right after THREAD: outside its id range
    conv = {"gen_ai.conversation.id": {"stringValue": "conv-7"}}
    ask = msg("user", text("My order 4471 arrived broken. Can I get my money back?"))
    spans = [
        agent(THREAD, "00000000000000a0", "support", 0),
        chat(THREAD, "00000000000000f1", 1, [SUPPORT, ask], [text(PROMISE)], parent="00000000000000a0"),
        chat(THREAD, "00000000000000f3", 3, [SUPPORT, ask], parent="00000000000000a0"),
        chat(THREAD, "00000000000000f2", 3, [SUPPORT, ask], parent="00000000000000a0"),  # same second as f3
        chat(other, "00000000000000e1", 2, [SUPPORT, ask]),
    ]
    for n, (tid, second) in enumerate([("1" * 32, 7), ("2" * 32, 5), ("1" * 32, 9)]):
        span = chat(tid, f"00000000000000d{n}", second, [SUPPORT, ask])
        span["attributes"].extend({"key": k, "value": v} for k, v in conv.items())
        spans.append(span)
    db = store_of(tmp_path, spans)
    with TraceStore.open(db) as store:
        stored = [r.trace_id for r in store.list(limit=-1)]
        assert len(stored) == 7
        expected = {tid: earlier_call_ids(store, store.load(tid)) for tid in stored}
        assert earlier_calls(store, [*reversed(stored), "nope:0000000000000000"]) == expected
    assert expected[f"{THREAD}:00000000000000f3"] == [f"{THREAD}:00000000000000f1", f"{THREAD}:00000000000000f2"]
    assert expected[f"{other}:00000000000000e1"] == []
    assert expected["1" * 32 + ":00000000000000d2"] == ["2" * 32 + ":00000000000000d1", "1" * 32 + ":00000000000000d0"]


def test_the_refresh_shapes_each_call_once_however_many_calls_it_is_aligned_with(tmp_path: Path, monkeypatch) -> None:
    """Four calls of one conversation, none continuing another (each asks anew): the refresh aligns
    the last with all three before it, the third with two, the second with one (six alignments),
    yet works out the shape of each call's sent messages once -- one each (the system prompt is no
    message), four in all, where shaping both calls of every alignment made twelve -- and finds
    nothing dropped."""
    import ctxviewer.diff.threads as threads
    from ctxviewer.assess.context import EMPTY
    from ctxviewer.pipeline.derived_facts import refresh_derived
    from ctxviewer.store import TraceStore

    spans = [agent(THREAD, "00000000000000a0", "support", 0)]
    for n in range(1, 5):
        spans.append(chat(THREAD, f"00000000000000f{n}", 2 * n, [SUPPORT, msg("user", text(f"Is order {n} late?"))],
                          [text(f"Order {n} is on time.")], parent="00000000000000a0"))
    db = store_of(tmp_path, spans)
    shaped: list[str | None] = []
    real = threads.message_shape
    monkeypatch.setattr(threads, "message_shape", lambda item: shaped.append(item.content) or real(item))
    aligned: list[tuple[str, str]] = []
    real_align = threads._align
    monkeypatch.setattr(threads, "_align", lambda p, c, r=False: aligned.append((p.trace_id, c.trace_id)) or real_align(p, c, r))
    threads._shaped.cache_clear()
    with TraceStore.create(db) as store:
        assert refresh_derived(store, [f"{THREAD}:00000000000000f{n}" for n in range(1, 5)], EMPTY) == 0
    assert len(aligned) == 6
    assert sorted(shaped) == [f"Is order {n} late?" for n in range(1, 5)]
