"""Writing the shipped start-set table (:mod:`ctxviewer.assess.scanner.start_table`) of every
registered rule's patterns, and the compiled engine code of every scanner pattern
(:mod:`ctxviewer.assess.scanner.compiled_cache`), into ``ctxviewer/resources``: run after changing
a pattern, the derivation (:mod:`ctxviewer.assess.scanner.start_sets`) or the Python release::

    python -m ctxviewer.assess.scanner.start_table_build

A build step, apart from the table's reader so that the reader (used by the prefilter) never
imports the rule registry above it. No Qt here.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path
from typing import Any

from ctxviewer.assess import scanner
from ctxviewer.assess.scanner import compiled_cache, patterns, prefilter, registry, scout_pass
from ctxviewer.assess.scanner.start_table import RESOURCE, build
from ctxviewer.util import assets


def compiled_table() -> dict[str, Any]:
    """The compiled-code table (:func:`ctxviewer.assess.scanner.compiled_cache.build`) of every
    :class:`~ctxviewer.assess.scanner.patterns.LazyPattern` of the scanner's modules and every scout
    the prefilter derives (:mod:`ctxviewer.assess.scanner.scout`) and their shared passes
    (:mod:`ctxviewer.assess.scanner.scout_pass`), and the rests of the scouts whose groups a shared
    pass counts (:func:`~ctxviewer.assess.scanner.scout_pass.rests`)."""
    for module in pkgutil.iter_modules(scanner.__path__):  # every module's patterns, not only the rules'
        importlib.import_module(f"{scanner.__name__}.{module.name}")
    registry._learn()
    reg = prefilter._REGISTRY  # the rules' own scouts only (a test's patterns may have added others)
    ours = [s for p in dict.fromkeys(registry.all_patterns()) for s in (reg.split_of.get(p), reg.scout_of.get(p)) if s]
    scouts = [(s.regex, s.flags) for s in ours]
    scouts += [r for group in scout_pass.groups_of(ours).values() for r in group.regexes()]  # their shared passes
    scouts += scout_pass.rests(s.regex for s in ours)  # the rests whose groups scout_pass.lead_of counts
    return compiled_cache.build([*patterns.MADE, *scouts])


def main() -> None:
    """Write the table of every registered rule's patterns into ``ctxviewer/resources``."""
    path = Path(str(assets.files().joinpath(RESOURCE)))
    table = build(dict.fromkeys(registry.all_patterns()))
    lines = [f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}" for k, v in table["patterns"].items()]
    path.write_text('{"fingerprint": ' + json.dumps(table["fingerprint"]) + ',\n"patterns": {\n' + ",\n".join(lines) + "\n}}\n",
                    encoding="utf-8")
    print(f"wrote {len(table['patterns'])} patterns to {path}")
    code_path = Path(str(assets.files().joinpath(compiled_cache.RESOURCE)))
    code = compiled_table()
    code_path.write_text(json.dumps(code, ensure_ascii=False, sort_keys=True, indent=0) + "\n", encoding="utf-8")
    print(f"wrote the compiled code of {len(code['patterns'])} patterns to {code_path}")


if __name__ == "__main__":
    main()
