"""A native record holding ``NaN``, ``Infinity`` or ``-Infinity`` (numbers JSON does not have;
Python's reader takes them) loads with each such value not recorded and a warning naming the line
and the field (:func:`ctxviewer.importers.formats.native._finite`), so ``show --json`` and
``export`` stay valid JSON. Priority is the model's one float; token counts, capacity, usage and
free-form attributes get the same rule."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxviewer.cli import cli

SAMPLE = Path(__file__).resolve().parents[2] / "sample_traces" / "traces.jsonl"


def first_record() -> dict[str, Any]:
    return dict(json.loads(SAMPLE.read_text(encoding="utf-8").splitlines()[0]))


def strict(text: str) -> Any:
    """``text`` parsed as JSON proper: NaN / Infinity refused."""
    def refuse(word: str) -> Any:
        raise AssertionError(f"{word} in the output")
    return json.loads(text, parse_constant=refuse)


def test_an_infinite_priority_is_not_recorded_with_a_warning(tmp_path: Path) -> None:
    rec = first_record()
    rec["items"][0]["priority"] = float("inf")
    src, db = tmp_path / "inf.jsonl", tmp_path / "inf.db"
    src.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    res = CliRunner().invoke(cli, ["import", str(src), "-o", str(db)])
    assert (res.exit_code, res.stdout.strip()) == (0, f"imported 1 trace(s) from 1 file(s) into {db}")
    assert res.stderr == f"warning: {src}: line 1: items[0].priority: Infinity is not a number; stored as not recorded\n"
    shown = CliRunner().invoke(cli, ["show", str(db), rec["trace_id"], "--json"])
    assert shown.exit_code == 0
    items = strict(shown.stdout)["items"]
    assert [i["priority"] for i in items[:2]] == [None, rec["items"][1]["priority"]]
    out = tmp_path / "x.otlp.json"
    exported = CliRunner().invoke(cli, ["export", str(db), "-o", str(out)])
    assert exported.exit_code == 0, exported.output
    strict(out.read_text(encoding="utf-8"))


FIELDS = [("items", 0, "priority"), ("items", 1, "tokens"), ("endpoint", "capacity"), ("usage", "input_tokens"),
          ("budget",), ("reserved_output_tokens",), ("attributes", "x.score")]
NAMES = {("items", 0, "priority"): "items[0].priority", ("items", 1, "tokens"): "items[1].tokens",
         ("endpoint", "capacity"): "endpoint.capacity", ("usage", "input_tokens"): "usage.input_tokens",
         ("budget",): "budget", ("reserved_output_tokens",): "reserved_output_tokens",
         ("attributes", "x.score"): "attributes.x.score"}
WORDS = {math.inf: "Infinity", -math.inf: "-Infinity"}


def put(rec: dict[str, Any], where: tuple[Any, ...], value: float) -> None:
    at: Any = rec
    for key in where[:-1]:
        if isinstance(at, dict) and at.get(key) is None:
            at[key] = {}
        at = at[key]
    at[where[-1]] = value


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(FIELDS), st.sampled_from([math.nan, math.inf, -math.inf])),
                min_size=1, max_size=4, unique_by=lambda t: t[0]))
def test_non_finite_numbers_anywhere_leave_show_json_valid(tmp_path: Path, hits: list[tuple[tuple[Any, ...], float]]) -> None:
    rec = first_record()
    for where, value in hits:
        put(rec, where, value)
    case = tmp_path / str(abs(hash(tuple(NAMES[w] for w, _ in hits))))
    case.mkdir(exist_ok=True)
    src, db = case / "t.jsonl", case / "t.db"
    src.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    if db.exists():
        db.unlink()
    res = CliRunner().invoke(cli, ["import", str(src), "-o", str(db)])
    assert res.exit_code == 0, res.output
    warned = {line.split(": ")[3] for line in res.stderr.splitlines() if "is not a number" in line}
    assert warned == {NAMES[w] for w, _ in hits}
    assert all(f"{NAMES[w]}: {WORDS.get(v, 'NaN')} is not a number; stored as not recorded" in res.stderr
               for w, v in hits)
    shown = CliRunner().invoke(cli, ["show", str(db), rec["trace_id"], "--json"])
    assert shown.exit_code == 0, shown.output
    d = strict(shown.stdout)
    if ("items", 0, "priority") in dict(hits):
        assert d["items"][0]["priority"] is None
    if ("items", 1, "tokens") in dict(hits):  # not recorded, so ctxviewer counts it (and says so)
        assert (d["items"][1]["tokens"], d["items"][1]["tokens_source"]) == (101, "counted")  # a tool definition, by its lines (F13)
    else:
        assert d["items"][1]["tokens_source"] == "recorded"
