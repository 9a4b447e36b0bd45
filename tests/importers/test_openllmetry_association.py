"""OpenLLMetry's association properties (``traceloop.association.properties.session_id`` /
``user_id``) give a call its session and user when no GenAI or OTel attribute names them."""

from __future__ import annotations

import json
from pathlib import Path

from otlp_factories import chat_span, otlp_request, s

from ctxviewer.importers import get_importer
from ctxviewer.model.trace import RequestTrace


def test_openllmetrys_association_properties_give_the_session_and_user(tmp_path: Path) -> None:
    """nu2 #13: traceloop.association.properties.session_id was kept but 'sessions' said 0 sessions."""
    span = chat_span(**{"traceloop.association.properties.session_id": s("sess-stock-1"),
                        "traceloop.association.properties.user_id": s("u-7")})
    path = tmp_path / "tl.otlp.json"
    path.write_text(json.dumps(otlp_request(span)), encoding="utf-8")
    (trace,) = [r for r in get_importer("otel").load(path) if isinstance(r, RequestTrace)]
    assert (trace.session_id, trace.user_id) == ("sess-stock-1", "u-7")
