"""The endpoints a user configured, ``[endpoint.NAME]`` tables of ``ctxviewer.toml``::

    [endpoint.local]
    kind = "openai-compatible"          # openai-chat | openai-responses | anthropic-messages | openai-compatible
    base_url = "http://127.0.0.1:8000/v1"
    model = "qwen2.5-7b-instruct"       # optional: else the model the trace recorded
    api_key_env = "VLLM_API_KEY"        # optional for openai-compatible; the key's environment variable
    timeout_s = 60                      # optional: seconds for one request (default 60)
    max_retry_wait_s = 30               # optional: longest Retry-After honoured on a 429 (default 30)

The paths POSTed to are ``base_url`` + ``/chat/completions`` (openai-chat, openai-compatible),
``/responses`` (openai-responses) and ``/messages`` (anthropic-messages), so ``base_url`` carries
the version prefix (``https://api.openai.com/v1``, ``https://api.anthropic.com/v1``).

Read from the user's own ``ctxviewer.toml`` (:func:`ctxviewer.review.reviewer.user_config_path`)
and the one beside the database; a name in both is the user's own. Only an endpoint of the user's
own file is sent a key (:func:`api_key`): one beside the database may name no key variable (a local
server) or is refused when sent. The key is never a value in
the file: ``api_key`` (or any other key-like field) is refused with the reason, and the variable
is read by :func:`api_key` only when a request is sent. No Qt here.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ctxviewer.review.reviewer import CONFIG_NAME, user_config_path

KINDS = ("openai-chat", "openai-responses", "anthropic-messages", "openai-compatible")
"""The endpoint kinds: OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, and any
server speaking Chat Completions (vLLM, llama.cpp, Ollama)."""

PATHS = {"openai-chat": "/chat/completions", "openai-compatible": "/chat/completions",
         "openai-responses": "/responses", "anthropic-messages": "/messages"}
"""The path each kind POSTs to, after ``base_url``."""

_FIELDS = {"kind", "base_url", "model", "api_key_env", "timeout_s", "max_retry_wait_s"}
_ENV_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class EndpointError(ValueError):
    """A broken ``[endpoint.NAME]`` table, an unknown name, or a key that is not set; the message
    names the file, the endpoint and what is wrong."""


@dataclass(frozen=True)
class EndpointConfig:
    """One configured endpoint (module docstring). Holds the key's variable name, never the key."""

    name: str
    kind: str
    """One of :data:`KINDS`."""
    base_url: str
    model: str | None
    """``None``: send the model the trace recorded."""
    api_key_env: str | None
    timeout_s: float = 60.0
    """Seconds for connecting and for the answer of one request."""
    max_retry_wait_s: float = 30.0
    """Longest Retry-After (seconds) waited on a 429 before giving up."""
    source: str = ""
    """The file it came from."""

    @property
    def url(self) -> str:
        """``base_url`` + the kind's path (:data:`PATHS`)."""
        return self.base_url.rstrip("/") + PATHS[self.kind]

    @property
    def provider(self) -> str:
        """``anthropic`` for anthropic-messages, ``openai`` for the OpenAI kinds, ``openai-compatible`` else."""
        return {"anthropic-messages": "anthropic", "openai-compatible": "openai-compatible"}.get(self.kind, "openai")

    def describe(self) -> str:
        """``"local (openai-compatible, http://127.0.0.1:8000/v1/chat/completions, from ./ctxviewer.toml)"``."""
        return f"{self.name} ({self.kind}, {self.url}, from {self.source})"


def _number(value: Any, where: str, field: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 3600:
        raise EndpointError(f"{where}: {field} must be a number of seconds above 0 and at most 3600")
    return float(value)


def parse_endpoint(name: str, table: Any, source: str) -> EndpointConfig:
    """One ``[endpoint.NAME]`` table as an :class:`EndpointConfig`. Raises :class:`EndpointError`
    naming ``source``, the endpoint and the field for a missing or wrong field or a key written in
    the file."""
    where = f"{source}: [endpoint.{name}]"
    if not isinstance(table, dict):
        raise EndpointError(f"{where} must be a table")
    secret = sorted(k for k in table if k not in _FIELDS and re.search(r"key|token|secret|password", k, re.I))
    if secret:
        raise EndpointError(f"{where}: {secret[0]} is refused: the key is never written in ctxviewer.toml; "
                            "put it in an environment variable and name that variable with api_key_env")
    unknown = sorted(set(table) - _FIELDS)
    if unknown:
        raise EndpointError(f"{where}: unknown field {unknown[0]} (known: {', '.join(sorted(_FIELDS))})")
    kind = table.get("kind")
    if kind not in KINDS:
        raise EndpointError(f"{where}: kind must be one of {', '.join(KINDS)} (got {kind!r})")
    url = table.get("base_url")
    if not isinstance(url, str) or not re.match(r"https?://[^/\s]+", url):
        raise EndpointError(f"{where}: base_url must be an http:// or https:// URL (got {url!r})")
    model = table.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise EndpointError(f"{where}: model must be a non-empty string")
    env = table.get("api_key_env")
    if env is not None and (not isinstance(env, str) or not _ENV_RE.fullmatch(env)):
        raise EndpointError(f"{where}: api_key_env must be an environment variable name (got {env!r})")
    if env is None and kind != "openai-compatible":
        raise EndpointError(f"{where}: api_key_env is required for {kind} (the name of the variable holding the key)")
    return EndpointConfig(name, kind, url, model, env, _number(table.get("timeout_s"), where, "timeout_s", 60.0),
                          _number(table.get("max_retry_wait_s"), where, "max_retry_wait_s", 30.0), source)


def parse_file(path: Path) -> dict[str, EndpointConfig]:
    """The endpoints of ``path`` (empty when it has no ``[endpoint]`` table). Raises
    :class:`EndpointError` naming the file when it is not valid TOML or a table is broken."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise EndpointError(f"{path}: not valid TOML: {exc}") from None
    tables = data.get("endpoint", {})
    if not isinstance(tables, dict):
        raise EndpointError(f"{path}: endpoint must be a table of [endpoint.NAME] tables")
    return {name: parse_endpoint(name, t, str(path)) for name, t in tables.items()}


def config_files(db: str | Path | None) -> list[Path]:
    """The files read, lowest precedence first: beside ``db``, then the user's own."""
    return [*([Path(db).resolve().parent / CONFIG_NAME] if db is not None else []), user_config_path()]


def load_endpoints(db: str | Path | None) -> dict[str, EndpointConfig]:
    """Every endpoint configured for ``db`` (:func:`config_files`; the user's own wins a name).
    Raises :class:`EndpointError` for a broken file."""
    out: dict[str, EndpointConfig] = {}
    for path in config_files(db):
        if path.is_file():
            out.update(parse_file(path))
    return out


def endpoint_named(db: str | Path | None, name: str) -> EndpointConfig:
    """The endpoint ``name``. Raises :class:`EndpointError` naming the files read and the
    endpoints they configure when there is no such endpoint."""
    found = load_endpoints(db)
    if name not in found:
        files = " and ".join(str(p) for p in config_files(db))
        have = ", ".join(sorted(found)) or "none"
        raise EndpointError(f"no endpoint {name!r} in {files} (configured: {have}); add an [endpoint.{name}] table "
                            "with kind, base_url, model and api_key_env")
    return found[name]


def api_key(ep: EndpointConfig, environ: Mapping[str, str] | None = None) -> str | None:
    """The key from ``ep.api_key_env`` in ``environ`` (default :data:`os.environ`), read now;
    ``None`` when the endpoint names no variable. Raises :class:`EndpointError` (naming the
    variable, never a value) when it names one that is unset or empty, or when the endpoint comes
    from a ``ctxviewer.toml`` other than the user's own (:func:`user_config_path`): a file in a
    shared folder beside a database must not be able to send the user's key to its own URL."""
    if ep.api_key_env is None:
        return None
    own = user_config_path()
    if ep.source and Path(ep.source).resolve() != own.resolve():
        raise EndpointError(f"endpoint {ep.name} is configured in {ep.source}, beside the database, and names the key "
                            f"variable {ep.api_key_env}: a key is sent only to endpoints of your own {own}, so that a "
                            "ctxviewer.toml in a shared folder cannot send your key elsewhere; copy the table there")
    value = (os.environ if environ is None else environ).get(ep.api_key_env, "")
    if not value.strip():
        raise EndpointError(f"endpoint {ep.name}: the environment variable {ep.api_key_env} is not set; "
                            "set it to the key (ctxviewer never stores the key)")
    return value.strip()
