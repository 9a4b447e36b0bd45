"""``ctxviewer whatif DB TRACE_ID``: re-trim a recorded request under other budgets and priorities.

Registered on the ``ctxviewer`` group in :mod:`ctxviewer.cli`; the work is :func:`ctxviewer.builder.whatif.run`,
the same the GUI's what-if panel calls.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Callable

import click
from tabulate import tabulate

from ctxviewer.assess.breakdown import breakdown
from ctxviewer.assess.budget import CATEGORY_LABELS
from ctxviewer.assess.context import context_for_db
from ctxviewer.builder import Candidate
from ctxviewer.builder.whatif import Outcome, Scenario, describe, filler, run
from ctxviewer.cli.status import BadInput
from ctxviewer.cli.stores import load_trace
from ctxviewer.cli.write import check_place
from ctxviewer.model.trace import Category, Kind, RequestTrace
from ctxviewer.pipeline.hints import create_store
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import BAD_TARGETS, StoreError
from ctxviewer.util.visible import one_line


def _pairs(values: tuple[str, ...], what: str) -> list[tuple[str, str]]:
    out = []
    for v in values:
        key, sep, val = v.partition("=")
        if not sep or not key or not val:
            raise click.BadParameter(f"{v!r}: expected {what}")
        out.append((key, val))
    return out


def _contradiction(pairs: list[tuple[str, str]], option: str, value: Callable[[str], object]) -> None:
    """Refuse (:class:`click.BadParameter`, exit 2) ``option`` naming one key twice with different
    values (``--move X=3 --move X=5``), as ``--pin X --unpin X`` is; the same value twice is one.
    ``value(text)`` is the value a text stands for (``"03"`` and ``"3"`` are one position)."""
    seen: dict[str, tuple[str, object]] = {}
    for key, text in pairs:
        try:
            v = value(text)
        except click.BadParameter:  # not a value at all: the option's own check says so, below
            v = text
        if key in seen and seen[key][1] != v:
            raise click.BadParameter(f"{option} names {key!r} twice ({seen[key][0]} and {text}); give one of them")
        seen.setdefault(key, (text, v))


MAX_TOKENS = 10_000_000
"""Largest token figure a what-if accepts (--capacity, --reserve, --cap, --add-tokens): ten million,
five times the largest context windows offered today; a hypothetical item of that size is built as
text and counted, so the bound also bounds memory and time."""


def _int(text: str, what: str, *, low: int = 0, high: int = MAX_TOKENS, noun: str = "a whole number of tokens") -> int:
    """``text`` as an int in ``low..high``; otherwise :class:`click.BadParameter` (exit 2)."""
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise click.BadParameter(f"{what}: {text!r} is not {noun}") from None
    if not low <= value <= high:
        raise click.BadParameter(f"{what}: {value:,} is out of range ({low:,} to {high:,})")
    return value


def _check_room(trace: RequestTrace, sc: Scenario, capacity_given: bool, reserve_given: bool) -> None:
    """Refuse (:class:`click.BadParameter`, exit 2) a reserve at or above the capacity that
    --reserve or --capacity asked for: it leaves no input budget C - B_out ("Reserve >=
    capacity ... is an error in words"; the same words as ``builder.input_budget``)."""
    capacity = sc.capacity if sc.capacity is not None else trace.endpoint.capacity
    reserve = sc.reserve if sc.reserve is not None else (trace.reserved_output_tokens or 0)
    if (capacity_given or reserve_given) and capacity is not None and reserve >= capacity:
        what = "--reserve" if reserve_given else "--capacity"
        raise click.BadParameter(f"{what}: reserved output {reserve:,} tokens leaves no input budget in the "
                                 f"{capacity:,}-token context window; the reserve must be less than the capacity")


def _number(text: str, what: str) -> float:
    """``text`` as a finite float (a priority); otherwise :class:`click.BadParameter`."""
    try:
        value = float(text)
    except ValueError:
        raise click.BadParameter(f"{what}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise click.BadParameter(f"{what}: {text!r} is not a finite number")
    return value


def _added(specs: tuple[str, ...], sized: tuple[str, ...]) -> tuple[Candidate, ...]:
    out = []
    for n, spec in enumerate(specs + sized, 1):
        parts = spec.split(":", 2)
        if len(parts) != 3:
            raise click.BadParameter(f"{spec!r}: expected KIND:PRIORITY:TEXT (or KIND:PRIORITY:TOKENS)")
        option = "--add-tokens" if n > len(specs) else "--add"
        try:
            kind = Kind(parts[0])
        except ValueError:
            raise click.BadParameter(f"{option} {spec!r}: kind {parts[0]!r} is not one of "
                                     f"{', '.join(k.value for k in Kind)}") from None
        prio = _number(parts[1], f"{option} {spec!r}: priority")
        if n > len(specs):
            text = filler(_int(parts[2], f"{option} {spec!r}: tokens"))
        elif not parts[2]:
            raise click.BadParameter(f"{option} {spec!r}: the text is empty")
        else:
            text = parts[2]
        out.append(Candidate(kind, f"what-if-{n}", text, prio))
    return tuple(out)


def _tokens(v: int | None) -> str:
    return "not recorded" if v is None else f"{v:,}"


def _change(before: int | None, after: int | None) -> str:
    return "—" if before is None or after is None else f"{after - before:+,}"


def render_text(o: Outcome) -> str:
    """The text report: scenario, the rules re-run and the notes (which rule each pin overrides),
    eq. 3.1 before trimming, the assessment of the recording and of the what-if (state: verdict),
    changed items, category moves, and the recorded trace's accounting
    (:func:`ctxviewer.assess.breakdown.breakdown`). Trace text is made one line and visible."""
    lines = [f"what-if on {one_line(o.original.trace_id)}: {one_line(describe(o.scenario))}"]
    if o.rules:
        lines.append("re-trim rules:")
        lines += [f"  {one_line(r)}" for r in o.rules]
    lines += [f"note: {one_line(n)}" for n in o.notes]
    if o.before_trim:
        lines.append(o.before_trim)
    recorded = f"{o.recorded.state.value}: {one_line(o.recorded.verdict)}"
    if o.same_as_recorded:
        lines.append(f"verdict: {recorded} (as recorded)")
    else:
        lines.append(f"recorded: {recorded}")
        lines.append(f"verdict: {o.state.value + ': ' if o.state is not None else ''}{one_line(o.verdict)}")
    if o.trace is None:
        return "\n".join(lines)
    t = o.trace
    def amount(v: int | None) -> str:  # "1,200 tokens", or "not recorded" (never "not recorded tokens")
        return "not recorded" if v is None else f"{v:,} tokens"

    if t.input_tokens is None and t.retained and all(i.tokens is not None for i in t.retained):
        selected = f"{sum(i.tokens or 0 for i in t.retained):,} tokens (the retained items' sum"
        selected += (f"; the provider reported {t.usage.input_tokens:,} for the recorded request)"
                     if t.usage.input_tokens is not None else ")")
    else:
        selected = amount(t.input_tokens)
    lines.append(f"selection: input {selected}, reserved output {_tokens(t.reserved_output_tokens)}, "
                 f"{o.capacity_words()}; retained {len(t.retained)}, omitted {len(t.omitted)}")
    if o.changes:
        lines.append("changed items:")
        lines.append(tabulate([[one_line(c.id), c.kind, one_line(c.before), one_line(c.after)] for c in o.changes],
                              headers=["item", "kind", "recorded", "what-if"], disable_numparse=True))
    else:
        lines.append("no item changed status or position")
    rows = [[CATEGORY_LABELS[c], _tokens(b), _tokens(a), _change(b, a)] for c, (b, a) in o.category_delta.items()]
    lines.append(tabulate(rows, headers=["category", "recorded", "what-if", "change"], disable_numparse=True,
                          colalign=("left", "right", "right", "right")))
    lines.append("recorded accounting (content + framing + tool overhead = counted total):")
    lines += [f"  {one_line(line)}" for line in breakdown(o.original).lines()]
    return "\n".join(lines)


@click.command("whatif")
@click.argument("db", type=click.Path(dir_okay=False))
@click.argument("trace_id")
@click.option("--capacity", default=None, help="Context capacity C in tokens.")
@click.option("--reserve", default=None, help="Reserved output tokens B_out.")
@click.option("--cap", "caps", multiple=True, help="Per-category cap CATEGORY=N (sys, hist, memory, evidence, tools, user).")
@click.option("--priority", "priorities", multiple=True, help="Item priority ID=P (higher is kept longer).")
@click.option("--pin", "pins", multiple=True,
              help="Keep item ID: never trimmed, and kept whatever rule omitted it (window, rank, policy, budget).")
@click.option("--unpin", "unpins", multiple=True, help="Undo a pin on item ID.")
@click.option("--move", "moves", multiple=True, help="Move item ID=POSITION (1-based in the item order).")
@click.option("--add", "adds", multiple=True, help="Hypothetical item KIND:PRIORITY:TEXT.")
@click.option("--add-tokens", "sized", multiple=True, help="Hypothetical item KIND:PRIORITY:TOKENS of that size.")
@click.option("--save", "save", default=None, type=click.Path(dir_okay=False),
              help="Store the what-if as a new trace (replay_of TRACE_ID) in this database (never the source).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: selection, changes, category_delta, verdict, accounting.")
def whatif_cmd(db: str, trace_id: str, capacity: str | None, reserve: str | None, caps: tuple[str, ...],
               priorities: tuple[str, ...], pins: tuple[str, ...], unpins: tuple[str, ...],
               moves: tuple[str, ...], adds: tuple[str, ...], sized: tuple[str, ...], save: str | None,
               as_json: bool) -> None:
    """Re-trim trace TRACE_ID of DB under other limits and priorities and show what changes.

    With no options the what-if reproduces the recording: each omitted item is decided again by
    the rule that omitted it (budget: the declared budgets and C - B_out - the safety margin;
    history window; rank cut; the application's policy), and a pin says which rule it overrides.
    Prints the rules, the new selection record, the items whose status or position changed
    against the recording, how each category's tokens moved, and the assessment (state and
    verdict) of the recording and of the what-if. DB is opened read-only; --save writes the what-if
    to another database as a new trace linked to the original. DB may be a ClickHouse store's URL
    (README: "Team store").

    \b
    Example:
        ctxviewer whatif sample_traces/samples.db budget-8k --add-tokens evidence:75:2000
        ctxviewer whatif sample_traces/samples.db budget-8k --capacity 7000 --cap evidence=2500 --json
    """
    if save is not None:
        check_place(save, "'--save'")
    trace = load_trace(db, trace_id)
    _contradiction(_pairs(caps, "CATEGORY=N"), "--cap", lambda v: _int(v, "--cap"))
    _contradiction(_pairs(priorities, "ID=P"), "--priority", lambda v: _number(v, "--priority"))
    _contradiction(_pairs(moves, "ID=POSITION"), "--move", lambda v: _int(v, "--move", low=1, high=MAX_TOKENS,
                                                                           noun="a position"))
    cap_map: dict[Category, int] = {}
    for k, v in _pairs(caps, "CATEGORY=N"):
        try:
            category = Category(k)
        except ValueError:
            raise click.BadParameter(f"--cap {k}={v}: category {k!r} is not one of sys, hist, memory, evidence, "
                                     "tools, user") from None
        if category is Category.OUT:  # a cap on B_out was shown as a rule and then not applied
            raise click.BadParameter(f"--cap {k}={v}: the reserved output is not capped, it is set: --reserve {v}")
        cap_map[category] = _int(v, f"--cap {k}")
    known = {it.id for it in trace.items}
    prio_map = {}
    for k, v in _pairs(priorities, "ID=P"):
        if k not in known:
            raise click.BadParameter(f"--priority: trace {trace_id!r} has no item {k!r}")
        prio_map[k] = _number(v, f"--priority {k}")
    for i in pins + unpins:
        if i not in known:
            raise click.BadParameter(f"--pin/--unpin: trace {trace_id!r} has no item {i!r}")
    both = sorted(set(pins) & set(unpins))
    if both:
        raise click.BadParameter(f"--pin and --unpin both name item {both[0]!r}; give one of them")
    added = _added(adds, sized)
    movable = known | {c.id for c in added}
    for k, _v in _pairs(moves, "ID=POSITION"):
        if k not in movable:
            raise click.BadParameter(f"--move: trace {trace_id!r} has no item {k!r}"
                                     + (" (items added with --add are what-if-1, what-if-2, ...)" if added else ""))
    scenario = Scenario(
        capacity=None if capacity is None else _int(capacity, "--capacity", low=1),
        reserve=None if reserve is None else _int(reserve, "--reserve"),
        caps=cap_map, priorities=prio_map, pinned=frozenset(pins), unpinned=frozenset(unpins),
        moves=tuple(dict.fromkeys((k, _int(v, f"--move {k}", low=1, high=len(trace.items) + len(added),
                                           noun="a position") - 1) for k, v in _pairs(moves, "ID=POSITION"))),
        added=added,
    )
    _check_room(trace, scenario, capacity is not None, reserve is not None)
    try:
        context = context_for_db(db)
    except ValueError as exc:  # a broken ctxviewer.toml or marks file beside DB
        raise BadInput(str(exc)) from None
    outcome = run(trace, scenario, context=context)
    if save and outcome.trace is not None:
        if Path(save).resolve() == Path(db).resolve():  # a bad option value, as export -o DB (status 2)
            raise BadInput(f"{save}: the source database is never written; choose another file")
        try:
            with create_store(save) as target:
                target.add(with_facts([outcome.trace], context_for_db(save)),
                           waiting=lambda message: click.echo(f"waiting: {message}", err=True))  # as import says
        except BAD_TARGETS as exc:  # not a database, another program's, a newer or older schema: bad input (2), untouched
            raise BadInput(str(exc)) from None
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        doc = {**outcome.to_json(), "accounting": breakdown(trace).to_json()}
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(outcome))
        if save and outcome.trace is not None:
            click.echo(f"saved as trace {one_line(outcome.trace.trace_id)} in {save}")
    if outcome.trace is None:
        raise SystemExit(1)
