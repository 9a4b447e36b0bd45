"""The model a routed model name names: the names to look a model up by, most specific first.

Gateways and clouds put routing in front of a vendor's model name, and each lookup -- the
endpoint profiles (tokenizer, limits: :mod:`ctxviewer.tokens.profiles`), the model catalogue
(context window: :mod:`ctxviewer.tokens.catalogue`) and prices (:mod:`ctxviewer.tokens.cost`) --
tries the names :func:`lookup_names` gives, in order, until one is known:

* a gateway prefix, ``openai/gpt-4o`` (LiteLLM) or ``openrouter/anthropic/claude-3.5-sonnet``
  (OpenRouter through LiteLLM): each ``/`` prefix taken off in turn, down to ``claude-3.5-sonnet``
  (not for Gemini's own ``models/gemini-1.5-pro`` and fine-tunes ``ft:...``, which the lookups read
  whole);
* an AWS Bedrock ARN, ``arn:aws:bedrock:us-east-1:123456789012:inference-profile/ID`` or
  ``.../foundation-model/ID``: the ID;
* a Bedrock cross-region inference profile, ``us.anthropic.claude-3-5-sonnet-20241022-v2:0`` (also
  ``eu.``, ``apac.``, ``us-gov.``, ``global.``, ``jp.``, ``au.``, ``ca.``): the foundation model
  ``anthropic.claude-3-5-sonnet-20241022-v2:0``, then without the vendor prefix and version suffix,
  ``claude-3-5-sonnet-20241022``.

Without them, ``us.anthropic.claude-...`` matched no profile and was counted with OpenAI's
tokenizer as if it were exact. No Qt here.
"""

from __future__ import annotations

import re

_ARN = re.compile(r"^arn:aws[\w-]*:bedrock:[^:]*:[^:]*:(?:inference-profile|foundation-model|"
                  r"application-inference-profile|provisioned-model)/(.+)$", re.IGNORECASE)
_REGION = re.compile(r"^(?:us|eu|apac|us-gov|global|jp|au|ca)\.(?=[a-z0-9-]+\.)", re.IGNORECASE)
_BEDROCK_VENDOR = re.compile(r"^(?:anthropic|meta|amazon|mistral|cohere|ai21|deepseek|openai|qwen|writer)\.",
                             re.IGNORECASE)
_BEDROCK_VERSION = re.compile(r"(?<=\d)-v\d+(?::\d+)?$")
"""Bedrock's model version after a dated or sized name (``...-20241022-v2:0``, ``...-70b-instruct``
is not dated: ``llama3-70b-instruct-v1:0``); ``claude-v2:1`` (Claude 2.1) is left whole."""
_WHOLE = ("models/", "ft:")
"""Names read whole (their ``/`` or ``:`` is the model's own): Gemini's ``models/``, fine-tunes."""


def lookup_names(model: str) -> list[str]:
    """``model`` and the names it routes to, most specific first, each once (module docstring):
    ``lookup_names("us.anthropic.claude-3-5-sonnet-20241022-v2:0")`` ->
    ``["us.anthropic.claude-3-5-sonnet-20241022-v2:0", "anthropic.claude-3-5-sonnet-20241022-v2:0",
    "claude-3-5-sonnet-20241022"]``. Never raises for a name."""
    names = [model]
    name = model.strip()
    m = _ARN.match(name)
    if m:
        name = m.group(1)
        names.append(name)
    while "/" in name and not name.lower().startswith(_WHOLE):
        name = name.split("/", 1)[1]
        names.append(name)
    region = _REGION.match(name)
    if region:
        name = name[region.end():]
        names.append(name)
    vendor = _BEDROCK_VENDOR.match(name)
    if vendor and (region or m or ":" in name):
        names.append(_BEDROCK_VERSION.sub("", name[vendor.end():]))
    return [n for n in dict.fromkeys(names) if n]
