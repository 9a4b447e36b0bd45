"""Labels ctxviewer writes into an item's text that the model never received as text.

An importer keeps an item's text free of binary payloads and marks what is not plain text:

* an image or file part becomes a placeholder: ``[image/png blob, 1024×768, detail high,
  3,147,084 bytes base64]`` (base64 content), ``[image/png data URI, 64×32, 1,234 bytes base64]``
  (a ``data:`` URI part), ``[image uri, detail low: https://x/cat.png]`` (a remote image),
  ``[image/png file: file-abc]`` (a provider file id). The pixel size is read from the image
  header (:func:`ctxviewer.tokens.images.size_of_base64`) and left out when unreadable; the byte
  count is the length of the base64 text;
* a reasoning part (Anthropic ``thinking``, OTel ``reasoning``) starts with :data:`REASONING`;
  a redacted one is :data:`REDACTED_REASONING` (its encrypted data is not kept).

:func:`split_marked` takes them back out, so a count is made of what was sent: the text without
the placeholders and labels (a thinking block counts as its thinking text), plus each image counted by the model's image rule
(:func:`ctxviewer.tokens.images.count_image`). A text that happens to contain a placeholder's exact
shape is read as one (it can only come from an export of this format). No Qt here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

REASONING = "[reasoning] "
"""The label a reasoning part's text starts with (the label is not counted)."""
REDACTED_REASONING = "[reasoning redacted by the provider: encrypted, not shown]"
"""The whole text of a redacted reasoning part (Anthropic ``redacted_thinking``; not counted: the
size of what the model reads from the encrypted data is not recorded)."""

CUT = ", cut by the exporter"
"""The end of a placeholder whose base64 payload an exporter cut (Logfire's middle ``...``:
:func:`ctxviewer.importers.common.exporter_cut.middle_cut`); the pixel size is the first image's."""

_PLACEHOLDER = re.compile(
    r"(?P<pre>\n)?(?:\[(?P<desc>image(?:/[\w.+-]+)?) (?P<what>blob|data URI|uri|file)"
    r"(?:, (?P<w>\d+)×(?P<h>\d+))?(?:, detail (?P<detail>\w+))?"
    r"(?:, [\d,]+ bytes base64(?:, cut by the exporter)?\]|: [^\]\n]*\]|\])"
    rf"|(?P<redacted>{re.escape(REDACTED_REASONING)}))(?P<post>\n)?")
_LABEL = re.compile(rf"(?m)^{re.escape(REASONING)}")


@dataclass(frozen=True)
class ImageRef:
    """One image placeholder: its pixel size (``None`` = not readable / remote) and OpenAI detail."""

    size: tuple[int, int] | None
    detail: str | None


@dataclass(frozen=True)
class Marked:
    """An item's text split by :func:`split_marked`: ``text`` as sent (labels and placeholders
    out) and the ``images`` it held, in order."""

    text: str
    images: tuple[ImageRef, ...]
    labelled: bool
    """Whether anything was taken out (a placeholder or a label)."""


IMAGE_PAYLOADS = "ctxviewer.image_payloads"
"""The trace attribute an importer keeps the base64 images of a call in when no recorded request
body holds them: ``[[mime, "blob" | "data URI", base64 characters, payload], ...]``, the key a
placeholder names and its payload (:mod:`ctxviewer.importers.common.image_payloads`)."""

def placeholder(desc: str, what: str, *, size: tuple[int, int] | None = None, detail: str | None = None,
                base64_chars: int | None = None, ref: str | None = None, cut: bool = False) -> str:
    """A placeholder in the module docstring's shape: ``desc`` a mime type or modality, ``what``
    one of ``blob``, ``data URI``, ``uri``, ``file``; ``ref`` the URL or file id (``uri``,
    ``file``); ``cut``: the base64 payload holds an exporter's cut (:data:`CUT`, after the byte
    count: ``[image/png blob, 2048×1536, 4,194,304 bytes base64, cut by the exporter]``)."""
    out = f"[{desc} {what}"
    if size is not None:
        out += f", {size[0]}×{size[1]}"
    if detail:
        out += f", detail {detail}"
    if base64_chars is not None:
        return out + f", {base64_chars:,} bytes base64{CUT if cut else ''}]"
    return out + (f": {ref}]" if ref is not None else "]")


_MEDIA = re.compile(r"\[(?:image|audio|video|application|document|text)(?:/[\w.+-]+)? (?:blob|data URI|uri|file)\b")


def holds_media(text: str | None) -> bool:
    """True when ``text`` holds a placeholder of an image, audio, video or document part (``[image/png
    blob, ...]``, ``[application/pdf blob, ...]``): content whose tokens the provider counts by its
    own rule, often far from what the text of the placeholder counts."""
    return text is not None and "[" in text and _MEDIA.search(text) is not None


def split_marked(text: str) -> Marked:
    """``text`` without image placeholders and reasoning labels, and the images it held.

    A placeholder on its own line takes its line break with it (``"look\\n[image/png blob, ...]"``
    -> ``"look"``), so the rest counts as the text parts joined. Only image placeholders (``desc``
    ``image`` or ``image/*``) are taken out; others (audio, documents: their tokens are not known)
    stay and count as their text. Cheap when there is nothing to take out."""
    if "[image" not in text and "[reasoning" not in text:
        return Marked(text, (), False)
    images: list[ImageRef] = []

    def take(m: re.Match[str]) -> str:
        if not m.group("redacted"):
            size = (int(m.group("w")), int(m.group("h"))) if m.group("w") else None
            images.append(ImageRef(size, m.group("detail")))
        return "\n" if m.group("pre") and m.group("post") else ""  # between two lines: one break stays

    rest, taken = _PLACEHOLDER.subn(take, text)
    rest, labels = _LABEL.subn("", rest)
    return Marked(rest, tuple(images), taken + labels > 0)
