"""Importer golden pairs (``tests/importers/golden/<format>/<name>.<ext>`` + ``<name>.expected.json``):
every input is detected as its folder's format and imports to exactly its expectation.
Regenerate with ``python -m tests.importers.regen`` (see that module)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from regen import GOLDEN, expected_path, inputs, normalise

CASES = inputs()


def test_there_are_golden_pairs_for_every_builtin_container() -> None:
    names = {p.relative_to(GOLDEN).as_posix() for p in CASES}
    assert {"native/support-8k.jsonl", "otel/chat.otlp.json", "otel/collector.otlp.jsonl",
            "otel/span-list.json", "otel/attribute-map.json"} <= names


@pytest.mark.parametrize("path", CASES, ids=[p.relative_to(GOLDEN).as_posix() for p in CASES])
def test_golden_pair(path: Path) -> None:
    expected = expected_path(path)
    assert expected.exists(), f"no expectation for {path.name}: run python -m tests.importers.regen"
    want = json.loads(expected.read_text(encoding="utf-8"))
    got = normalise(path)
    assert got.get("importer") == path.parent.name  # detected as the folder's format
    assert got == want
