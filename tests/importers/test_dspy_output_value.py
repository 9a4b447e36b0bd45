"""DSPy's LM span via OpenInference records its answer only in ``output.value`` (a JSON list of
completions, mime type JSON) and no ``llm.output_messages`` (new user nu3 #9): the response was
"text not recorded". The completions are read as the output messages now.

Input: tests/data/dspy/dspy-lm.spans.json (Phoenix span JSON built by hand from the DSPy
instrumentor's ``LM.__call__`` span: input messages, invocation parameters, ``output.value``)."""

from __future__ import annotations

import json
from pathlib import Path

from ctxviewer.importers import detect
from ctxviewer.importers.common.openinference_attrs import io_output
from ctxviewer.model.trace import RequestTrace

PATH = Path(__file__).resolve().parents[1] / "data" / "dspy" / "dspy-lm.spans.json"
ANSWER = "[[ ## reasoning ## ]]\nThe context says Paris.\n\n[[ ## answer ## ]]\nParis\n\n[[ ## completed ## ]]"


def test_the_lm_answer_in_output_value_is_the_response() -> None:
    [t] = [r for r in detect(PATH).load(PATH) if isinstance(r, RequestTrace)]
    assert t.response is not None and t.response.text == ANSWER
    assert t.reserved_output_tokens == 1000


def test_a_list_of_completions_is_one_output_message_each() -> None:
    out, rid, model = io_output(json.dumps(["first", {"text": "second"}]), "application/json")
    assert out == [{"role": "assistant", "parts": [{"type": "text", "content": "first"}]},
                   {"role": "assistant", "parts": [{"type": "text", "content": "second"}]}]
    assert (rid, model) == (None, None)
    assert io_output(json.dumps([1, 2]), "application/json") == (None, None, None)  # not completions
