"""One request and its failure kinds (ctxviewer.replay.send) against the fake server on 127.0.0.1."""

from __future__ import annotations

import socket

import pytest
from replay_fakes import FakeServer

from ctxviewer.replay.endpoints import EndpointConfig
from ctxviewer.replay.send import SendFailure, headers, post, retry_after

BODY = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}'


def _ep(url: str, **kw: float) -> EndpointConfig:
    return EndpointConfig("fake", "openai-chat", url, "m", "FAKE_KEY", source="test", **kw)


def test_an_answer_comes_back_and_the_bytes_went_unchanged() -> None:
    with FakeServer(require_key="k1") as srv:
        answer = post(_ep(srv.base_url), BODY, "k1")
    assert answer.status == 200
    assert answer.body["choices"][0]["message"]["content"] == "Yes: the answer."
    assert srv.requests[0]["raw"] == BODY
    assert srv.requests[0]["headers"]["Authorization"] == "Bearer k1"


def test_anthropic_headers() -> None:
    ep = EndpointConfig("c", "anthropic-messages", "https://api.anthropic.com/v1", None, "K", source="t")
    assert headers(ep, "s3") == {"Content-Type": "application/json", "Accept": "application/json",
                                 "anthropic-version": "2023-06-01", "x-api-key": "s3"}


def test_a_429_within_the_bound_is_waited_out_and_retried() -> None:
    waits: list[float] = []
    with FakeServer() as srv:
        srv.script("429:3", "429:2")
        answer = post(_ep(srv.base_url), BODY, None, sleep=waits.append)
    assert waits == [3.0, 2.0]
    assert len(srv.requests) == 3
    assert answer.status == 200


def test_a_429_asking_longer_than_the_bound_fails_with_both_numbers() -> None:
    with FakeServer() as srv:
        srv.script("429:120")
        with pytest.raises(SendFailure) as err:
            post(_ep(srv.base_url, max_retry_wait_s=30), BODY, None, sleep=lambda s: None)
    assert err.value.kind == "rate_limited"
    assert str(err.value) == ("endpoint fake: rate limited (429); it asks to retry after 120 s, "
                              "more than max_retry_wait_s = 30 s")


def test_retry_after_as_an_http_date() -> None:
    from datetime import datetime, timezone
    now = datetime(2026, 12, 3, 7, 0, 0, tzinfo=timezone.utc)
    assert retry_after("Thu, 03 Dec 2026 07:00:45 GMT", now) == 45.0
    assert retry_after("soon", now) is None


def test_timeout() -> None:
    with FakeServer() as srv:
        srv.script("timeout:1.5")
        with pytest.raises(SendFailure) as err:
            post(_ep(srv.base_url, timeout_s=0.3), BODY, None)
    assert err.value.kind == "timeout"
    assert "no answer from http://127.0.0.1:" in str(err.value) and "within 0.3 s (timeout_s)" in str(err.value)


def test_malformed_answer() -> None:
    with FakeServer() as srv:
        srv.script("malformed")
        with pytest.raises(SendFailure) as err:
            post(_ep(srv.base_url), BODY, None)
    assert err.value.kind == "bad_answer"
    assert "the answer is not a JSON object" in str(err.value)


def test_unauthorized_names_the_variable_not_the_key() -> None:
    with FakeServer(require_key="right") as srv, pytest.raises(SendFailure) as err:
        post(_ep(srv.base_url), BODY, "wrong-secret")
    assert err.value.kind == "unauthorized"
    assert "401 unauthorized: the key in FAKE_KEY was refused (invalid x-api-key)" in str(err.value)
    assert "wrong-secret" not in str(err.value)


def test_refused() -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    with pytest.raises(SendFailure) as err:
        post(_ep(f"http://127.0.0.1:{port}/v1"), BODY, None)
    assert err.value.kind == "refused"
    assert f"cannot connect to http://127.0.0.1:{port}/v1/chat/completions" in str(err.value)


def test_a_retry_after_wait_stops_when_cancelled() -> None:
    flag = [False]
    with FakeServer() as srv:
        srv.script("429:20")
        import threading
        threading.Timer(0.2, lambda: flag.__setitem__(0, True)).start()
        with pytest.raises(SendFailure) as err:
            post(_ep(srv.base_url), BODY, None, cancelled=lambda: flag[0])
    assert err.value.kind == "cancelled"
    assert len(srv.requests) == 1


def test_without_httpx_the_message_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    monkeypatch.setitem(sys.modules, "httpx", None)
    with pytest.raises(SendFailure) as err:
        post(_ep("http://127.0.0.1:9/v1"), BODY, None)
    assert (err.value.kind, str(err.value)) == ("no_client", "sending needs httpx: pip install 'ctxviewer[replay]'")
