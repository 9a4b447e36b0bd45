"""Every trace of ``../shared/corpus`` concludes what a reader of it judged true
(``tests/corpus_findings/expected.json``; regenerate and review with ``python -m tests.corpus_findings.regen``)."""

from __future__ import annotations

import json

import pytest

from tests.corpus_findings import regen


@pytest.fixture(scope="module")
def today() -> dict[str, dict[str, object]]:
    if not regen.CORPUS.is_dir():
        pytest.skip(f"../shared not present at {regen.CORPUS.parent}: corpus tests need it")
    return regen.conclusions(regen.CORPUS)


@pytest.mark.slow
def test_every_corpus_trace_concludes_its_judged_state_and_findings(today: dict[str, dict[str, object]]) -> None:
    expected = json.loads(regen.EXPECTED.read_text(encoding="utf-8"))
    got = {f: {t: {"state": c["state"], "findings": c["findings"]} for t, c in traces.items()}  # type: ignore[index]
           for f, traces in today.items()}
    want = {f: {t: {"state": c["state"], "findings": c["findings"]} for t, c in traces.items()}
            for f, traces in expected.items()}
    assert got == want


def test_every_warning_or_failure_on_the_corpus_was_judged_by_a_reader() -> None:
    expected = json.loads(regen.EXPECTED.read_text(encoding="utf-8"))
    unjudged = [f"{file}: {tid}" for file, traces in expected.items() for tid, t in traces.items()
                if not t["judged"].strip() and any(f.startswith(("warning ", "failure ")) for f in t["findings"])]
    assert unjudged == []


def test_no_failure_on_the_corpus_is_judged_false() -> None:
    """A finding of severity failure that a reader calls false is a bug: a judgement never says so."""
    expected = json.loads(regen.EXPECTED.read_text(encoding="utf-8"))
    false = [f"{file}: {tid}" for file, traces in expected.items() for tid, t in traces.items()
             if t["judged"].lower().startswith("false")]
    assert false == []
