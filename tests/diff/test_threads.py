"""Derived omissions only between two calls of one thread (:mod:`ctxviewer.diff.conversation`).

Each case is a real shape the "dropped between calls" rule once misread, imported through the
real importers into a store and shown as ``ctxviewer show`` shows it (``derive_for_display``, then
every check): independent calls under one trace id, a sub-agent's first call, the parent resuming
after a sub-agent, a model-graded scorer after the solver, a span with no captured content, and a
reply restated in the next request together with its tool calls. Each asserts the exact derived
items and findings. Then the positive cases: a genuine earlier turn dropped in a later call of the
same thread is still derived, and a dropped user request is ``required.trimmed`` only where it is
still the later call's request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from otlp_factories import otlp_request, otlp_span, s

from ctxviewer.assess.checks import run_checks
from ctxviewer.diff.conversation import derive_for_display, thread_predecessor
from ctxviewer.model.findings import Severity
from ctxviewer.model.trace import RequestTrace, Status
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

BASE_NS = 1_764_000_000_000_000_000
"""Start of every case's first span, Unix nanoseconds (2025-11-24 16:00:00 UTC)."""


def text(t: str) -> dict[str, Any]:
    """An OTel GenAI ``text`` part."""
    return {"type": "text", "content": t}


def call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """An OTel GenAI ``tool_call`` part."""
    return {"type": "tool_call", "id": cid, "name": name, "arguments": args}


def result(cid: str, response: str) -> dict[str, Any]:
    """An OTel GenAI ``tool_call_response`` part."""
    return {"type": "tool_call_response", "id": cid, "response": response}


def msg(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    """One ``gen_ai.input.messages`` message."""
    return {"role": role, "parts": list(parts)}


def chat(trace_id: str, span_id: str, second: int, messages: list[dict[str, Any]] | None,
         output: list[dict[str, Any]] | None = None, parent: str | None = None) -> dict[str, Any]:
    """A ``gpt-4o-mini`` chat span starting ``second`` s after :data:`BASE_NS` and ending 1 s later,
    under ``parent`` (a span id); ``messages=None`` records no content (capture off)."""
    attrs = {"gen_ai.operation.name": s("chat"), "gen_ai.request.model": s("gpt-4o-mini"),
             "gen_ai.provider.name": s("openai"), "gen_ai.usage.input_tokens": {"intValue": "40"}}
    if messages is not None:
        attrs["gen_ai.input.messages"] = s(json.dumps(messages))
    if output is not None:
        attrs["gen_ai.output.messages"] = s(json.dumps([{"role": "assistant", "parts": output,
                                                          "finish_reason": "stop"}]))
    span = otlp_span(span_id, trace_id, name="chat gpt-4o-mini", kind="SPAN_KIND_CLIENT",
                     start=str(BASE_NS + second * 10**9), end=str(BASE_NS + (second + 1) * 10**9), **attrs)
    if parent is not None:
        span["parentSpanId"] = parent
    return span


def agent(trace_id: str, span_id: str, name: str, second: int, parent: str | None = None,
          named: bool = True) -> dict[str, Any]:
    """An ``invoke_agent`` span of agent ``name``; with ``named=False`` a plain span that names no
    agent (a framework that records none)."""
    attrs = {"gen_ai.operation.name": s("invoke_agent"), "gen_ai.agent.name": s(name)} if named else {}
    span = otlp_span(span_id, trace_id, name=f"invoke_agent {name}", kind="SPAN_KIND_INTERNAL",
                     start=str(BASE_NS + second * 10**9), end=str(BASE_NS + 100 * 10**9), **attrs)
    if parent is not None:
        span["parentSpanId"] = parent
    return span


def store_of(tmp_path: Path, spans: list[dict[str, Any]], name: str = "t") -> Path:
    """A database ``<name>.db`` holding ``spans`` imported from one OTLP/JSON file."""
    src = tmp_path / f"{name}.otlp.json"
    src.write_text(json.dumps(otlp_request(*spans, resource={"service.name": "agent"})))
    db = tmp_path / f"{name}.db"
    with TraceStore.create(db) as store:
        report = import_files([src], store)
    assert report.imported == len([sp for sp in spans if sp["name"].startswith("chat")])
    return db


def shown(db: Path, trace_id: str) -> tuple[RequestTrace, list[tuple[str, str]], list[tuple[str, str, str | None]]]:
    """``trace_id`` as ``show`` shows it, its findings ``(rule, severity)`` sorted, and its derived
    items ``(id, kind, omission reason)``."""
    with TraceStore.open(db) as store:
        trace = derive_for_display(store, store.load(trace_id))
    findings = sorted((f.rule, f.severity.value) for f in run_checks(trace)  # registry order depends on import order
                      if f.severity.rank >= Severity.WARNING.rank)  # info notes (counts, no system prompt) are neutral
    derived = [(i.id, i.kind.value, i.omission_reason) for i in trace.items if i.status is Status.OMITTED]
    return trace, findings, derived


NOT_CHECKED: list[tuple[str, str]] = []
"""The warnings and failures of every call below apart from the ones a case is about: none (the
model catalogue gives gpt-4o-mini's context window, and the notes that remain are info)."""
DROPPED = "dropped between calls (derived)"


def ids(db: Path, trace_ids: list[str]) -> list[str | None]:
    """The thread predecessor of each of ``trace_ids`` (its trace id, or ``None``)."""
    with TraceStore.open(db) as store:
        out = []
        for tid in trace_ids:
            prev = thread_predecessor(store, store.load(tid))
            out.append(None if prev is None else prev.trace_id)
        return out


# --- calls that are other threads --------------------------------------------------------------

INDEPENDENT = "1a2b3c4d5e6f708192a3b4c5d6e7f801"
TRIAGE = msg("system", text("You sort support tickets into billing, shipping or other."))


def test_independent_calls_under_one_trace_id_derive_nothing(tmp_path: Path) -> None:
    """Three classification calls of one batch job share an OTel trace id and a system prompt;
    each sends its own ticket. None is the next step of another: no derived items, no
    ``required.trimmed`` (the earlier calls' tickets were once "trimmed" from the later ones)."""
    db = store_of(tmp_path, [
        chat(INDEPENDENT, "00000000000000b1", 0, [TRIAGE, msg("user", text("My card was charged twice."))],
             [text("billing")]),
        chat(INDEPENDENT, "00000000000000b2", 2, [TRIAGE, msg("user", text("The parcel never arrived."))],
             [text("shipping")]),
        chat(INDEPENDENT, "00000000000000b3", 4, [TRIAGE, msg("user", text("How do I change my password?"))],
             [text("other")]),
    ])
    calls = [f"{INDEPENDENT}:00000000000000b{n}" for n in (1, 2, 3)]
    for tid in calls:
        _, findings, derived = shown(db, tid)
        assert (derived, findings) == ([], NOT_CHECKED)
    assert ids(db, calls) == [None, None, None]


def test_the_same_input_sent_again_is_not_a_next_step(tmp_path: Path) -> None:
    """Two samples of one prompt (or a retry after an answer): the second does not carry the
    first's answer, which is not "dropped": the second is not the first's next step."""
    question = [TRIAGE, msg("user", text("The parcel never arrived."))]
    db = store_of(tmp_path, [chat(INDEPENDENT, "00000000000000b1", 0, question, [text("shipping")]),
                             chat(INDEPENDENT, "00000000000000b2", 2, question, [text("shipping")])])
    _, findings, derived = shown(db, f"{INDEPENDENT}:00000000000000b2")
    assert (derived, findings) == ([], NOT_CHECKED)


SUBAGENTS = "2a2b3c4d5e6f708192a3b4c5d6e7f802"
PLANNER = msg("system", text("You are the Northwind planner. Delegate research to the researcher."))
RESEARCHER = msg("system", text("You are the Northwind researcher. Search the policy pages."))
QUESTION = msg("user", text("Can I still return the boots from order 4471?"))
TASK = msg("user", text("Find the return window for boots."))
DELEGATE = call("call_r", "research", {"question": "return window for boots"})
SEARCH = call("call_s", "search", {"q": "boots return window"})
FOUND = "Boots may be returned within 30 days, unworn."


def _subagent_spans(named: bool) -> list[dict[str, Any]]:
    t = SUBAGENTS
    return [
        agent(t, "00000000000000a0", "planner", 0, named=named),
        chat(t, "00000000000000c1", 1, [PLANNER, QUESTION], [DELEGATE], parent="00000000000000a0"),
        agent(t, "00000000000000a1", "researcher", 2, parent="00000000000000a0", named=named),
        chat(t, "00000000000000c2", 3, [RESEARCHER, TASK], [SEARCH], parent="00000000000000a1"),
        chat(t, "00000000000000c3", 5, [RESEARCHER, TASK, msg("assistant", SEARCH), msg("tool", result("call_s", FOUND))],
             [text("Boots: 30 days, unworn.")], parent="00000000000000a1"),
        chat(t, "00000000000000c4", 7, [PLANNER, QUESTION, msg("assistant", DELEGATE),
                                        msg("tool", result("call_r", "Boots: 30 days, unworn."))],
             [text("Yes: within 30 days of delivery, if they are unworn.")], parent="00000000000000a0"),
    ]


@pytest.mark.parametrize("named", [True, False], ids=["agent names", "span lineage only"])
def test_a_subagents_first_call_and_the_parent_resuming_derive_nothing(tmp_path: Path, named: bool) -> None:
    """The planner delegates to a researcher sub-agent (its own agent span, system prompt and
    task), then resumes. The sub-agent's first call is not the planner's next step (the planner's
    question was never "trimmed" from it), and the planner's resumed call follows its own first
    call, not the sub-agent's last one (whose turns were never "dropped"). The same holds when no
    span names an agent: the calls then differ by their parent span."""
    db = store_of(tmp_path, _subagent_spans(named))
    c1, c2, c3, c4 = (f"{SUBAGENTS}:00000000000000c{n}" for n in (1, 2, 3, 4))
    for tid in (c1, c2, c3, c4):
        _, findings, derived = shown(db, tid)
        assert (tid, derived, findings) == (tid, [], NOT_CHECKED)
    assert ids(db, [c1, c2, c3, c4]) == [None, None, c2, c1]


@pytest.mark.parametrize("named", [True, False], ids=["agent names", "span lineage only"])
def test_a_subagent_with_the_parents_history_is_still_another_agent(tmp_path: Path, named: bool) -> None:
    """A hand-off that gives the sub-agent the planner's question but not the hand-off call:
    another agent (or, with no agent named, another parent span, and the hand-off call is not
    carried), so the planner's call is not "dropped" from it."""
    t = SUBAGENTS
    db = store_of(tmp_path, [
        agent(t, "00000000000000a0", "planner", 0, named=named),
        chat(t, "00000000000000c1", 1, [PLANNER, QUESTION], [DELEGATE], parent="00000000000000a0"),
        agent(t, "00000000000000a1", "researcher", 2, parent="00000000000000a0", named=named),
        chat(t, "00000000000000c2", 3, [RESEARCHER, QUESTION, TASK], [SEARCH], parent="00000000000000a1"),
    ])
    _, findings, derived = shown(db, f"{t}:00000000000000c2")
    assert (derived, findings) == ([], NOT_CHECKED)


def _inspect_log(tmp_path: Path) -> Path:
    """An Inspect AI eval log: a solver's two-call tool loop (one span), then a model-graded
    scorer's call (its own span) that quotes the answer in its grading template."""
    def event(span: str, second: int, messages: list[dict[str, Any]], out: dict[str, Any]) -> dict[str, Any]:
        return {"event": "model", "span_id": span, "model": "openai/gpt-4o-mini",
                "timestamp": f"2025-11-24T16:00:{second:02d}+00:00", "completed": f"2025-11-24T16:00:{second + 1:02d}+00:00",
                "input": messages, "tools": [], "config": {},
                "output": {"model": "gpt-4o-mini", "choices": [{"message": out, "stop_reason": "stop"}],
                           "usage": {"input_tokens": 40, "output_tokens": 10}}}
    system = {"role": "system", "content": "You are the Northwind support agent."}
    user = {"role": "user", "content": "Can I return boots I wore once?"}
    lookup = {"id": "call_p", "function": "policy", "arguments": {"item": "boots"}}
    answer = "No: boots can be returned within 30 days only if unworn."
    log = {"version": 2, "status": "success",
           "eval": {"eval_id": "evGrader", "task": "returns", "model": "openai/gpt-4o-mini"},
           "samples": [{"id": 1, "epoch": 1, "uuid": "sample-returns-1", "events": [
               event("solver-span", 0, [system, user], {"role": "assistant", "content": "", "tool_calls": [lookup]}),
               event("solver-span", 2, [system, user, {"role": "assistant", "content": "", "tool_calls": [lookup]},
                                        {"role": "tool", "tool_call_id": "call_p", "content": "30 days, unworn only"}],
                     {"role": "assistant", "content": answer}),
               event("scorer-span", 4, [{"role": "user", "content": (
                   "You are comparing a submitted answer to an expert answer.\n[Question]: Can I return boots I "
                   f"wore once?\n[Submission]: {answer}\n[Expert]: No.\nEnd with GRADE: C or GRADE: I.")}],
                     {"role": "assistant", "content": "GRADE: C"}),
           ]}]}
    path = tmp_path / "returns.json"
    path.write_text(json.dumps(log))
    return path


def test_a_model_graded_scorer_after_the_solver_derives_nothing(tmp_path: Path) -> None:
    """The scorer's call (same sample, so same conversation) is another thread: the solver's
    messages were never "trimmed" from the grading prompt; the solver's own loop is one thread."""
    db = tmp_path / "t.db"
    with TraceStore.create(db) as store:
        assert import_files([_inspect_log(tmp_path)], store).imported == 3
    solver1, solver2, scorer = (f"evGrader/1/1/{n}" for n in range(3))
    for tid in (solver1, solver2):
        _, findings, derived = shown(db, tid)
        assert (tid, derived, findings) == (tid, [], NOT_CHECKED)
    _, findings, derived = shown(db, scorer)  # the grading template is one user message, no system prompt
    assert (derived, findings) == ([], [*NOT_CHECKED])
    assert ids(db, [solver1, solver2, scorer]) == [None, solver1, None]


def test_a_scorer_given_the_conversation_is_another_thread(tmp_path: Path) -> None:
    """A scorer that is handed the transcript itself -- the question, the final answer, then its
    grading instruction, without the tool exchange -- still runs in its own span: the tool turns
    were never "dropped" from it."""
    log = json.loads(_inspect_log(tmp_path).read_text())
    events = log["samples"][0]["events"]
    answer = events[1]["output"]["choices"][0]["message"]
    events[2]["input"] = [events[0]["input"][1], answer, {"role": "user", "content": "Grade the answer above: C or I."}]
    path = tmp_path / "transcript.json"
    path.write_text(json.dumps(log))
    db = tmp_path / "t.db"
    with TraceStore.create(db) as store:
        assert import_files([path], store).imported == 3
    _, findings, derived = shown(db, "evGrader/1/1/2")
    assert (derived, findings) == ([], [*NOT_CHECKED])


def test_a_call_that_puts_another_message_first_is_not_the_next_step(tmp_path: Path) -> None:
    """A query-rewriting call repeats the last exchange after an instruction of its own: something
    the earlier call never had comes first, so it is not that call's next step (the earlier turns
    were not "dropped" from it)."""
    hello, hi = msg("user", text("Hello, I have a question about an order.")), "Sure, which order?"
    t = "3a2b3c4d5e6f708192a3b4c5d6e7f803"
    db = store_of(tmp_path, [
        chat(t, "00000000000000c1", 0, [SUPPORT, hello, msg("assistant", text(hi)), WHERE], [text("It shipped.")]),
        chat(t, "00000000000000c2", 2, [msg("user", text("Rewrite the last question for a search engine.")), WHERE,
                                        msg("assistant", text("It shipped.")), msg("user", text("Go."))],
             [text("order 4471 shipping status")]),
    ])
    _, findings, derived = shown(db, f"{t}:00000000000000c2")
    assert (derived, findings) == ([], [*NOT_CHECKED])


NO_CONTENT = "4a2b3c4d5e6f708192a3b4c5d6e7f804"
SUPPORT = msg("system", text("You are the Northwind support assistant."))


def test_a_span_with_no_captured_content_derives_nothing(tmp_path: Path) -> None:
    """The middle span was recorded with content capture off (usage only). It sent something we
    cannot see, not nothing: no derived items on it, and the call after it follows the first."""
    u1, a1 = msg("user", text("Where is order 4471?")), "It shipped on 28 October."
    db = store_of(tmp_path, [
        chat(NO_CONTENT, "00000000000000d1", 0, [SUPPORT, u1], [text(a1)]),
        chat(NO_CONTENT, "00000000000000d2", 2, None),
        chat(NO_CONTENT, "00000000000000d3", 4, [SUPPORT, u1, msg("assistant", text(a1)),
                                                  msg("user", text("Which carrier?"))], [text("ParcelLine.")]),
    ])
    d1, d2, d3 = (f"{NO_CONTENT}:00000000000000d{n}" for n in (1, 2, 3))
    trace, findings, derived = shown(db, d2)
    assert trace.attributes["ctxviewer.content"] == "not captured"
    assert (derived, findings) == ([], [*NOT_CHECKED])
    _, findings, derived = shown(db, d3)
    assert (derived, findings) == ([], NOT_CHECKED)
    assert ids(db, [d1, d2, d3]) == [None, None, d1]


RESTATED = "5a2b3c4d5e6f708192a3b4c5d6e7f805"
WHERE = msg("user", text("Where is order 4471?"))
LOOKUP = call("call_1", "lookup_order", {"order_id": "4471"})


def test_a_reply_restated_with_its_tool_calls_is_the_same_message(tmp_path: Path) -> None:
    """Call 1 answered with text and a tool call; call 2 sends that reply back as one assistant
    message with the parts reordered; call 3 sends call 2's answer with a reasoning part added.
    Each reply is carried, never "dropped"."""
    said, shipped = "Let me look that order up.", "Order 4471 shipped on 28 October."
    db = store_of(tmp_path, [
        chat(RESTATED, "00000000000000e1", 0, [SUPPORT, WHERE], [text(said), LOOKUP]),
        chat(RESTATED, "00000000000000e2", 2, [SUPPORT, WHERE, msg("assistant", LOOKUP, text(said)),
                                                msg("tool", result("call_1", '{"status": "shipped"}'))],
             [text(shipped)]),
        chat(RESTATED, "00000000000000e3", 4, [
            SUPPORT, WHERE, msg("assistant", text(said), LOOKUP), msg("tool", result("call_1", '{"status":"shipped"}')),
            msg("assistant", {"type": "reasoning", "content": "The tool says shipped."}, text(shipped)),
            msg("user", text("Thanks!"))], [text("You're welcome.")]),
    ])
    e1, e2, e3 = (f"{RESTATED}:00000000000000e{n}" for n in (1, 2, 3))
    for tid in (e2, e3):
        _, findings, derived = shown(db, tid)
        assert (tid, derived, findings) == (tid, [], NOT_CHECKED)
    assert ids(db, [e1, e2, e3]) == [None, e1, e2]


# --- genuine drops in one thread ---------------------------------------------------------------

LOOP = "6a2b3c4d5e6f708192a3b4c5d6e7f806"


def test_an_earlier_turn_dropped_in_the_same_thread_is_still_derived(tmp_path: Path) -> None:
    """The support agent's third call trimmed the first exchange (greeting and answer) and kept
    the current question: those two turns are derived as dropped, as history (the question they
    precede is this call's request), and nothing required was trimmed."""
    hello, hi = msg("user", text("Hello, I have a question about an order.")), "Sure, which order?"
    db = store_of(tmp_path, [
        agent(LOOP, "00000000000000a0", "support", 0),
        chat(LOOP, "00000000000000f1", 1, [SUPPORT, hello], [text(hi)], parent="00000000000000a0"),
        chat(LOOP, "00000000000000f2", 3, [SUPPORT, hello, msg("assistant", text(hi)), WHERE], [LOOKUP],
             parent="00000000000000a0"),
        chat(LOOP, "00000000000000f3", 5, [SUPPORT, WHERE, msg("assistant", LOOKUP),
                                           msg("tool", result("call_1", '{"status":"shipped"}'))],
             [text("It shipped on 28 October.")], parent="00000000000000a0"),
    ])
    f1, f2, f3 = (f"{LOOP}:00000000000000f{n}" for n in (1, 2, 3))
    trace, findings, derived = shown(db, f3)
    assert derived == [("dropped:msg-1", "history", DROPPED), ("dropped:msg-2", "history", DROPPED)]
    assert [i.content for i in trace.items if i.status is Status.OMITTED] == [
        "Hello, I have a question about an order.", hi]
    assert findings == NOT_CHECKED
    assert ids(db, [f1, f2, f3]) == [None, f1, f2]


def test_a_dropped_request_is_required_only_where_it_is_still_the_request(tmp_path: Path) -> None:
    """Call 2 dropped call 1's question and sends a new one: the old question is an earlier turn
    there (history), not a trimmed requirement. Call 3 (another thread of the same agent) dropped
    the question and sends only the tool exchange: that question is still the request it answers,
    so ``required.trimmed`` is a true failure."""
    db = store_of(tmp_path, [
        agent(LOOP, "00000000000000a0", "support", 0),
        chat(LOOP, "00000000000000f1", 1, [SUPPORT, WHERE], [text("It shipped on 28 October.")],
             parent="00000000000000a0"),
        chat(LOOP, "00000000000000f2", 3, [SUPPORT, msg("assistant", text("It shipped on 28 October.")),
                                           msg("user", text("Which carrier?"))], [text("ParcelLine.")],
             parent="00000000000000a0"),
    ])
    _, findings, derived = shown(db, f"{LOOP}:00000000000000f2")
    assert (derived, findings) == ([("dropped:msg-1", "history", DROPPED)], NOT_CHECKED)

    loop2 = "7a2b3c4d5e6f708192a3b4c5d6e7f807"
    db2 = store_of(tmp_path, [
        agent(loop2, "00000000000000a0", "support", 0),
        chat(loop2, "00000000000000f1", 1, [SUPPORT, WHERE], [LOOKUP], parent="00000000000000a0"),
        chat(loop2, "00000000000000f2", 3, [SUPPORT, msg("assistant", LOOKUP),
                                            msg("tool", result("call_1", '{"status":"shipped"}'))],
             [text("It shipped on 28 October.")], parent="00000000000000a0"),
    ], name="two")
    trace, findings, derived = shown(db2, f"{loop2}:00000000000000f2")
    assert derived == [("dropped:msg-1", "user", DROPPED)]
    assert findings == [*NOT_CHECKED, ("required.trimmed", "failure")]  # sorted by rule
    [f] = [f for f in run_checks(trace) if f.rule == "required.trimmed"]
    assert f.message == "required user item dropped:msg-1 was trimmed (dropped between calls (derived))"
