"""Writes rag.spans-frame.json: the rows of a Phoenix spans dataframe (``px.Client().get_spans_dataframe()``)
for the same three spans as rag.otlpv1.json, as tests/importers/test_phoenix_frame.py writes them
to Parquet with pyarrow (what ``df.to_parquet()`` / ``TraceDataset.save()`` store).

Column shapes (Arize-ai/phoenix ``src/phoenix/trace/trace_dataset.py``): the required span columns,
``context.span_id`` / ``context.trace_id``, one ``attributes.KEY`` column per attribute, every
column in every row (``None`` where a span has no such attribute). Lists of messages as lists of
objects with dotted keys (``message.role``); the retrieval documents as nested objects
(``{"document": {"id": ...}}``), both of which a frame may hold. Times are ISO strings here
(datetimes in the Parquet file).

Run ``python tests/data/phoenix/make_frame.py`` to rewrite it (deterministic).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def _value(v: dict[str, Any]) -> Any:
    return next((x for x in v.values() if x is not None), None)


def _iso(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, tz=timezone.utc).isoformat()


def main() -> None:
    spans = json.loads((HERE / "rag.otlpv1.json").read_text())["data"]
    rows = []
    for sp in spans:
        flat = {a["key"]: _value(a["value"]) for a in sp["attributes"]}
        attrs: dict[str, Any] = {}
        for prefix, inner in (("llm.input_messages", "message"), ("llm.output_messages", "message"),
                              ("retrieval.documents", "document")):
            items: dict[int, dict[str, Any]] = {}
            for k in [k for k in flat if k.startswith(prefix + ".")]:
                i, rest = k[len(prefix) + 1:].split(".", 1)
                items.setdefault(int(i), {})[rest] = flat.pop(k)
            if items:
                if inner == "document":  # nested form
                    attrs[prefix] = [{"document": {k.split(".", 1)[1]: v for k, v in items[i].items()}}
                                     for i in sorted(items)]
                else:  # dotted form
                    attrs[prefix] = [items[i] for i in sorted(items)]
        attrs.update(flat)
        kind = attrs.get("openinference.span.kind")
        rows.append({"name": sp["name"], "span_kind": kind, "parent_id": sp["parent_span_id"],
                     "start_time": _iso(sp["start_time_unix_nano"]), "end_time": _iso(sp["end_time_unix_nano"]),
                     "status_code": "OK", "status_message": "", "events": [], "context.span_id": sp["span_id"],
                     "context.trace_id": sp["trace_id"], **{f"attributes.{k}": v for k, v in attrs.items()}})
    columns = sorted({c for r in rows for c in r}, key=lambda c: (c.startswith("attributes."), c))
    rows = [{c: r.get(c) for c in columns} for r in rows]
    (HERE / "rag.spans-frame.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
