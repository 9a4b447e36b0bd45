"""Issue 12 fuzzing: every importer is fed random and mutated versions of the shared corpus files and
of the native format, through the whole import (detect or force, load, repair, count, store).

Properties: nothing raises but the documented errors (``ImportFailed`` for a forced format that
cannot read the file at all -- which the pipeline reports as a problem), every problem names its
file, what is reported imported is what the database holds, and nothing hangs (an alarm fails an
example that runs over :data:`HANG_S`). Bounded for CI: a few hundred examples in all, no deadline.
Failures found here became fixed tests in ``test_bad_input.py``.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from factories import make_rich_trace, make_trace
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxviewer.importers import REGISTRY
from ctxviewer.importers.formats.native import trace_line
from ctxviewer.pipeline.importing import import_into

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix != ".md") if CORPUS.is_dir() else []
IMPORTERS = REGISTRY.names()
HANG_S = 60
"""An example running longer than this (seconds, under a loaded machine) counts as a hang."""

FUZZ = settings(max_examples=12, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
"""Per importer: 14 importers x 12 examples, plus the native and random-bytes tests: ~250 in all."""


@contextmanager
def _alarm() -> Iterator[None]:
    def hang(signum: int, frame: Any) -> None:
        raise TimeoutError(f"import ran over {HANG_S} s")

    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(HANG_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _mutate(data: bytes, ops: list[tuple[int, int, int, bytes]]) -> bytes:
    """Apply mutation ops ``(kind, at, length, payload)`` in turn: 0 flip a byte, 1 cut the tail,
    2 insert bytes, 3 delete a slice, 4 duplicate a slice, 5 overwrite with payload."""
    buf = bytearray(data)
    for kind, at, length, payload in ops:
        n = len(buf)
        i = at % (n + 1)
        if kind == 0 and n:
            buf[i % n] ^= 0xFF & (length | 1)
        elif kind == 1:
            del buf[i:]
        elif kind == 2:
            buf[i:i] = payload
        elif kind == 3:
            del buf[i:i + length]
        elif kind == 4:
            buf[i:i] = buf[i:i + length]
        elif kind == 5:
            buf[i:i + len(payload)] = payload
    return bytes(buf)


OPS = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2**20), st.integers(0, 64),
                         st.sampled_from([b"\xe2\x82", b"\\ud800", b'"', b"{", b"[" * 2000, b"\x00", b"\xff\xfe",
                                          b"18446744073709551615", b"null", b'{"weirdValue": 1}', b"\n"])),
               min_size=1, max_size=4)


def _import(data: bytes, fmt: str | None, name: str = "in.json") -> None:
    """Import ``data`` (forced to ``fmt`` or detected) into a fresh database and check the run."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / name
        src.write_bytes(data)
        db = Path(tmp) / "out.db"
        with _alarm():
            report = import_into(db, [src], fmt=fmt)
        assert all(p.file == str(src) for p in report.problems)
        assert all(p.record and p.message for p in report.problems)
        if report.imported:
            with sqlite3.connect(db) as conn:
                assert conn.execute("SELECT count(*) FROM traces").fetchone()[0] == report.imported
        else:
            assert not db.exists()  # no empty database left behind


@pytest.mark.skipif(not FILES, reason="../shared/corpus not present")
@pytest.mark.parametrize("fmt", IMPORTERS)
@FUZZ
@given(data=st.data(), ops=OPS)
def test_every_importer_survives_mutated_corpus_files(fmt: str, data: st.DataObject, ops: Any) -> None:
    path = data.draw(st.sampled_from(FILES))
    _import(_mutate(path.read_bytes(), ops), fmt, path.name)


@pytest.mark.skipif(not FILES, reason="../shared/corpus not present")
@FUZZ
@given(data=st.data(), ops=OPS)
def test_detection_survives_mutated_corpus_files(data: st.DataObject, ops: Any) -> None:
    path = data.draw(st.sampled_from(FILES))
    _import(_mutate(path.read_bytes(), ops), None, path.name)


NATIVE = [(trace_line(make_trace()) + "\n").encode(), (trace_line(make_rich_trace()) + "\n").encode()]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NATIVE), OPS)
def test_native_survives_mutated_lines(line: bytes, ops: Any) -> None:
    _import(line + _mutate(line, ops), "native", "in.jsonl")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["trace_id", "endpoint", "items", "policy", "usage", "request", "response", "created",
                        "tool_calls", "budget", "attributes", "user_request"]), JSON)
@pytest.mark.slow
def test_native_survives_any_value_in_any_field(key: str, value: Any) -> None:
    d = json.loads(trace_line(make_rich_trace()))
    d[key] = value
    _import((json.dumps(d) + "\n").encode(), "native", "in.jsonl")


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400), st.sampled_from(IMPORTERS + [None]))
def test_random_bytes_never_break_a_run(data: bytes, fmt: str | None) -> None:
    _import(data, fmt)
