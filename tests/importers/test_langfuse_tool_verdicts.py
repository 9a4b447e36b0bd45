"""Langfuse tool observations as the verdicts of the calls a generation proposed
(:mod:`ctxviewer.importers.formats.langfuse.tool_runs`): by tool-call id when one is recorded,
else by tool name and order when one call and one execution are the only candidates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxviewer.importers import get_importer
from ctxviewer.model.trace import RequestTrace, ToolVerdict


def _gen(oid: str, start: str, calls: list[tuple[str, str]], parent: str | None = "agent") -> dict[str, Any]:
    return {"id": oid, "type": "GENERATION", "name": "chat", "parentObservationId": parent, "startTime": start,
            "endTime": start, "model": "gpt-4o-mini", "level": "DEFAULT",
            "input": [{"role": "user", "content": "Weather in Tokyo, then pay the invoice"}],
            "output": {"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": name, "arguments": "{}"}} for cid, name in calls]}}


def _tool(oid: str, name: str, start: str, parent: str | None = "agent", level: str = "DEFAULT",
          message: str | None = None, attrs: dict[str, Any] | None = None, end: str | None = "same") -> dict[str, Any]:
    return {"id": oid, "type": "TOOL", "name": name, "parentObservationId": parent, "startTime": start,
            "endTime": start if end == "same" else end, "level": level, "statusMessage": message,
            "input": "{}", "output": "done",
            "metadata": json.dumps({"attributes": attrs if attrs is not None else {"tool.name": name}})}


AGENT = {"id": "agent", "type": "AGENT", "name": "Assistant", "parentObservationId": None,
         "startTime": "2025-09-30T09:00:00.000Z", "endTime": "2025-09-30T09:00:09.000Z"}


def _calls(tmp_path: Path, *observations: dict[str, Any]) -> dict[str, list[tuple[str, ToolVerdict | None, str | None]]]:
    path = tmp_path / "t.trace.json"
    path.write_text(json.dumps({"trace": {"id": "t1", "name": "run"}, "observations": [AGENT, *observations]}),
                    encoding="utf-8")
    return {r.trace_id: [(c.name, c.verdict, c.decided_by) for c in r.tool_calls]
            for r in get_importer("langfuse").load(path) if isinstance(r, RequestTrace)}


def test_an_id_less_tool_observation_that_ran_permits_its_call_by_name_and_order(tmp_path: Path) -> None:
    got = _calls(tmp_path, _gen("g1", "2025-09-30T09:00:01.000Z", [("call_1", "get_weather")]),
                 _tool("t1", "get_weather", "2025-09-30T09:00:02.000Z"),
                 _gen("g2", "2025-09-30T09:00:03.000Z", []))
    assert got["g1"] == [("get_weather", ToolVerdict.PERMITTED, "its TOOL observation t1, matched by tool name and "
                          "order, not by id (ran: ended, no status recorded)")]


def test_a_refusal_blocks_an_approval_holds_and_another_error_decides_nothing(tmp_path: Path) -> None:
    got = _calls(tmp_path, _gen("g1", "2025-09-30T09:00:01.000Z", [("call_1", "get_weather"), ("call_2", "pay"),
                                                                    ("call_3", "send_email")]),
                 _tool("t1", "get_weather", "2025-09-30T09:00:02.000Z", level="ERROR",
                       message="TimeoutError: the weather service did not answer"),
                 _tool("t2", "pay", "2025-09-30T09:00:02.100Z", level="ERROR",
                       message="PermissionError: payments are not allowed for this agent"),
                 _tool("t3", "send_email", "2025-09-30T09:00:02.200Z", level="ERROR",
                       message="send_email requires approval"))
    assert got["g1"] == [
        ("get_weather", None, None),
        ("pay", ToolVerdict.BLOCKED, "its TOOL observation t2, matched by tool name and order, not by id (refused: "
         "PermissionError: payments are not allowed for this agent)"),
        ("send_email", ToolVerdict.NEEDS_APPROVAL, "its TOOL observation t3, matched by tool name and order, not by "
         "id (not run: send_email requires approval)")]


def test_ambiguous_matches_decide_nothing(tmp_path: Path) -> None:
    """Two executions of one proposed tool, or two proposals of one executed tool: which ran is not
    recorded, so no verdict is read."""
    got = _calls(tmp_path, _gen("g1", "2025-09-30T09:00:01.000Z", [("call_1", "get_weather")]),
                 _tool("t1", "get_weather", "2025-09-30T09:00:02.000Z"),
                 _tool("t2", "get_weather", "2025-09-30T09:00:02.500Z", level="ERROR", message="PermissionError: no"),
                 _gen("g2", "2025-09-30T09:00:03.000Z", [("call_2", "pay"), ("call_3", "pay")]),
                 _tool("t3", "pay", "2025-09-30T09:00:04.000Z", level="ERROR", message="PermissionError: no"))
    assert got == {"g1": [("get_weather", None, None)], "g2": [("pay", None, None), ("pay", None, None)]}


def test_only_executions_after_the_call_before_the_next_generation_under_the_same_parent(tmp_path: Path) -> None:
    got = _calls(tmp_path, _tool("t0", "get_weather", "2025-09-30T09:00:00.500Z"),  # before the proposal
                 _gen("g1", "2025-09-30T09:00:01.000Z", [("call_1", "get_weather")]),
                 _tool("t1", "get_weather", "2025-09-30T09:00:02.000Z", parent="other"),  # another agent's
                 _gen("g2", "2025-09-30T09:00:03.000Z", [("call_2", "pay")]),
                 _tool("t2", "get_weather", "2025-09-30T09:00:04.000Z"),  # after the next generation
                 _tool("t3", "pay", "2025-09-30T09:00:04.000Z", end=None))
    assert got == {"g1": [("get_weather", None, None)],
                   "g2": [("pay", ToolVerdict.PERMITTED, "its TOOL observation t3, matched by tool name and order, "
                           "not by id (ran: started and never ended)")]}


def test_a_recorded_call_id_matches_first_and_names_no_order(tmp_path: Path) -> None:
    """Microsoft Agent Framework / Koog record ``gen_ai.tool.call.id``: the id decides, whichever
    execution of the tool comes first; another call's id is never matched by name."""
    got = _calls(tmp_path, _gen("g1", "2025-09-30T09:00:01.000Z", [("call_1", "get_weather")]),
                 _tool("t1", "get_weather", "2025-09-30T09:00:02.000Z", level="ERROR", message="PermissionError: no",
                       attrs={"gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "call_9"}),
                 _tool("t2", "get_weather", "2025-09-30T09:00:02.500Z",
                       attrs={"gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "call_1"}),
                 _gen("g2", "2025-09-30T09:00:03.000Z", [("call_5", "pay")]),
                 {**_tool("t3", "tool.pay", "2025-09-30T09:00:04.000Z", level="ERROR", message="PermissionError: no",
                          attrs={"gen_ai.tool.call.id": "call_7"}), "type": "SPAN"})
    assert got == {"g1": [("get_weather", ToolVerdict.PERMITTED, "its TOOL observation t2 (ran: ended, no status "
                           "recorded)")],
                   "g2": [("pay", None, None)]}


def test_corpus_tool_observations(shared: Path) -> None:
    """The corpus's Langfuse downloads: each proposed call ran (their tools answered); the OpenAI
    Agents SDK's TOOL observation records no id, so it is matched by name and order and says so."""
    def verdicts(name: str) -> list[tuple[str, str | None, ToolVerdict | None, str | None]]:
        path = shared / "corpus" / "langfuse" / name
        return [(c.name, c.id, c.verdict, c.decided_by) for r in get_importer("langfuse").load(path)
                if isinstance(r, RequestTrace) for c in r.tool_calls]

    assert verdicts("openai-agents-2025-09-30.trace.json") == [
        ("get_weather", "call_Kud0j0DxWSmLzv9W5m6qVqXn", ToolVerdict.PERMITTED, "its TOOL observation "
         "5b99c3e3411ed17b, matched by tool name and order, not by id (ran: ended, no status recorded)")]
    assert verdicts("microsoft-agent-2025-12-17.trace.json") == [
        ("get_weather", "call_CwaJHuXTm9dmHFQPlVbqyzJ0", ToolVerdict.PERMITTED,
         "its TOOL observation a2de97aac476c036 (ran: ended, no status recorded)")]
    assert verdicts("koog-2025-08-26.trace.json") == [
        ("HelloTool", "call_n2HaWg9KFP0BZDqXv6G4b3nJ", ToolVerdict.PERMITTED,
         "its SPAN observation 66f269083a2fff81 (tool.HelloTool) (ran: ended, no status recorded)"),
        ("ByeTool", "call_dOeEHJDI0liHrCdFWTpkTsuO", ToolVerdict.PERMITTED,
         "its SPAN observation 33188493784a060d (tool.ByeTool) (ran: ended, no status recorded)")]
    assert verdicts("langgraph-python-2025-08-22.trace.json") == [
        ("Web-Search", "call_1oGK863sxQHlPreFhDdEs3yl", ToolVerdict.PERMITTED,
         "its SPAN observation 21441266a9f21251 (Web-Search) (ran: ended, no status recorded)")]


def test_the_verdict_decides_the_finding(tmp_path: Path) -> None:
    """A destructive statement the OpenAI Agents SDK ran (its TOOL observation names no id): the
    failed check is now a critical "permitted" finding, not "no verdict recorded"; refused, it is
    the warning that the check held."""
    from ctxviewer.assess.checks import run_checks

    def findings(tool: dict[str, Any]) -> list[tuple[str, str, str]]:
        gen = _gen("g1", "2025-09-30T09:00:01.000Z", [("call_1", "run_sql")])
        gen["output"]["tool_calls"][0]["function"]["arguments"] = json.dumps({"query": "DROP TABLE customers"})
        path = tmp_path / "sql.trace.json"
        path.write_text(json.dumps({"trace": {"id": "t1"}, "observations": [AGENT, gen, tool]}), encoding="utf-8")
        (trace,) = [r for r in get_importer("langfuse").load(path) if isinstance(r, RequestTrace)]
        return [(f.rule, f.severity.value, f.message) for f in run_checks(trace) if f.rule.startswith("tool.")]

    assert findings(_tool("t1", "run_sql", "2025-09-30T09:00:02.000Z")) == [(
        "tool.permitted_despite_failed_check", "critical",
        "run_sql proposed and permitted although 1 check(s) failed (decided by its TOOL observation t1, matched by "
        "tool name and order, not by id (ran: ended, no status recorded)): destructive")]
    assert findings(_tool("t1", "run_sql", "2025-09-30T09:00:02.000Z", level="ERROR",
                          message="PermissionError: DROP not allowed")) == [(
        "tool.unsafe_blocked", "warning",
        "run_sql proposed and blocked because 1 check(s) failed (decided by its TOOL observation t1, matched by "
        "tool name and order, not by id (refused: PermissionError: DROP not allowed)): destructive")]


def test_a_tool_two_overlapping_generations_proposed_is_matched_by_neither(tmp_path: Path) -> None:
    """Review finding 5: g1 and g2 under one parent both propose get_weather and one id-less
    execution follows both; which call it ran is not recorded, but g2's call was shown blocked."""
    got = _calls(tmp_path, _gen("g1", "2025-09-30T09:00:01.000Z", [("call_1", "get_weather")]),
                 _gen("g2", "2025-09-30T09:00:01.200Z", [("call_2", "get_weather")]),
                 _tool("t1", "get_weather", "2025-09-30T09:00:02.000Z", level="ERROR", message="PermissionError: no"))
    assert got == {"g1": [("get_weather", None, None)], "g2": [("get_weather", None, None)]}
    # a sequential loop -- g1's call ran before g2 proposed the tool again -- still matches each
    got = _calls(tmp_path, _gen("g1", "2025-09-30T09:00:01.000Z", [("call_1", "get_weather")]),
                 _tool("t1", "get_weather", "2025-09-30T09:00:01.100Z"),
                 _gen("g2", "2025-09-30T09:00:01.200Z", [("call_2", "get_weather")]),
                 _tool("t2", "get_weather", "2025-09-30T09:00:02.000Z", level="ERROR", message="PermissionError: no"))
    assert [v for _n, v, _d in got["g1"] + got["g2"]] == [ToolVerdict.PERMITTED, ToolVerdict.BLOCKED]
