"""Images in a trace count as image tokens, never as their base64 text (issue 27 item 8).

An image given as a ``data:`` URL (OpenAI ``image_url``), an Anthropic base64 ``source`` block, or a
data URL nested anywhere in a part is kept in the item text as a placeholder with its pixel size;
the import counts it by the model's image rule (OpenAI: 85 + 170 per 512 px tile after fitting in
2048 px and scaling the short side to 768 px; Anthropic: width x height / 750) and marks the count
``estimated``. The PNG is generated here with a known size and a real-sized (noise) payload."""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib
from pathlib import Path

from otlp_factories import chat_span, otlp_request, s

from ctxviewer.assess.breakdown import breakdown
from ctxviewer.assess.checks import run_checks
from ctxviewer.importers.common.messages import normalise_message, part_text, strip_payloads
from ctxviewer.model.trace import TokenSource
from ctxviewer.pipeline.importing import import_files
from ctxviewer.present.columns import item_tokens_tooltip
from ctxviewer.store import TraceStore
from ctxviewer.tokens.counting import count_tokens
from ctxviewer.tokens.images import count_image
from ctxviewer.tokens.placeholders import ImageRef, split_marked
from ctxviewer.tokens.profiles import resolve


def png_base64(width: int, height: int, seed: int = 0) -> str:
    """A valid RGB PNG of ``width`` x ``height`` px whose pixels are noise (stored uncompressed, so the
    payload is as large as a real photo's: 1024 x 768 is about 3.1 MB of base64)."""
    rnd = random.Random(seed)
    raw = b"".join(b"\0" + rnd.randbytes(width * 3) for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    body = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b""))
    return base64.b64encode(body).decode()


BIG = png_base64(1024, 768)
SMALL = png_base64(64, 32, seed=1)


def _import(tmp_path: Path, *spans: dict) -> TraceStore:
    path = tmp_path / "spans.otlp.json"
    path.write_text(json.dumps(otlp_request(*spans)), encoding="utf-8")
    store = TraceStore.create(tmp_path / "t.db")
    report = import_files([path], store)
    assert report.problems == [] and report.imported == len(spans)
    return store


def test_openai_image_url_data_url_counts_765_image_tokens_not_its_base64(tmp_path: Path) -> None:
    assert len(BIG) > 3_000_000
    msgs = [{"role": "user", "content": [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + BIG, "detail": "high"}}]}]
    with _import(tmp_path, chat_span(messages=msgs, **{"gen_ai.request.model": s("gpt-4o")})) as store:
        t = store.load(store.list()[0].trace_id)
    item = t.items[0]
    assert item.content == f"what is this?\n[image/png blob, 1024×768, detail high, {len(BIG):,} bytes base64]"
    assert BIG[:64] not in (t.user_request or "")
    # 1024x768 fits 2048 and its short side is 768: 2 x 2 tiles of 512 px -> 85 + 4 * 170 = 765
    assert item.tokens == count_tokens("what is this?", "o200k_base") + 765 == 769
    assert item.tokens < 2_000  # the 3.1 MB payload was not tokenized
    assert item.tokens_provenance is not None and item.tokens_provenance.source is TokenSource.ESTIMATED
    assert item_tokens_tooltip(item) == (
        "769 tokens, estimated: 1 image by the model's image rule, the text counted with o200k_base")


def test_anthropic_base64_image_block_counts_width_times_height_over_750(tmp_path: Path) -> None:
    msgs = [{"role": "user", "parts": [
        {"type": "text", "content": "and this?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": BIG}}]}]
    span = chat_span(messages=msgs, **{"gen_ai.request.model": s("claude-3-5-sonnet-20241022")})
    with _import(tmp_path, span) as store:
        item = store.load(store.list()[0].trace_id).items[0]
    assert item.content == f"and this?\n[image/png blob, 1024×768, {len(BIG):,} bytes base64]"
    # ceil(1024 * 768 / 750) = 1049; Claude text is a cross-vendor estimate with cl100k_base
    assert item.tokens == count_tokens("and this?", "cl100k_base") + 1049
    assert item.tokens_provenance is not None and item.tokens_provenance.source is TokenSource.ESTIMATED


def test_detail_low_is_85_tokens_and_a_nested_data_url_is_a_placeholder(tmp_path: Path) -> None:
    low = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + SMALL, "detail": "low"}}
    odd = {"type": "screenshot", "meta": {"frames": [{"url": "data:image/png;base64," + BIG}]}}
    msgs = [{"role": "user", "content": [low]}, {"role": "user", "content": [{"type": "text", "text": "see"}, odd]}]
    span = chat_span(messages=msgs, **{"gen_ai.request.model": s("gpt-4o"),
                                       "gen_ai.request.reference_image": s("data:image/png;base64," + SMALL)})
    with _import(tmp_path, span) as store:
        t = store.load(store.list()[0].trace_id)
    a, b = t.items
    assert t.attributes["gen_ai.request.reference_image"] == (
        f"[image/png data URI, 64×32, {len(SMALL) + 22:,} bytes base64]")  # an attribute keeps no base64 either
    assert a.content == f"[image/png blob, 64×32, detail low, {len(SMALL):,} bytes base64]" and a.tokens == 85
    nested = f"[image/png data URI, 1024×768, {len(BIG) + 22:,} bytes base64]"
    assert b.content == 'see\n{"type":"screenshot","meta":{"frames":[{"url":"' + nested + '"}]}}'
    assert BIG[:64] not in (b.content or "")
    assert b.tokens is not None and b.tokens < 2_000


def test_placeholders_split_back_out_of_the_text() -> None:
    text = "look\n[image/png blob, 64×32, detail low, 1,234 bytes base64]\n[image uri: https://x/cat.png]\nnow"
    m = split_marked(text)
    assert m.text == "look\nnow"
    assert m.images == (ImageRef((64, 32), "low"), ImageRef(None, None))
    assert split_marked("plain [image] text") == split_marked("plain [image] text")
    assert split_marked("plain [image] text").images == () and split_marked("plain [image] text").text == (
        "plain [image] text")
    pdf = "[application/pdf blob, 9,000 bytes base64]"
    assert split_marked(pdf).text == pdf  # not an image: counted as its text


def test_vercel_image_data_url_and_openai_part_in_otel_parts() -> None:
    msg = normalise_message({"role": "user", "content": [{"type": "image", "image": "data:image/png;base64," + SMALL}]})
    assert part_text(msg["parts"][0]) == f"[image/png blob, 64×32, {len(SMALL):,} bytes base64]"
    msg = normalise_message({"role": "user", "parts": [{"type": "image_url", "image_url": "https://x/cat.png"}]})
    assert msg["parts"] == [{"type": "uri", "modality": "image", "uri": "https://x/cat.png"}]
    assert part_text(msg["parts"][0]) == "[image uri: https://x/cat.png]"


def test_inspect_corpus_image_is_counted_and_the_reported_gap_closes(shared: Path, tmp_path: Path) -> None:
    path = shared / "corpus/other/inspect_ai/inspect-log-images.json"
    with TraceStore.create(tmp_path / "t.db") as store:
        assert import_files([path], store).problems == []
        t = store.load(store.list()[0].trace_id)
    user = t.items[1]
    assert user.content == "What is this a picture of?\n[image/png blob, 34×30, 8,528 bytes base64]"
    # a 34x30 image on gpt-4o (detail auto): one tile, 85 + 170 = 255 tokens
    assert user.tokens == count_tokens("What is this a picture of?", "o200k_base") + 255
    # the provider reported 323; counted now 51 (system) + 262 (user) + 11 framing = 324 (before: 82 and
    # "241 tokens are not in the captured text")
    assert breakdown(t).total == 324 and t.usage.input_tokens == 323
    assert "accounting.reported_gap" not in [f.rule for f in run_checks(t)]


def test_anthropic_corpus_image_counts_45_image_tokens(shared: Path, tmp_path: Path) -> None:
    path = shared / "corpus/provider-api/anthropic/messages-image-input-base64.extracted.json"
    with TraceStore.create(tmp_path / "t.db") as store:
        assert import_files([path], store).problems == []
        item = store.load("msg_01DijAsAzrH5wFcik1mPQjPn").items[0]
    text = "What do you see in this image? Describe it in detail."
    assert item.content == text + "\n[image/png blob, 228×148, 9,240 bytes base64]"
    # ceil(228 * 148 / 750) = ceil(44.99) = 45 image tokens; the text a cl100k_base estimate
    assert item.tokens == count_tokens(text, "cl100k_base") + 45


def test_only_base64_is_stripped_never_long_plain_text() -> None:
    words = "the quick brown fox jumps over the lazy dog " * 200  # 8,800 characters of letters and spaces
    mime = "\n".join(SMALL[i:i + 76] for i in range(0, len(SMALL), 76)) * 8  # MIME base64: line breaks
    assert strip_payloads({"a": [words], "b": mime}) == {"a": [words], "b": f"[{len(mime):,} bytes base64]"}


def test_a_large_image_on_claude_is_scaled_to_about_1600_tokens_first() -> None:
    rule = resolve("claude-sonnet-4-5").profile.image
    assert count_image(rule, (1024, 768), None).tokens == 1049  # ceil(1024 * 768 / 750): under the cap
    # 1568 x 1568 would be 3,278 tokens; scaled by sqrt(1600 * 750 / 1568^2) to 1095 x 1095 first
    assert count_image(rule, (1568, 1568), None).tokens == 1599
    assert count_image(rule, (4000, 3000), None).tokens <= 1600


def test_gemini_counts_258_per_image_up_to_384_px_else_258_per_768_px_tile() -> None:
    """Issue 21: Gemini used the OpenAI tile rule. Google's rule (ai.google.dev/gemini-api/docs/tokens):
    258 for an image with both sides <= 384 px, else 258 per 768 x 768 tile."""
    rule = resolve("gemini-2.5-flash").profile.image
    assert rule["rule"] == "gemini_tiles"
    assert count_image(rule, (384, 200), None).tokens == 258
    assert count_image(rule, (385, 200), None).tokens == 258  # one tile
    assert count_image(rule, (2048, 1536), None).tokens == 258 * 3 * 2
    assert count_image(rule, None, None).tokens == 258 * 2 * 2  # unknown: 1024 x 1024 assumed
    assert count_image(rule, (1024, 768), None).note == "image 1024x768: 2 tile(s) of 768 px, 516 tokens (Gemini)"


def test_openais_small_models_count_patches_not_tiles() -> None:
    """New user 2026-12-07 (#18): o4-mini and gpt-4.1-mini were counted by gpt-4o's tile rule
    (255 tokens for a 1x1 image). OpenAI's patch rule: 32 px patches, at most 1,536 (its own
    example: 1800 x 2400 -> 1,452 patches), times the model's multiplier."""
    assert [(resolve(m).profile.name, count_image(resolve(m).profile.image, (1, 1), None).tokens)
            for m in ("o4-mini", "gpt-4.1-mini-2025-04-14", "gpt-4.1-nano", "gpt-5-mini", "gpt-5-nano")] == [
        ("o4-mini", 2), ("gpt-4.1-mini", 2), ("gpt-4.1-nano", 3), ("gpt-5-mini", 2), ("gpt-5-nano", 3)]
    o4 = resolve("o4-mini").profile.image
    assert count_image(o4, (1024, 1024), None).tokens == 1762  # 1,024 patches x 1.72
    assert count_image(o4, (1800, 2400), None).note == "image 1800x2400: 1452 patch(es) of 32 px x 1.72, 2498 tokens"
    assert count_image(resolve("gpt-4o").profile.image, (1, 1), None).tokens == 255  # the tile rule stays gpt-4o's
