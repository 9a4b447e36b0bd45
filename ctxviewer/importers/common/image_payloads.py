"""The base64 images of a call's messages, kept for the window when no request body holds them.

An item's text holds an image as a placeholder (``[image/png blob, 1024×768, 12,345 bytes
base64]``, :mod:`ctxviewer.tokens.placeholders`): the payload is no text and is never counted as
text. The window shows the image by finding the payload the placeholder names in the trace's
recorded request body (:func:`ctxviewer.present.message_images.recorded_images`); formats that
record no body (Langfuse, OpenInference and OTel GenAI spans) had the bytes in the file and lost
them ("the image data was not kept"). :func:`image_payloads` keeps them on the trace as
:data:`IMAGE_PAYLOADS`: ``[[mime, "blob" | "data URI", base64 characters, payload], ...]`` -- the
key a placeholder names, and the base64 text -- within :data:`MAX_PAYLOAD_CHARS` each and
:data:`MAX_TOTAL_CHARS` per call (past them an image stays a placeholder that says its data was
not kept). No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ctxviewer.importers.common.messages import part_desc
from ctxviewer.tokens.placeholders import (
    IMAGE_PAYLOADS as IMAGE_PAYLOADS,  # the attribute, named where placeholders are
)

MAX_PAYLOAD_CHARS = 12_000_000
"""Base64 characters of one image kept at most (about 8.6 MiB decoded; the window shows up to 8 MiB)."""
MAX_TOTAL_CHARS = 24_000_000
"""Base64 characters of images kept per call at most."""


def image_payloads(messages: Iterable[Mapping[str, Any]]) -> list[list[Any]]:
    """The kept payloads of the image parts of ``messages`` (OTel GenAI messages: ``parts`` of type
    ``blob`` with an image ``mime_type`` or modality and a string ``content``, or ``uri`` holding a
    ``data:image/...;base64,`` URL), in message order, each image once; two different images under
    one key are both kept, so the window can tell that a placeholder naming it could be either; ``[]``
    when there are none."""
    out: list[list[Any]] = []
    seen: set[tuple[str, str, int, str]] = set()
    total = 0
    for msg in messages:
        parts = msg.get("parts") if isinstance(msg, Mapping) else None
        for part in parts if isinstance(parts, list) else ():
            got = _payload(part) if isinstance(part, Mapping) else None
            if got is None:
                continue
            mime, what, n, payload = got
            if (mime, what, n, payload) in seen or len(payload) > MAX_PAYLOAD_CHARS or total + len(payload) > MAX_TOTAL_CHARS:
                continue  # the same image twice is kept once; two images of one key both (the window shows neither)
            seen.add((mime, what, n, payload))
            total += len(payload)
            out.append([mime, what, n, payload])
    return out


def _payload(part: Mapping[str, Any]) -> tuple[str, str, int, str] | None:
    """``(mime, what, base64 characters named, payload)`` as :func:`ctxviewer.importers.common.messages.part_text`
    names the part in its placeholder; ``None`` for a part that is no base64 image."""
    desc = part_desc(part)  # the name its placeholder gives it: the key must match
    if part.get("type") == "blob" and isinstance(part.get("content"), str) and desc.startswith("image/"):
        return desc, "blob", len(part["content"]), part["content"]
    uri = part.get("uri")
    if part.get("type") == "uri" and isinstance(uri, str) and uri.startswith("data:image/") and ";base64," in uri[:200]:
        return desc, "data URI", len(uri), uri.split(",", 1)[1]
    return None
