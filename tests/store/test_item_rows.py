"""store.item_row reads an item's column values straight from the item (issue 11: no JSON form
per item at import); every value equals the one read from its native JSON form, as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factories import make_rich_trace

from ctxviewer.model.serialize import item_to_dict
from ctxviewer.model.trace import ContextItem, Kind, SourceRef, Status, TokenProvenance, TokenSource, Trust
from ctxviewer.store import TraceStore
from ctxviewer.store.rows import item_row

SAMPLES_DB = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"


def _from_json_form(tid: str, ordinal: int, item: ContextItem, ref: Any) -> tuple[Any, ...]:
    """The row as the store built it before: from item_to_dict."""
    d = item_to_dict(item)
    d.pop("content", None)
    source = d.get("source")
    provenance = d.get("tokens_provenance") or {}
    return (tid, ordinal, item.id, d["kind"], d["status"], d.get("position"), d.get("priority"), d["trust"],
            d.get("tokens"), d.get("omission_reason"), d.get("role"),
            json.dumps(source, ensure_ascii=False, sort_keys=True) if source else None,
            provenance.get("source"), provenance.get("encoding"), ref)


def test_item_rows_equal_the_json_form_for_every_sample_item_and_edge_values() -> None:
    with TraceStore.open(SAMPLES_DB) as store:
        items = [i for r in store.list(limit=-1) for i in store.load(r.trace_id).items]
    items += list(make_rich_trace().items)
    items += [
        ContextItem(Kind.EVIDENCE, "e0", "", Status.OMITTED, 0, 0, 0.0, Trust.TRUSTED, SourceRef(), "",
                    "", TokenProvenance(TokenSource.COUNTED, None)),  # zeros, empty strings, an empty source
        ContextItem(Kind.TOOL, "t1", None, priority=2, source=SourceRef(store="kb", document_id="Ä-1", turn=0),
                    tokens_provenance=TokenProvenance(TokenSource.RECORDED, "o200k_base")),
    ]
    assert len(items) > 100
    rows = [item_row("t", n, i, f"ref{n}") for n, i in enumerate(items)]
    assert rows == [_from_json_form("t", n, i, f"ref{n}") for n, i in enumerate(items)]
    assert rows[-2][11] is None and rows[-2][3:11] == ("evidence", "omitted", 0, 0.0, "trusted", 0, "", "")
    assert rows[-1][11] == '{"document_id": "Ä-1", "store": "kb", "turn": 0}'
    assert type(rows[-1][6]) is int  # an integer priority stays an integer, as in the JSON form
