"""The shipped compiled code of the rule patterns (ctxviewer/resources/scanner_regex_code.json) is
current, and a pattern built from it is the very pattern ``re.compile`` makes (issue 11)."""

from __future__ import annotations

import json
import re

from ctxviewer import assets
from ctxviewer.scanner import code_table
from ctxviewer.scanner._api import LazyPattern
from ctxviewer.scanner.registry import all_patterns

REGENERATE = "the shipped compiled-code table is not current: run `python -m ctxviewer.scanner.start_table` and commit it"


def _lazy() -> list[LazyPattern]:
    return [p for p in dict.fromkeys(all_patterns()) if isinstance(p, LazyPattern)]


def test_the_shipped_table_is_current_for_every_rule_pattern() -> None:
    shipped = json.loads(assets.read_text(code_table.RESOURCE))
    assert shipped["fingerprint"] == code_table.fingerprint(), REGENERATE
    assert shipped == code_table.build((p.pattern, p.flags) for p in _lazy()), REGENERATE
    assert len(shipped["patterns"]) == 89


def test_every_shipped_pattern_equals_what_re_compile_makes(monkeypatch) -> None:
    code_table.shipped.cache_clear()

    def refuse(*_args: object) -> None:
        raise AssertionError("compiled although the shipped table holds it")

    patterns = _lazy()
    reference = {code_table.key(p.pattern, p.flags): re.compile(p.pattern, p.flags) for p in patterns}
    monkeypatch.setattr(re, "compile", refuse)
    for p in patterns:
        built = code_table.compile(p.pattern, p.flags)
        want = reference[code_table.key(p.pattern, p.flags)]
        # re.Pattern.__eq__ compares the pattern text, the flags and every code word
        assert built == want and built.groups == want.groups and built.groupindex == want.groupindex, p.pattern[:60]
    monkeypatch.undo()
    image = next(p for p in patterns if "(?P<url>" in p.pattern and p.pattern.startswith("!"))
    m = code_table.compile(image.pattern, image.flags).search("see ![x](https://e.example/i.png?d=1) here")
    assert m is not None and m.group("url") == "https://e.example/i.png?d=1"


def test_a_stale_or_damaged_table_falls_back_to_re_compile(monkeypatch) -> None:
    pattern = next(p for p in _lazy() if "ignore" in p.pattern)
    code_table.shipped.cache_clear()
    try:
        monkeypatch.setattr(code_table, "fingerprint", lambda: "python 0.0.0; sre magic 0")
        assert code_table.shipped() == {}
        assert code_table.compile(pattern.pattern, pattern.flags) == re.compile(pattern.pattern, pattern.flags)
        monkeypatch.undo()
        code_table.shipped.cache_clear()
        entry = code_table.shipped()[code_table.key(pattern.pattern, pattern.flags)]
        monkeypatch.setitem(entry, "code", "not base64 of zlib data!")
        assert code_table.compile(pattern.pattern, pattern.flags) == re.compile(pattern.pattern, pattern.flags)
    finally:
        monkeypatch.undo()
        code_table.shipped.cache_clear()


def test_a_pattern_not_in_the_table_is_compiled_now() -> None:
    assert code_table.key(r"\bsecret\s+handshake\b", re.I) not in code_table.shipped()
    assert code_table.compile(r"\bsecret\s+handshake\b", re.I).search("the Secret  Handshake").span() == (4, 21)
