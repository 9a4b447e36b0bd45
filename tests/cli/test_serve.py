"""The live OTLP receiver (``ctxviewer serve``, :mod:`ctxviewer.pipeline.otlp_receiver`) fed by the
real OpenTelemetry SDK's OTLP/HTTP exporter on loopback: what it stores is what importing the same
spans from an OTLP JSON file stores (the same ``show --json`` facts), spans of one trace sent in
separate batches are regrouped, protobuf, JSON and gzip bodies are read, a full queue answers 503
with Retry-After, and a receiver killed mid-stream leaves a database that opens and holds every
batch answered 200."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from ctxviewer.cli import cli
from ctxviewer.pipeline.otlp_receiver import Receiver
from ctxviewer.store import TraceStore

QUESTIONS = ["What is the capital of France?", "Summarise the attached report in two lines.",
             "Translate 'good morning' into German."]


def _messages(question: str) -> str:
    return json.dumps([{"role": "user", "parts": [{"type": "text", "content": question}]}])


def _system() -> str:
    return json.dumps([{"type": "text", "content": "You are a terse assistant."}])


class _Keep(SpanExporter):
    """Keeps the SDK's finished spans, to write them to an OTLP JSON file as well."""

    def __init__(self) -> None:
        self.spans: list[Any] = []

    def export(self, spans: Any) -> SpanExportResult:
        self.spans.extend(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


def _send_chats(endpoint: str, keep: _Keep | None = None, *, compression: Any = None) -> list[str]:
    """Three agent runs (invoke_agent parent, chat child) through the real SDK exporter; the chat
    span ends (and is exported) before its parent. Returns the chat span ids, hex."""
    from opentelemetry.exporter.otlp.proto.http import Compression

    provider = TracerProvider(resource=Resource.create({"service.name": "live-test"}))
    exporter = OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces",
                                compression=compression or Compression.NoCompression)
    provider.add_span_processor(SimpleSpanProcessor(exporter))  # one request per span: parents arrive later
    if keep is not None:
        provider.add_span_processor(SimpleSpanProcessor(keep))
    tracer = provider.get_tracer("ctxviewer-test")
    ids = []
    for n, question in enumerate(QUESTIONS):
        agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper",
                 "gen_ai.conversation.id": f"conv-{n}", "gen_ai.system_instructions": _system()}
        call = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o",
                "gen_ai.input.messages": _messages(question), "gen_ai.usage.input_tokens": 20 + n,
                "gen_ai.usage.output_tokens": 5 + n}
        with tracer.start_as_current_span("invoke_agent helper", attributes=agent), \
                tracer.start_as_current_span("chat gpt-4o", attributes=call) as chat:
            ids.append(format(chat.get_span_context().span_id, "016x"))
    provider.shutdown()
    return ids


def _otlp_json(spans: list[Any]) -> dict[str, Any]:
    """The SDK's spans as one OTLP/JSON ExportTraceServiceRequest (the SDK's own protobuf encoder,
    then the JSON Protobuf Encoding), as a collector's file exporter writes them."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    return dict(MessageToDict(encode_spans(spans)))


def _show(db: Path, trace_id: str) -> dict[str, Any]:
    res = CliRunner().invoke(cli, ["show", str(db), trace_id, "--json", "--content"])
    assert res.exit_code == 0, res.output
    return dict(json.loads(res.stdout))



def _trace_ids(db: Path) -> list[str]:
    with TraceStore.open(db) as store:
        return sorted(r.trace_id for r in store.list())


def test_sdk_spans_over_the_wire_store_what_the_same_spans_imported_from_a_file_store(tmp_path: Path) -> None:
    live, filed = tmp_path / "live.db", tmp_path / "file.db"
    keep = _Keep()
    problems: list[str] = []
    receiver = Receiver(live, 0, on_problem=lambda p: problems.append(str(p)))
    receiver.start()
    try:
        chat_ids = _send_chats(receiver.url, keep)
    finally:
        receiver.stop()
    assert problems == []  # a chat span whose parent is still on its way is not warned about: it is regrouped
    lone = Receiver(tmp_path / "lone.db", 0, on_problem=lambda p: problems.append(str(p)))
    lone.start()
    try:
        orphan = json.loads(_json_request(0))
        orphan["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["parentSpanId"] = "00000000000000ff"
        assert _post(f"{lone.url}/v1/traces", json.dumps(orphan).encode(), "application/json")[0] == 200
        assert problems == []
    finally:
        lone.stop()
    assert problems == ["OTLP/HTTP: resourceSpans[0].scopeSpans[0].spans[0]: span 0000000000000001 (chat m-1): "
                        "parent span 00000000000000ff is not in this file; imported without it (what its ancestors "
                        "record -- session, agent, system instructions -- is not known)"]  # said once, when it stops
    assert receiver.counts.refused == 0 and receiver.counts.written == 6  # one request per span
    assert receiver.counts.spans == 6
    doc = tmp_path / "spans.otlp.json"
    doc.write_text(json.dumps(_otlp_json(keep.spans)))
    res = CliRunner().invoke(cli, ["import", str(doc), "-o", str(filed)])
    assert res.exit_code == 0, res.output
    ids = _trace_ids(live)
    assert ids == _trace_ids(filed)
    assert sorted(i.split(":")[1] for i in ids) == sorted(chat_ids)
    for tid in ids:
        got, want = _show(live, tid), _show(filed, tid)
        assert got == want
        texts = [it["text"] for it in got["items"]]
        n = next(k for k, q in enumerate(QUESTIONS) if q in texts)
        # the chat span came before its invoke_agent parent: regrouped, it inherits the parent's system
        # instructions (a policy item) and its session and agent
        assert texts == ["You are a terse assistant.", QUESTIONS[n]]
        assert [it["tokens"] for it in got["items"]] == [6, [7, 10, 8][n]]  # o200k_base, gpt-4o's encoding
        assert got["session_id"] == f"conv-{n}"
        assert got["usage"]["input_tokens"] == 20 + n and got["usage"]["output_tokens"] == 5 + n


def test_gzip_protobuf_from_the_sdk_is_read(tmp_path: Path) -> None:
    from opentelemetry.exporter.otlp.proto.http import Compression

    db = tmp_path / "live.db"
    receiver = Receiver(db, 0)
    receiver.start()
    try:
        _send_chats(receiver.url, compression=Compression.Gzip)
    finally:
        receiver.stop()
    assert len(_trace_ids(db)) == 3


def _post(url: str, body: bytes, ctype: str, encoding: str | None = None) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": ctype})
    if encoding:
        req.add_header("Content-Encoding", encoding)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def _json_request(n: int, trace_id: str = "0af7651916cd43dd8448eb211c80319c") -> bytes:
    span = {"traceId": trace_id, "spanId": f"{n + 1:016x}", "name": "chat m-1",
            "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000001000000000",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                           {"key": "gen_ai.request.model", "value": {"stringValue": "m-1"}},
                           {"key": "gen_ai.input.messages", "value": {"stringValue": _messages(f"question {n}")}}]}
    return json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [span]}]}]}).encode()


def test_json_and_gzip_json_bodies_and_the_answers_to_bad_requests(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    receiver = Receiver(db, 0)
    receiver.start()
    try:
        url = receiver.url
        assert _post(f"{url}/v1/traces", _json_request(0), "application/json")[::2] == (200, b"{}")
        assert _post(f"{url}/v1/traces", gzip.compress(_json_request(1)), "application/json", "gzip")[0] == 200
        assert _post(f"{url}/v1/traces", b"{not json", "application/json")[0] == 400
        assert _post(f"{url}/v1/traces", b"\xff\x01", "application/x-protobuf")[0] == 400
        assert _post(f"{url}/v1/traces", _json_request(2), "text/plain")[0] == 415
        assert _post(f"{url}/v1/metrics", _json_request(2), "application/json")[0] == 404
        assert _post(f"{url}/v1/logs", b'{"resourceLogs": []}', "application/json")[0] == 200
        good = json.loads(_json_request(3))
        good["resourceSpans"][0]["scopeSpans"][0]["spans"].append(5)  # not a span object
        code, _, body = _post(f"{url}/v1/traces", json.dumps(good).encode(), "application/json")
        partial = json.loads(body)["partialSuccess"]
        assert code == 200 and partial["rejectedSpans"] == "1"
        assert partial["errorMessage"] == "resourceSpans[0].scopeSpans[0].spans[1]: expected a span object"
    finally:
        receiver.stop()
    assert _trace_ids(db) == ["0af7651916cd43dd8448eb211c80319c:0000000000000001",
                              "0af7651916cd43dd8448eb211c80319c:0000000000000002",
                              "0af7651916cd43dd8448eb211c80319c:0000000000000004"]  # the good span of the partial one


def test_log_records_arriving_after_their_span_become_its_content(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    tid, sid = "0af7651916cd43dd8448eb211c80319c", "00000000000000a1"
    span = {"traceId": tid, "spanId": sid, "name": "chat m-1", "startTimeUnixNano": "1700000000000000000",
            "endTimeUnixNano": "1700000001000000000",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                           {"key": "gen_ai.request.model", "value": {"stringValue": "m-1"}}]}
    log = {"traceId": tid, "spanId": sid, "timeUnixNano": "1700000000500000000", "eventName": "gen_ai.user.message",
           "body": {"kvlistValue": {"values": [{"key": "content", "value": {"stringValue": "hello from a log"}}]}}}
    receiver = Receiver(db, 0)
    receiver.start()
    try:
        body = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
        assert _post(f"{receiver.url}/v1/traces", json.dumps(body).encode(), "application/json")[0] == 200
        assert _show(db, f"{tid}:{sid}")["items"] == []
        logs = {"resourceLogs": [{"scopeLogs": [{"logRecords": [log]}]}]}
        assert _post(f"{receiver.url}/v1/logs", json.dumps(logs).encode(), "application/json")[0] == 200
    finally:
        receiver.stop()
    assert [it["text"] for it in _show(db, f"{tid}:{sid}")["items"]] == ["hello from a log"]


def test_a_full_queue_answers_503_with_retry_after_and_counts_the_refusal(tmp_path: Path) -> None:
    receiver = Receiver(tmp_path / "live.db", 0, queue_batches=1)
    receiver.start()
    gate = threading.Event()
    real_write = receiver.writer._write

    def slow_write(batches: Any) -> None:
        gate.wait(30)
        real_write(batches)

    receiver.writer._write = slow_write  # type: ignore[method-assign]
    answers: list[int] = []
    try:
        first = threading.Thread(target=lambda: answers.append(_post(f"{receiver.url}/v1/traces", _json_request(0),
                                                                     "application/json")[0]))
        first.start()  # taken by the writer, which waits at the gate
        while receiver.counts.accepted < 1:
            time.sleep(0.01)
        while receiver.writer._queue.qsize():
            time.sleep(0.01)
        second = threading.Thread(target=lambda: answers.append(_post(f"{receiver.url}/v1/traces", _json_request(1),
                                                                      "application/json")[0]))
        second.start()  # fills the queue of one
        while receiver.counts.accepted < 2:
            time.sleep(0.01)
        code, headers, _ = _post(f"{receiver.url}/v1/traces", _json_request(2), "application/json")
        assert code == 503 and headers["Retry-After"] == "1"
        assert receiver.counts.refused == 1
        gate.set()
        first.join()
        second.join()
    finally:
        gate.set()
        receiver.stop()
    assert answers == [200, 200]
    assert len(_trace_ids(tmp_path / "live.db")) == 2


def test_sigkill_mid_stream_keeps_every_batch_answered_200(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "ctxviewer", "serve", "-o", str(db), "--port", "0"],
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith("listening on http://127.0.0.1:"), line
        url = line.split()[2]
        answered: list[int] = []
        stop = threading.Event()

        def sender(k: int) -> None:
            n = k
            while not stop.is_set():
                try:
                    code = _post(f"{url}/v1/traces", _json_request(n, f"{k + 1:032x}"), "application/json")[0]
                except (OSError, http.client.HTTPException):
                    return  # the receiver is gone (refused, reset, or an answer cut off)
                if code == 200:
                    answered.append(n)
                n += 4

        threads = [threading.Thread(target=sender, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        while len(answered) < 40:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        stop.set()
        for t in threads:
            t.join()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    with TraceStore.open(db) as store:
        assert store.damage() is None
        stored = {r.trace_id for r in store.list()}
    want = {f"{n % 4 + 1:032x}:{n + 1:016x}" for n in answered}
    assert want <= stored


def test_ctrl_c_writes_what_was_answered_and_leaves_an_ordinary_database(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    proc = subprocess.Popen([sys.executable, "-m", "ctxviewer", "serve", "-o", str(db), "--port", "0"],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stderr is not None
        url = proc.stderr.readline().split()[2]
        assert [_post(f"{url}/v1/traces", _json_request(n), "application/json")[0] for n in range(2)] == [200, 200]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
    assert "stopped: 2 batch(es) written (2 spans, 2 trace(s))" in err and "0 refused" in err
    assert not Path(f"{db}-wal").exists()  # back to the rollback journal: nothing beside the file
    assert len(_trace_ids(db)) == 2


def test_a_tool_execution_stored_on_its_own_is_folded_into_the_chat_span_it_fed_when_that_arrives(
        tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    tid = "0af7651916cd43dd8448eb211c80319c"
    tool = {"traceId": tid, "spanId": "00000000000000b1", "name": "execute_tool lookup",
            "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000000500000000",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                           {"key": "gen_ai.tool.name", "value": {"stringValue": "lookup"}},
                           {"key": "gen_ai.tool.call.result", "value": {"stringValue": "42"}}]}
    chat = json.loads(_json_request(0, tid))["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    chat["startTimeUnixNano"] = "1700000001000000000"
    chat["endTimeUnixNano"] = "1700000002000000000"
    receiver = Receiver(db, 0)
    receiver.start()
    try:
        for span in (tool, chat):
            body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode()
            assert _post(f"{receiver.url}/v1/traces", body, "application/json")[0] == 200
            if span is tool:
                assert _trace_ids(db) == [f"{tid}:00000000000000b1"]  # on its own, for now
    finally:
        receiver.stop()
    assert _trace_ids(db) == [f"{tid}:0000000000000001"]
    with TraceStore.open(db) as store:
        fed = store.load(f"{tid}:0000000000000001").attributes["ctxviewer.fed_by"]
    assert list(fed) == ["tool lookup (span 00000000000000b1)"]


def test_serve_refuses_a_file_that_is_not_a_database_and_a_port_in_use(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n")
    res = CliRunner().invoke(cli, ["serve", "-o", str(notes), "--port", "0"])
    assert res.exit_code == 2 and "notes.txt" in res.output
    busy = Receiver(tmp_path / "a.db", 0)
    busy.start()
    port = busy.port
    try:
        res = CliRunner().invoke(cli, ["serve", "-o", str(tmp_path / "b.db"), "--port", str(port)])
    finally:
        busy.stop()
    assert res.exit_code == 1
    assert res.output == f"Error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    assert not (tmp_path / "b.db").exists()  # the database this run created is removed again


def test_serve_says_an_empty_name_and_an_unwritable_folder_as_every_output_does(tmp_path: Path,
                                                                               monkeypatch: Any) -> None:
    res = CliRunner().invoke(cli, ["serve", "-o", "", "--port", "0"])
    assert res.exit_code == 2 and res.output.endswith("Error: Invalid value for '-o' / '--output': an empty file name\n")
    folder = tmp_path / "ro"
    folder.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(folder) else real(p, mode))
    res = CliRunner().invoke(cli, ["serve", "-o", str(folder / "live.db"), "--port", "0"])
    assert (res.exit_code, res.output) == (1, f"Error: {folder / 'live.db'}: cannot write: folder {folder} is not "
                                              "writable (read-only file system or no permission)\n")


def test_every_span_is_kept_through_a_restart_of_the_receiver(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    for run in range(2):
        receiver = Receiver(db, 0)
        receiver.start()
        try:
            for n in range(3 * run, 3 * run + 3):
                assert _post(f"{receiver.url}/v1/traces", _json_request(n), "application/json")[0] == 200
        finally:
            receiver.stop()
    assert _trace_ids(db) == [f"0af7651916cd43dd8448eb211c80319c:{n + 1:016x}" for n in range(6)]
    assert [it["text"] for it in _show(db, "0af7651916cd43dd8448eb211c80319c:0000000000000004")["items"]] == \
        ["question 3"]
