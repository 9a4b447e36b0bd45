"""Endpoint profiles: which encoding, limits and accounting rule a model name means.

The profiles are data: ``ctxviewer/resources/endpoint_profiles.json`` (shipped) plus, tried first,
the user's file (``$CTXVIEWER_PROFILES``, else ``~/.config/ctxviewer/profiles.json``) with the same
shape. A profile names fnmatch ``patterns`` (case-insensitive, first match wins) and gives the
encoding, context capacity C, max output, shared/separate limits, per-message and per-request
framing, the tool-definition rule, the image rule and the tolerance for the residual between the
counted and the provider-reported input.

:func:`resolve` never fails on a model name: unknown names, aliases, Azure deployment names and
``None`` fall back to an *assumed* encoding (``assumed=True``, said in the ``reason``); fine-tuned
names (``ft:gpt-4o-2024-08-06:org::id``) resolve through their base model; dated names
(``gpt-4o-2024-08-06``) match their family's pattern. An explicit ``encoding`` overrides any of it.
Non-OpenAI profiles are marked ``estimate``: a tiktoken count is a cross-vendor estimate, and the
provider-reported usage is preferred. No Qt here.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ctxviewer.tokens.counting import UnknownEncodingError, available_encodings
from ctxviewer.tokens.model_names import lookup_names
from ctxviewer.util import assets

PROFILES_ENV = "CTXVIEWER_PROFILES"
"""Environment variable naming a user profiles file (JSON, same shape as the shipped one)."""


class ProfileError(ValueError):
    """A profiles file is not valid; the message names the file and the field."""


@dataclass(frozen=True)
class Framing:
    """Per-message and per-request tokens the chat template adds (OpenAI cookbook rule)."""

    tokens_per_message: int = 3
    tokens_per_name: int = 1
    reply_priming: int = 3
    """Tokens that prime the reply (``<|start|>assistant<|message|>``), once per request."""


@dataclass(frozen=True)
class ToolRule:
    """Tool-definition overhead, in tokens (the cookbook's function-counting constants)."""

    func_init: int = 7
    prop_init: int = 3
    prop_key: int = 3
    enum_init: int = -3
    enum_item: int = 3
    func_end: int = 12
    definition: str = "lines"
    """What a definition's *content* is: ``"lines"``, the cookbook's ``name:description`` and
    property lines (OpenAI's rule); ``"json"``, the definition's JSON text as the trace stores it
    (an endpoint that publishes no per-line rule, e.g. Anthropic's, which renders the schemas into
    a prompt of its own). :func:`ctxviewer.tokens.item_rule.content_tokens` and
    :func:`ctxviewer.tokens.request_accounting.count_tool` read it."""

    def __post_init__(self) -> None:
        if self.definition not in ("lines", "json"):
            raise ValueError(f"tools.definition must be 'lines' or 'json', not {self.definition!r}")


@dataclass(frozen=True)
class Profile:
    """One endpoint profile. Token quantities in tokens; ``None`` = not known."""

    name: str
    patterns: tuple[str, ...] = ()
    provider: str | None = None
    encoding: str = "o200k_base"
    capacity: int | None = None
    max_output: int | None = None
    limit_mode: str = "shared"
    framing: Framing = field(default_factory=Framing)
    tools: ToolRule = field(default_factory=ToolRule)
    image: Mapping[str, Any] = field(default_factory=dict)
    tolerance_tokens: int = 8
    tolerance_fraction: float = 0.02
    estimate: bool = False
    """True when tiktoken is not the vendor's tokenizer: counts are a cross-vendor estimate."""

    def tolerance(self, reported: int) -> int:
        """Largest residual in tokens accepted against a provider-reported input of ``reported``."""
        return max(self.tolerance_tokens, int(self.tolerance_fraction * reported))


@dataclass(frozen=True)
class Resolution:
    """What a model name resolved to: the profile, the encoding used and whether it was assumed."""

    model: str | None
    profile: Profile
    encoding: str
    assumed: bool
    reason: str
    """In words, e.g. ``"profile gpt-4o (pattern gpt-4o*)"`` or ``"no profile for 'my-deploy';
    o200k_base assumed"``."""

    @property
    def label(self) -> str:
        """``"o200k_base"``, ``"o200k_base (assumed)"`` or ``"cl100k_base (cross-vendor estimate)"``."""
        notes = [n for n, on in (("assumed", self.assumed), ("cross-vendor estimate", self.profile.estimate)) if on]
        return self.encoding + (f" ({', '.join(notes)})" if notes else "")


def _profile(raw: Mapping[str, Any], defaults: Mapping[str, Any], where: str) -> Profile:
    merged = {**defaults, **raw}
    try:
        tol = merged.get("tolerance", {})
        return Profile(
            name=str(merged["name"]),
            patterns=tuple(str(p).lower() for p in merged.get("patterns", ())),
            provider=merged.get("provider"),
            encoding=str(merged.get("encoding", "o200k_base")),
            capacity=merged.get("capacity"),
            max_output=merged.get("max_output"),
            limit_mode=str(merged.get("limit_mode", "shared")),
            framing=Framing(**merged.get("framing", {})),
            tools=ToolRule(**merged.get("tools", {})),
            image=dict(merged.get("image", {})),
            tolerance_tokens=int(tol.get("tokens", 8)),
            tolerance_fraction=float(tol.get("fraction", 0.02)),
            estimate=bool(merged.get("estimate", False)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ProfileError(f"{where}: profile {raw.get('name', '?')!r}: {exc}") from exc


def _read(text: str, where: str) -> tuple[list[Profile], Profile | None]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{where}: not JSON: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("profiles", []), list):
        raise ProfileError(f"{where}: expected an object with a 'profiles' list")
    defaults = doc.get("defaults", {})
    profiles = [_profile(p, defaults, where) for p in doc.get("profiles", [])]
    fallback = _profile(doc["fallback"], defaults, where) if "fallback" in doc else None
    return profiles, fallback


def user_profiles_path() -> Path:
    """The user's profiles file: ``$CTXVIEWER_PROFILES`` or ``~/.config/ctxviewer/profiles.json``
    (read from the environment on each call; the path built once per environment)."""
    env = os.environ
    return _profiles_path(env.get(PROFILES_ENV), env.get("XDG_CONFIG_HOME"), env.get("HOME"))


@functools.lru_cache(maxsize=8)
def _profiles_path(mine: str | None, xdg: str | None, home: str | None) -> Path:
    if mine:
        return Path(mine)
    base = xdg or str(Path.home() / ".config")  # Path.home() reads $HOME (``home``) or the password database
    return Path(base) / "ctxviewer" / "profiles.json"


@functools.lru_cache(maxsize=4)
def _load(user_path: str) -> tuple[tuple[Profile, ...], Profile]:
    shipped = assets.read_text("endpoint_profiles.json")
    profiles, fallback = _read(shipped, "endpoint_profiles.json")
    assert fallback is not None
    path = Path(user_path)
    if path.is_file():
        mine, my_fallback = _read(path.read_text("utf-8"), str(path))
        profiles = mine + profiles
        fallback = my_fallback or fallback
    return tuple(profiles), fallback


def profiles() -> tuple[Profile, ...]:
    """All profiles, the user's first. Raises :class:`ProfileError` for a bad file (naming it)."""
    return _load(str(user_profiles_path()))[0]


def _match(name: str, user_path: str) -> tuple[Profile, str] | None:
    low = name.lower()
    for prof in _load(user_path)[0]:
        for pat in prof.patterns:
            if fnmatch.fnmatchcase(low, pat):
                return prof, pat
    return None


def resolve(model: str | None, encoding: str | None = None, source: str = "chosen by the user") -> Resolution:
    """The profile and encoding for ``model``; ``encoding`` (e.g. from ``--encoding``) overrides.

    ``source`` says where an explicit ``encoding`` came from (e.g. "recorded on the trace").
    Never raises for a model name. Raises :class:`~ctxviewer.tokens.counting.UnknownEncodingError` when
    ``encoding`` is given and not available offline.
    """
    if encoding is not None and encoding not in available_encodings():
        raise UnknownEncodingError(
            f"encoding {encoding!r} is not available offline; available: {', '.join(available_encodings())}"
        )
    return _resolved(model, encoding, source, str(user_profiles_path()))


@functools.lru_cache(maxsize=256)
def _resolved(model: str | None, encoding: str | None, source: str, user_path: str) -> Resolution:
    """:func:`resolve` once per model, encoding and profiles file (asked for every trace at
    import; for import speed). Raises :class:`ProfileError` for a bad profiles file."""
    fallback = _load(user_path)[1]
    found, how = None, ""
    if model:
        base = model
        if model.lower().startswith("ft:"):
            base = model[3:].split(":", 1)[0]
            how = f"fine-tuned from {base}; "
        hit = next((h for name in lookup_names(base) if (h := _match(name, user_path)) is not None), None)
        if hit:
            found = hit[0]
            how += f"profile {hit[0].name} (pattern {hit[1]})"
    if found is None:
        prof = fallback
        enc = encoding or prof.encoding
        why = f"no profile for {model!r}" if model else "model not recorded"
        if encoding:
            return Resolution(model, prof, enc, False, f"{why}; encoding {enc} {source}")
        return Resolution(model, prof, enc, True, f"{why}; {enc} assumed")
    if encoding and encoding != found.encoding:
        return Resolution(model, found, encoding, False, f"{how}; encoding {encoding} {source}")
    return Resolution(model, found, encoding or found.encoding, False, how)


def counting_encoding(model: str | None, recorded: str | None = None) -> tuple[str, bool]:
    """``(encoding, approximate)``: the tiktoken encoding ctxviewer counts a trace's items with, the
    same everywhere (import, ``ctxviewer tokens``, the what-if), and whether such a count only
    approximates the model's tokenizer.

    The encoding recorded on the trace when it is available offline; else the model's endpoint
    profile (:func:`resolve`: ``o200k_base`` for the GPT-4o family); a profile marked ``estimate``
    (Claude, Gemini: tiktoken is not their tokenizer), a model no profile knows, or an encoding not
    available offline (the nearest one is used: ``o200k*`` -> ``o200k_base``, else ``cl100k_base``)
    make the count approximate. Raises :class:`ProfileError` for a bad user profiles file."""
    offline = set(available_encodings())
    if recorded:
        return (recorded, False) if recorded in offline else (_nearest(recorded, offline), True)
    res = resolve(model)
    approximate = res.assumed or res.profile.estimate
    if res.encoding in offline:
        return res.encoding, approximate
    return _nearest(res.encoding, offline), True


def _nearest(encoding: str, offline: set[str]) -> str:
    """The available encoding nearest ``encoding``: the same family's base, else ``cl100k_base``."""
    family = "o200k_base" if encoding.startswith("o200k") else "cl100k_base"
    return family if family in offline else sorted(offline)[0]


def known_max_outputs() -> frozenset[int]:
    """Every profile's max output in tokens (to spot a capacity that is really a max-output value)."""
    return frozenset(p.max_output for p in profiles() if p.max_output)
