"""On ../shared/corpus the unmapped report lists nothing a user of the source tool would miss:
the report (tests/importers/corpus_unmapped.py) equals the reviewed one, and every key it names
has a row, with its reason, in docs/unmapped-fields.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

from corpus_unmapped import EXPECTED, report

DOC = Path(__file__).resolve().parents[2] / "docs" / "unmapped-fields.md"


def _documented() -> dict[str, set[str]]:
    """``{format: keys}`` of the doc's "Deliberately left out" table."""
    table = DOC.read_text(encoding="utf-8").split("## Deliberately left out", 1)[1]
    out: dict[str, set[str]] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[1].startswith("`"):
            continue
        for fmt in cells[0].split(","):
            out.setdefault(fmt.strip(), set()).update(re.findall(r"`([^`]+)`", cells[1]))
    return out


def test_corpus_unmapped_report_is_the_reviewed_one(shared: Path) -> None:
    assert report(shared / "corpus") == json.loads(EXPECTED.read_text(encoding="utf-8"))


def test_every_key_of_the_report_is_explained_in_the_left_out_table() -> None:
    documented = _documented()
    missing = [f"{fmt}: {key}" for fmt, keys in json.loads(EXPECTED.read_text(encoding="utf-8")).items()
               for key in keys if key not in documented.get(fmt, set())]
    assert missing == []
    assert documented["langsmith"] == {"events", "extra.runtime", "inputs.stream_options", "outputs.created",
                                       "outputs.object", "serialized"}
