"""LiteLLM's model map entry in a StandardLoggingPayload: the context window LiteLLM applied is
eq. 3.1's assumed C when the trace records none (ctxviewer.model.source_window)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ctxviewer.assess.budget import catalogue_capacity, check_capacity
from ctxviewer.importers.formats.litellm import IMPORTER
from ctxviewer.model.source_window import SOURCE_WINDOW_ATTRIBUTE, recorded_source_window

CORPUS = "corpus/other/litellm/standard_logging_payload.json"


def _import(payload: dict, tmp_path: Path):
    path = tmp_path / "payload.json"
    path.write_text(json.dumps(payload))
    [trace] = [r for r in IMPORTER.load(path) if hasattr(r, "trace_id")]
    return trace


def test_the_corpus_payload_assumes_litellms_window(shared: Path) -> None:
    [trace] = [r for r in IMPORTER.load(shared / CORPUS) if hasattr(r, "trace_id")]
    assert trace.endpoint.capacity is None  # the request records no limit of its own
    assert trace.attributes[SOURCE_WINDOW_ATTRIBUTE] == {
        "tokens": 128000, "source": "LiteLLM model map recorded in the trace: gpt-4o"}
    assert trace.attributes["litellm.model_map.max_output_tokens"] == 16384
    assert catalogue_capacity(trace) == (128000, "assumed (LiteLLM model map recorded in the trace: gpt-4o)")



def test_show_and_list_say_where_c_came_from(shared: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ctxviewer.cli import cli

    db = tmp_path / "l.db"
    assert CliRunner().invoke(cli, ["import", str(shared / CORPUS), "-o", str(db)]).exit_code == 0
    tid = "chatcmpl-2299b6a2-82a3-465a-b47c-04e685a2227f"
    shown = json.loads(CliRunner().invoke(cli, ["show", str(db), tid, "--json"]).output)
    assert (shown["capacity"], shown["capacity_source"]) == (
        128000, "assumed (LiteLLM model map recorded in the trace: gpt-4o)")
    assert shown["verdict"] == ("fits, 127,996 tokens margin (capacity assumed; an input limit: "
                                "input alone checked)")  # input 4 counted, C 128,000
    [row] = json.loads(CliRunner().invoke(cli, ["list", str(db), "--json"]).output)
    assert (row["margin"], row["verdict"]) == (127996, shown["verdict"])


def test_a_custom_deployment_no_catalogue_knows_gets_its_window(shared: Path, tmp_path: Path) -> None:
    """Before, a deployment name no public catalogue knows had no C at all ("capacity not recorded")."""
    payload = json.loads((shared / CORPUS).read_text())
    payload["model"] = "azure/acme-support-gpt4o-prod"
    payload["model_map_information"] = {"model_map_key": "azure/acme-support-gpt4o-prod",
                                        "model_map_value": {"max_input_tokens": 32768, "max_output_tokens": 4096}}
    trace = _import(payload, tmp_path)
    chk = check_capacity(trace)
    assert (chk.capacity, chk.capacity_source) == (
        32768, "assumed (LiteLLM model map recorded in the trace: azure/acme-support-gpt4o-prod)")
    no_map = copy.deepcopy(payload)
    del no_map["model_map_information"]
    assert check_capacity(_import(no_map, tmp_path)).capacity is None  # nothing to assume from


@pytest.mark.parametrize("bad", [None, 0, -5, True, 1.5e5, "128000", {}])
def test_a_window_that_is_not_a_positive_int_is_not_recorded(bad: object, shared: Path, tmp_path: Path) -> None:
    payload = json.loads((shared / CORPUS).read_text())
    payload["model_map_information"]["model_map_value"]["max_input_tokens"] = bad
    trace = _import(payload, tmp_path)
    assert SOURCE_WINDOW_ATTRIBUTE not in trace.attributes
    assert catalogue_capacity(trace)[1] != "assumed (LiteLLM model map recorded in the trace: gpt-4o)"


def test_a_malformed_stored_window_is_ignored() -> None:
    assert recorded_source_window({SOURCE_WINDOW_ATTRIBUTE: {"tokens": "9", "source": "x"}}) is None
    assert recorded_source_window({SOURCE_WINDOW_ATTRIBUTE: [1, 2]}) is None
    assert recorded_source_window({SOURCE_WINDOW_ATTRIBUTE: {"tokens": 9, "source": "x"}}) == (9, "x")


def test_litellms_window_is_an_input_limit(shared: Path, tmp_path: Path) -> None:
    """Review rev4 F-0: LiteLLM's gpt-5 entry says max_input_tokens 272,000 and max_output_tokens
    128,000 (window 400,000); input 200,199 + max_tokens 100,000 against 272,000 as a shared C was a
    false "over capacity by 28,199 tokens". The input alone is checked against it."""
    payload = json.loads((shared / CORPUS).read_text())
    payload["model"] = "gpt-5"
    payload["model_parameters"] = {"max_tokens": 100_000}
    payload["model_map_information"] = {"model_map_key": "gpt-5",
                                        "model_map_value": {"max_input_tokens": 272_000, "max_output_tokens": 128_000}}
    payload["response"]["usage"] = {"prompt_tokens": 200_199, "completion_tokens": 20, "total_tokens": 200_219}
    from click.testing import CliRunner

    from ctxviewer.cli import cli

    src, db = tmp_path / "gpt5.json", tmp_path / "g.db"
    src.write_text(json.dumps(payload))
    assert CliRunner().invoke(cli, ["import", str(src), "-o", str(db)]).exit_code in (0, 2)
    tid = payload["id"]
    shown = json.loads(CliRunner().invoke(cli, ["show", str(db), tid, "--json"]).output)
    assert (shown["capacity"], shown["fits"], shown["reserved_output_tokens"]) == (272_000, True, 100_000)
    assert shown["verdict"].startswith("fits, 271,996 tokens margin (by the count; 71,801 by the provider-reported "
                                       "input 200,199) (capacity assumed; an input limit: input alone checked)")
