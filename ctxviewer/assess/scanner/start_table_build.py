"""Writing the shipped start-set table (:mod:`ctxviewer.assess.scanner.start_table`) of every
registered rule's patterns into ``ctxviewer/resources``: run after changing a pattern or the
derivation (:mod:`ctxviewer.assess.scanner.start_sets`)::

    python -m ctxviewer.assess.scanner.start_table_build

A build step, apart from the table's reader so that the reader (used by the prefilter) never
imports the rule registry above it. No Qt here.
"""

from __future__ import annotations

import json
from pathlib import Path

from ctxviewer.assess.scanner import registry
from ctxviewer.assess.scanner.start_table import RESOURCE, build
from ctxviewer.util import assets


def main() -> None:
    """Write the table of every registered rule's patterns into ``ctxviewer/resources``."""
    path = Path(str(assets.files().joinpath(RESOURCE)))
    table = build(dict.fromkeys(registry.all_patterns()))
    lines = [f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}" for k, v in table["patterns"].items()]
    path.write_text('{"fingerprint": ' + json.dumps(table["fingerprint"]) + ',\n"patterns": {\n' + ",\n".join(lines) + "\n}}\n",
                    encoding="utf-8")
    print(f"wrote {len(table['patterns'])} patterns to {path}")


if __name__ == "__main__":
    main()
