"""The sample ``budget-8k`` against its replay ``budget-8k-replay`` (issue 8): the replay moved two
evidence documents and re-ranked one; nothing else the model received changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxviewer.diff import Change, diff_traces
from ctxviewer.diff.render import describe, diff_json, headline
from ctxviewer.store import TraceStore

SAMPLES_DB = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


@pytest.fixture(scope="module")
def diff():
    with TraceStore.open(SAMPLES_DB) as store:
        return diff_traces(store.load("budget-8k"), store.load("budget-8k-replay"))


def test_items_two_moves_one_reranked(diff) -> None:
    assert len(diff.items) == 25
    changed = [(d.id, d.changes, d.position_a, d.position_b, d.move_number) for d in diff.changed_items]
    assert changed == [
        ("PARTS-NB-RIDGEBACK2", (Change.MOVED,), 22, 19, 1),
        ("KB-1004", (Change.MOVED, Change.PRIORITY_CHANGED), 20, 24, 2),
    ]
    assert diff.counts == {Change.UNCHANGED: 23, Change.MOVED: 2}
    kb1004 = next(d for d in diff.items if d.id == "KB-1004")
    assert (kb1004.a.priority, kb1004.b.priority) == (70.0, 50.0)
    assert describe(kb1004) == "moved 20 → 24 (#2); priority 70 → 50"
    # shifted by the moves, not moved themselves
    kb1002 = next(d for d in diff.items if d.id == "KB-1002")
    assert (kb1002.change, kb1002.position_a, kb1002.position_b) == (Change.UNCHANGED, 19, 20)


def test_request_level(diff) -> None:
    fd = diff.first_divergence
    assert (fd.position, fd.id_a, fd.id_b) == (19, "KB-1002", "PARTS-NB-RIDGEBACK2")
    assert not diff.policy.changed and diff.policy.version_b == "2026-10-03"
    assert diff.fields == () and diff.accounting == ()
    assert {c.category.value: (c.used_a, c.used_b, c.delta) for c in diff.allocations} == {
        "sys": (800, 800, 0), "hist": (1200, 1200, 0), "evidence": (3000, 3000, 0),
        "tools": (600, 600, 0), "user": (400, 400, 0), "out": (1200, 1200, 0),
    }
    assert diff.verdict_a == diff.verdict_b == "fits, 800 tokens margin"
    assert [(e.id, e.position_a, e.position_b, e.rank_a, e.rank_b) for e in diff.evidence] == [
        ("ORD-NW-4418207", 17, 17, 1, 1),
        ("KB-1003", 18, 18, 2, 2),
        ("PARTS-NB-RIDGEBACK2", 22, 19, 6, 3),
        ("KB-1002", 19, 20, 3, 4),
        ("INV-CF-TALUS-MID-W", 21, 21, 5, 5),
        ("KB-1001", 23, 22, 7, 6),
        ("KB-1005", 24, 23, 8, 7),
        ("KB-1004", 20, 24, 4, 8),
    ]
    assert diff.response_changed and diff.tool_calls == ()
    assert headline(diff) == "2 moved; first divergence at position 19"


def test_json_shape(diff) -> None:
    js = diff_json(diff)
    assert {"items", "first_divergence", "allocations_delta", "policy", "verdict_a", "verdict_b",
            "tool_calls"} <= set(js)
    row = next(r for r in js["items"] if r["id"] == "PARTS-NB-RIDGEBACK2")
    assert {k: row[k] for k in ("change", "kind", "id", "position_a", "position_b", "status_a", "status_b",
                                "tokens_a", "tokens_b")} == {
        "change": "moved", "kind": "evidence", "id": "PARTS-NB-RIDGEBACK2", "position_a": 22, "position_b": 19,
        "status_a": "retained", "status_b": "retained", "tokens_a": 228, "tokens_b": 228}
    assert js["first_divergence"] == {"position": 19, "id_a": "KB-1002", "id_b": "PARTS-NB-RIDGEBACK2"}
    assert js["allocations_delta"]["evidence"]["delta"] == 0
