"""Image parts counted by the model's image rule (never as base64 text).

Rules (from the endpoint profile's ``image`` entry):

* ``tiles`` (OpenAI): ``detail: low`` costs ``base``; otherwise the image is scaled to fit in
  ``max_side`` x ``max_side``, then its short side to ``short_side`` (only ever down), and costs
  ``base + per_tile * tiles`` with ``tile`` x ``tile`` px tiles (gpt-4o: 85 + 170 per 512 px tile).
* ``pixels`` (Anthropic): scaled to fit ``max_side``, then down to about ``max_tokens`` tokens when
  larger (aspect ratio kept), then ``ceil(width * height / pixels_per_token)``.
* ``patches`` (OpenAI's small models: gpt-4.1-mini / -nano, gpt-5-mini / -nano, o4-mini): 32 x 32 px
  patches, an image needing more than 1,536 scaled down to fit them, times the model's multiplier
  (1.62, 2.46, 1.62, 2.46, 1.72), rounded up: :func:`_patches`;
* ``gemini_tiles`` (Gemini 2.x): ``per_tile`` (258) for an image within ``small_side`` x
  ``small_side`` (384 px), else ``per_tile`` per ``tile`` x ``tile`` (768 px) tile it is cut into
  (``ceil(w / 768) * ceil(h / 768)``).

Sources: OpenAI's vision guide, "Calculating costs" (platform.openai.com/docs/guides/images-vision:
fit in 2048 x 2048, shortest side 768 px, 170 tokens per 512 px tile plus 85; ``detail: low`` 85;
and its patch rule: "ceil(width / 32) x ceil(height / 32)" patches, at most 1,536, times the model's multiplier),
and Anthropic's vision guide, "Calculate image costs" (docs.anthropic.com/en/docs/build-with-claude/vision:
``tokens = (width px * height px) / 750``; an image over 1568 px on the long edge, or over about
1,600 tokens, is scaled down first, so no image costs much more than 1,600), and Google's
"Understand and count tokens" (ai.google.dev/gemini-api/docs/tokens, Images: "image inputs with both
dimensions <= 384 pixels are counted as 258 tokens. Images larger in one or both dimensions are
cropped and scaled as needed into tiles of 768x768 pixels, each counted as 258 tokens").
These are estimates: the providers' own counts are the usage they report.

The size comes from the image header of a ``data:`` URL or base64 source (the ``imagesize``
library); a remote URL's size is unknown and 1024 x 1024 is assumed, said in the note. No Qt here.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
from dataclasses import dataclass
from typing import Any, Mapping

_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/]")

ASSUMED_SIZE = (1024, 1024)
"""Pixel size assumed when an image's size cannot be read (remote URL, unreadable header)."""


@dataclass(frozen=True)
class ImageCount:
    """Tokens of one image part and how they were found, e.g. ``"image 512x512, detail high"``."""

    tokens: int
    note: str


def size_of_base64(data: str) -> tuple[int, int] | None:
    """(width, height) in px read from the header of base64 image ``data``; ``None`` if unreadable.

    Only the first 64 KiB are decoded. A head whose length is off by characters outside the
    alphabet (an exporter's ``...`` cut: :data:`ctxviewer.tokens.placeholders.CUT`) is decoded
    without them, cut to whole 4-character groups."""
    chunk = data[: 64 * 1024 // 3 * 4]
    try:
        head = base64.b64decode(chunk, validate=False)
    except (binascii.Error, ValueError):
        kept = _NOT_BASE64.sub("", chunk)
        try:
            head = base64.b64decode(kept[: len(kept) // 4 * 4])
        except (binascii.Error, ValueError):
            return None
    import imagesize  # here: it imports urllib.request (http, email, ssl), ~16 ms a process

    try:
        w, h = imagesize.get(io.BytesIO(head))
    except Exception:  # imagesize raises various errors on truncated or odd headers
        return None
    return (int(w), int(h)) if w > 0 and h > 0 else None


def _fit(w: int, h: int, side: int) -> tuple[int, int]:
    if max(w, h) <= side:
        return w, h
    scale = side / max(w, h)
    return max(1, int(w * scale)), max(1, int(h * scale))


def count_image(rule: Mapping[str, Any], size: tuple[int, int] | None, detail: str | None) -> ImageCount:
    """Tokens of one image of ``size`` px (``None`` = unknown) under the profile's image ``rule``."""
    known = size is not None
    w, h = size or ASSUMED_SIZE
    where = f"{w}x{h}" if known else f"size unknown, {w}x{h} assumed"
    if rule.get("rule") == "pixels":
        fw, fh = _fit(w, h, int(rule.get("max_side", 1568)))
        per = float(rule.get("pixels_per_token", 750))
        cap = rule.get("max_tokens")
        if cap is not None and fw * fh / per > float(cap):  # scaled down to about max_tokens first
            scale = math.sqrt(float(cap) * per / (fw * fh))
            fw, fh = max(1, int(fw * scale)), max(1, int(fh * scale))
        tokens = math.ceil(fw * fh / per)
        return ImageCount(tokens, f"image {where}: {tokens} tokens (width x height / 750)")
    if rule.get("rule") == "patches":
        return _patches(rule, w, h, where)
    if rule.get("rule") == "gemini_tiles":
        per, small, side = int(rule.get("per_tile", 258)), int(rule.get("small_side", 384)), int(rule.get("tile", 768))
        tiles = 1 if max(w, h) <= small else math.ceil(w / side) * math.ceil(h / side)
        return ImageCount(per * tiles, f"image {where}: {tiles} tile(s) of {side} px, {per * tiles} tokens (Gemini)")
    base, per_tile, tile = int(rule.get("base", 85)), int(rule.get("per_tile", 170)), int(rule.get("tile", 512))
    if detail == "low":
        return ImageCount(base, f"image, detail low: {base} tokens")
    fw, fh = _fit(w, h, int(rule.get("max_side", 2048)))
    short = int(rule.get("short_side", 768))
    if min(fw, fh) > short:
        scale = short / min(fw, fh)
        fw, fh = int(fw * scale), int(fh * scale)
    tiles = math.ceil(fw / tile) * math.ceil(fh / tile)
    tokens = base + per_tile * tiles
    return ImageCount(tokens, f"image {where}, detail {detail or 'auto'}: {tiles} tile(s), {tokens} tokens")


def image_from_url(url: str) -> tuple[int, int] | None:
    """Size of a ``data:image/...;base64,`` URL's image; ``None`` for remote URLs or bad data."""
    if url.startswith("data:") and "," in url:
        return size_of_base64(url.split(",", 1)[1])
    return None


def _patches(rule: Mapping[str, Any], w: int, h: int, where: str) -> ImageCount:
    """OpenAI's patch rule (gpt-4.1-mini / -nano, gpt-5-mini / -nano, o4-mini): ``patch`` x ``patch``
    px patches (32), an image needing more than ``max_patches`` (1,536) scaled down until it fits
    them, the patches times the model's ``multiplier`` (rounded up)."""
    size, cap, mult = int(rule.get("patch", 32)), int(rule.get("max_patches", 1536)), float(rule.get("multiplier", 1.0))
    patches = math.ceil(w / size) * math.ceil(h / size)
    if patches > cap:
        r = math.sqrt(size * size * cap / (w * h))
        r *= min(math.floor(w * r / size) / (w * r / size), math.floor(h * r / size) / (h * r / size))
        patches = min(cap, math.ceil(w * r / size) * math.ceil(h * r / size))
    tokens = math.ceil(patches * mult)
    return ImageCount(tokens, f"image {where}: {patches} patch(es) of {size} px x {mult:g}, {tokens} tokens")
