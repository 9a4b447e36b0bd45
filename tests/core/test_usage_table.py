"""The README's usage-semantics table (issue 21: "usage normalised per source with the source's
documented semantics, each documented in a table in the README") stays true: every built-in
``--format`` has a row, and each row's rule is what the importer's usage function does, on the
issue's own figures (Inspect 143 input + 64 cache read -> 207; Gemini output 312 of 834)."""

from __future__ import annotations

import re
from pathlib import Path

from ctxviewer.importers.common.langchain_messages import langchain_usage
from ctxviewer.importers.common.openinference_attrs import usage as openinference_usage
from ctxviewer.importers.common.provider_messages import anthropic_usage, openai_chat_usage
from ctxviewer.importers.common.usage_rules import thinking_in_total
from ctxviewer.importers.formats.inspect_ai import usage as inspect_usage
from ctxviewer.importers.formats.langfuse import usage as langfuse_usage
from ctxviewer.importers.formats.mlflow.call import mlflow_usage
from ctxviewer.importers.formats.otel.mapping import usage_from
from ctxviewer.importers.registry import BUILTIN, Registry
from ctxviewer.model.trace import Usage

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _rows() -> dict[str, list[str]]:
    """First-column format names -> the row's cells, from the table under "| `--format` | reported input"."""
    table = README.split("| `--format` | reported input |", 1)[1].split("\n\n", 1)[0]
    rows: dict[str, list[str]] = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        for name in re.findall(r"`([\w-]+)`", cells[0]):
            rows.setdefault(name, []).extend(cells[1:])
    return rows


def test_every_builtin_format_has_a_row() -> None:
    names = set(Registry(BUILTIN, group=None).names())
    assert names - set(_rows()) == set()
    assert set(_rows()) - names == set()


def test_each_row_is_what_the_importer_does() -> None:
    rows = _rows()
    provider = " ".join(rows["provider-api"])  # two rows: OpenAI's and Anthropic's rule
    assert "excludes the cache" in provider and "include `cached_tokens`" in provider
    # input excludes the cache: added back
    assert anthropic_usage({"input_tokens": 143, "cache_read_input_tokens": 64, "output_tokens": 5}).input_tokens == 207
    assert inspect_usage({"input_tokens": 143, "output_tokens": 5, "input_tokens_cache_read": 64,
                          "total_tokens": 212}, "openai")[0].input_tokens == 207
    assert inspect_usage({"input_tokens": 207, "output_tokens": 5, "input_tokens_cache_read": 64,
                          "total_tokens": 212}, "openai")[0].input_tokens == 207  # older log: kept
    assert langfuse_usage({"usageDetails": {"input": 143, "input_cache_read": 64, "output": 5}}, {}).input_tokens == 207
    assert mlflow_usage({"input_tokens": 143, "output_tokens": 5, "cache_read_input_tokens": 64,
                         "total_tokens": 212}) == Usage(input_tokens=207, output_tokens=5, cached_input_tokens=64)
    assert "`input` + cache reads + cache writes" in rows["langfuse"]
    assert any("excludes the cache" in c for c in rows["inspect_ai"])
    # input includes the cache: as reported
    assert openai_chat_usage({"prompt_tokens": 207, "prompt_tokens_details": {"cached_tokens": 64},
                              "completion_tokens": 5}).input_tokens == 207
    assert langchain_usage({"input_tokens": 207, "output_tokens": 5,
                            "input_token_details": {"cache_read": 64}}) == Usage(207, 5, 64)
    assert usage_from({"gen_ai.usage.input_tokens": 207, "gen_ai.usage.cache_read.input_tokens": 64}) == \
        Usage(input_tokens=207, cached_input_tokens=64)
    assert openinference_usage({"llm.token_count.prompt": 207, "llm.token_count.prompt_details.cache_read": 64}) \
        .input_tokens == 207
    for name in ("otel", "openinference", "langsmith", "promptfoo", "litellm"):
        assert rows[name][-1].startswith("as reported"), name
    # Gemini: reasoning derived from the total
    assert thinking_in_total(Usage(input_tokens=210, output_tokens=312), 834, "gcp.gemini") == \
        Usage(input_tokens=210, output_tokens=624, reasoning_tokens=312)
    assert "reasoning is *derived* as `total - input - output`" in README
