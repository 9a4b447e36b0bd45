"""The offline encoding registry (ctxviewer.tokens.counting): encodings, sha256 verification, plain-text
special tokens."""

from __future__ import annotations

import pytest

from ctxviewer.tokens import counting as tokens
from ctxviewer.tokens.counting import (
    EncodingIntegrityError,
    UnknownEncodingError,
    available_encodings,
    count_tokens,
    get_encoding,
)


def test_registry_offers_cl100k_o200k_and_harmony() -> None:
    assert available_encodings() == ["cl100k_base", "o200k_base", "o200k_harmony"]


@pytest.mark.parametrize(
    "name, ids",
    [("cl100k_base", [15339, 1917]), ("o200k_base", [24912, 2375]), ("o200k_harmony", [24912, 2375])],
)
def test_known_token_ids(name: str, ids: list[int]) -> None:
    assert tokens.encode("hello world", name) == ids


def test_vocab_sizes_match_tiktoken() -> None:
    assert get_encoding("cl100k_base").n_vocab == 100277
    assert get_encoding("o200k_base").n_vocab == 200019
    assert get_encoding("o200k_harmony").n_vocab == 201088


def test_special_token_text_counts_as_plain_text() -> None:
    # "<|endoftext|>" is one special token, but inside content it is ordinary text: 7 tokens.
    assert count_tokens("<|endoftext|>", "cl100k_base") == 7
    assert count_tokens("<|endoftext|>", "o200k_base") == 7


def test_unknown_encoding_names_the_available_ones() -> None:
    with pytest.raises(UnknownEncodingError, match="p50k_base.*cl100k_base, o200k_base"):
        count_tokens("x", "p50k_base")


def test_tampered_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_read_shipped", lambda file: b"aGVsbG8= 0\n")
    with pytest.raises(EncodingIntegrityError, match="does not match tiktoken's pinned 446a9538"):
        tokens._verified_ranks(
            "https://example.invalid/o200k_base.tiktoken",
            "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        )


def test_pinned_hashes_come_from_tiktoken_itself() -> None:
    import inspect

    from tiktoken_ext import openai_public

    src = inspect.getsource(openai_public)
    assert "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d" in src
    assert "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7" in src


def test_register_encoding_adds_a_name() -> None:
    assert "cl100k_base" in available_encodings()  # builtins are registered on first use
    base = tokens._REGISTRY["cl100k_base"]
    tokens.register_encoding("cl100k_copy", lambda: {**base(), "name": "cl100k_copy"})
    try:
        assert "cl100k_copy" in available_encodings()
        assert count_tokens("hello world", "cl100k_copy") == 2
    finally:
        tokens._REGISTRY.pop("cl100k_copy")
        get_encoding.cache_clear()


def test_a_million_spaces_is_counted_in_chunks_without_crashing() -> None:
    # tiktoken alone overflows its stack on this under o200k_base; the chunked count matches the
    # exact cl100k count of the same text (7,813 tokens) within one token per 100,000-char chunk.
    result = tokens.count_text(" " * 1_000_000, "o200k_base")
    assert result.chunked
    assert abs(result.tokens - 7_813) <= 10
    assert tokens.count_text("short", "o200k_base") == tokens.TextCount(1, False)


def test_ranks_are_read_column_by_column(monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    data = b"aGVsbG8= 0\nIHdvcmxk 1\nIQ== 7\n"  # "hello", " world", "!"
    monkeypatch.setattr(tokens, "_read_shipped", lambda file: data)
    ranks = tokens._verified_ranks("x/o200k_base.tiktoken", hashlib.sha256(data).hexdigest())
    assert ranks == {b"hello": 0, b" world": 1, b"!": 7}


def test_a_line_without_its_rank_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    data = b"aGVsbG8= 0\nIHdvcmxk\nIQ== 7\n"  # a rank missing: the columns would shift
    monkeypatch.setattr(tokens, "_read_shipped", lambda file: data)
    with pytest.raises(EncodingIntegrityError, match="a line is not '<base64 token> <rank>'"):
        tokens._verified_ranks("x/o200k_base.tiktoken", hashlib.sha256(data).hexdigest())
