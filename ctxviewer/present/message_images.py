"""Images a message holds, as bytes to decode locally: never fetched, size-capped, labelled.

Two sources, both local:

* a ``data:image/...;base64,`` URL (in Markdown text, an OpenAI ``image_url`` part):
  :func:`data_url_image`;
* an image the importers replaced by a placeholder in the item's text
  (``[image/png blob, 228×148, 9,240 bytes base64]``, :mod:`ctxviewer.tokens.placeholders`), whose
  payload the trace's recorded request body still holds (an OpenAI ``image_url`` data URL, an
  Anthropic ``{"type": "base64", "media_type", "data"}`` source, an OTel ``blob`` part).
  :func:`recorded_images` indexes a body's payloads by what a placeholder names -- mime type, part
  kind and base64 length -- and :func:`placeholder_image` looks one up; a placeholder with no
  payload in the body (the request was not recorded) is an image block without data saying so.

Caps: a payload over :data:`MAX_IMAGE_BYTES` decoded, or whose header says over
:data:`MAX_PIXELS`, is not decoded (its block has no data and says why); text that is not base64 is
said to be so. The window decodes what is left with a size-capped reader and shows a labelled
placeholder if that fails. No Qt here.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain
from typing import Any

from ctxviewer.model.trace import RequestTrace
from ctxviewer.present.blocks import ImageBlock
from ctxviewer.tokens.images import size_of_base64
from ctxviewer.tokens.placeholders import IMAGE_PAYLOADS
from ctxviewer.util.visible import one_line

MAX_IMAGE_BYTES = 8 * 1024 * 1024
"""Decoded bytes of an image shown at most (8 MiB); a larger one is a labelled placeholder."""
MAX_PIXELS = 40_000_000
"""Pixels (width × height, from the header) of an image decoded at most; a larger one is a placeholder."""

PLACEHOLDER = re.compile(
    r"^\[(?P<mime>image/[\w.+-]+) (?P<what>blob|data URI)(?:, (?P<w>\d+)×(?P<h>\d+))?(?:, detail \w+)?"
    r", (?P<n>[\d,]+) bytes base64(?P<cut>, cut by the exporter)?\]$")
"""An image placeholder with a base64 payload, alone on its line (:func:`ctxviewer.tokens.placeholders.placeholder`)."""
REMOTE_PLACEHOLDER = re.compile(r"^\[image(?:/[\w.+-]+)? uri(?:, detail \w+)?: (?P<url>[^\]\n]*)\]$")
"""A remote image's placeholder (``[image uri: https://x/cat.png]``)."""

BODY = "from the recorded request"
"""Where an image block's bytes came from: the trace's recorded request body."""
KEPT = "kept from the trace file"
"""Where an image block's bytes came from: the messages the importer read (no body recorded)."""

ImageKey = tuple[str, str, int]
"""``(mime type, "blob" | "data URI", base64 characters)``: what a placeholder names of its payload."""


def _kb(n: int) -> str:
    if n < 1024:
        return f"{n:,} bytes"
    return f"{n / 1024:,.1f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:,.1f} MiB"


def base64_image(mime: str, payload: str, where: str, *, alt: str = "", quote: int = 0) -> ImageBlock:
    """The block of a base64 image ``payload`` of type ``mime``; ``where`` ends its label
    (``"from the recorded request"``). Never raises: too large, too many pixels or not base64 ->
    a block without data whose label says so."""
    mime = one_line(mime) or "image"
    compact = re.sub(r"\s+", "", payload)
    if len(compact) * 3 // 4 > MAX_IMAGE_BYTES:
        return ImageBlock(f"{mime} image of {_kb(len(compact) * 3 // 4)}, over the {_kb(MAX_IMAGE_BYTES)} "
                          f"shown: not decoded ({where})", None, alt, quote)
    try:
        data = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return ImageBlock(f"{mime} image whose data is not valid base64: not shown ({where})", None, alt, quote)
    size = size_of_base64(compact)
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        return ImageBlock(f"{mime} image of {size[0]}×{size[1]} px, over {MAX_PIXELS:,} pixels: not decoded ({where})",
                          None, alt, quote)
    dims = f" {size[0]}×{size[1]}" if size is not None else ""
    return ImageBlock(f"{mime}{dims}, {_kb(len(data))} ({where})", data, alt, quote)


def data_url_image(url: str, where: str, *, alt: str = "", quote: int = 0) -> ImageBlock:
    """The block of a ``data:`` URL (only ``;base64`` image payloads are decoded)."""
    head, _, payload = url[5:].partition(",")
    mime = head.split(";", 1)[0] or "image"
    if not mime.startswith("image/") or ";base64" not in head:
        return ImageBlock(f"data: URL of {one_line(mime)}, not a base64 image: not shown", None, alt, quote)
    return base64_image(mime, payload, where, alt=alt, quote=quote)


def _payloads(value: Any) -> Iterator[tuple[ImageKey, str, str]]:
    """``(key, mime, payload)`` of every base64 image anywhere in a decoded request body."""
    if isinstance(value, str):
        if value.startswith("data:image/") and ";base64," in value[:200]:
            head, _, payload = value[5:].partition(",")
            mime = head.split(";", 1)[0]
            yield (mime, "blob", len(payload)), mime, payload
            yield (mime, "data URI", len(value)), mime, payload
        return
    if isinstance(value, Mapping):
        if value.get("type") == "base64" and isinstance(value.get("data"), str):  # Anthropic source
            mime = str(value.get("media_type") or "")
            yield (mime, "blob", len(value["data"])), mime, value["data"]
        elif value.get("type") == "blob" and isinstance(value.get("content"), str):  # OTel blob part
            mime = str(value.get("mime_type") or "")
            yield (mime, "blob", len(value["content"])), mime, value["content"]
        for v in value.values():
            yield from _payloads(v)
    elif isinstance(value, list):
        for v in value:
            yield from _payloads(v)


def recorded_images(body: str | None) -> dict[ImageKey, tuple[str, str, str]]:
    """The base64 images of a recorded request ``body`` (JSON text; anything else: none), by
    :data:`ImageKey` -> ``(mime, payload, where)`` (``where`` :data:`BODY`). A key two different payloads share is dropped (a
    placeholder naming it could be either)."""
    return _unambiguous(_body_payloads(body))


def _body_payloads(body: str | None) -> Iterator[tuple[ImageKey, str, str, str]]:
    if not body or "base64" not in body:
        return
    try:
        doc = json.loads(body)
    except ValueError:
        return
    for key, mime, payload in _payloads(doc):
        yield key, mime, payload, BODY


def _kept_payloads(kept: Any) -> Iterator[tuple[ImageKey, str, str, str]]:
    for entry in kept if isinstance(kept, (list, tuple)) else ():
        if not (isinstance(entry, (list, tuple)) and len(entry) == 4 and isinstance(entry[3], str)
                and isinstance(entry[2], int) and not isinstance(entry[2], bool)):
            continue  # another program's attribute of that name: not ours to read
        yield (str(entry[0]), str(entry[1]), entry[2]), str(entry[0]), entry[3], KEPT


def _unambiguous(found: Iterable[tuple[ImageKey, str, str, str]]) -> dict[ImageKey, tuple[str, str, str]]:
    """``key -> (mime, payload, where)``, the first of each key, a key two different payloads share dropped."""
    out: dict[ImageKey, tuple[str, str, str]] = {}
    clashes: set[ImageKey] = set()
    for key, mime, payload, where in found:
        if key in out and out[key][1] != payload:
            clashes.add(key)
        out.setdefault(key, (mime, payload, where))
    return {k: v for k, v in out.items() if k not in clashes}


def trace_images(trace: RequestTrace) -> dict[ImageKey, tuple[str, str, str]]:
    """The base64 images of ``trace`` by :data:`ImageKey`: those of its recorded request body
    (:func:`recorded_images`) and those its importer kept when no body holds them
    (:data:`ctxviewer.tokens.placeholders.IMAGE_PAYLOADS`); ``{}`` when no item or reply text holds
    an image placeholder (nothing to look up). A key with two different payloads is dropped."""
    texts = [i.content or "" for i in trace.items]
    if trace.response is not None and trace.response.text:
        texts.append(trace.response.text)
    if not any("[image" in t for t in texts):
        return {}
    return _unambiguous(chain(_body_payloads(trace.request.content), _kept_payloads(trace.attributes.get(IMAGE_PAYLOADS))))


def placeholder_image(line: str, images: Mapping[ImageKey, tuple[str, str, str]]) -> ImageBlock | None:
    """The image block of an image placeholder ``line`` (``None``: the line is not one): decoded
    from ``images`` (:func:`recorded_images`) when the body holds its payload, else labelled
    "not kept"; a payload the exporter cut (:data:`ctxviewer.tokens.placeholders.CUT`) says so, never
    "not valid base64"; a remote image's placeholder says it was not fetched."""
    m = PLACEHOLDER.match(line)
    if m is not None:
        key = (m["mime"], m["what"], int(m["n"].replace(",", "")))
        hit = images.get(key)
        if hit is not None and m["cut"]:  # the exporter shortened the payload: it cannot decode
            return ImageBlock(f"{one_line(hit[0]) or 'image'} image cut by the exporter: not shown (from the recorded request)")
        if hit is not None:
            return base64_image(hit[0], hit[1], hit[2])
        return ImageBlock(f"{line[1:-1]}: the image data was not kept (the request body does not hold it)")
    r = REMOTE_PLACEHOLDER.match(line)
    if r is not None:
        return ImageBlock(f"remote image, not fetched: {one_line(r['url'])}")
    return None
