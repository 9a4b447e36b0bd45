"""Importer golden pairs: each input under ``tests/importers/golden/<format>/`` beside its
``<name>.expected.json``, and the command that rewrites the expectations.

An input is any file in a format folder that is not ``*.expected.json``; its expectation is what
ctxviewer's importer registry makes of it, normalised to JSON: the detected importer's name (it
must be the folder's format), every trace as the native JSON conversion
(:func:`ctxviewer.model.serialize.trace_to_dict`) and every problem record as text, with the input's
path written as its file name (so the pair does not depend on where the checkout lives).
Importers never count tokens, so counts the input did not record stay absent.

Regenerate after an intended change (then review the diff)::

    python -m tests.importers.regen          # or: python tests/importers/regen.py
    python -m tests.importers.regen --check  # exit 1 if any expectation is stale (CI-friendly)

``tests/importers/test_golden.py`` runs every pair.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ctxviewer.importers import REGISTRY, ImportFailed, ImportProblem
from ctxviewer.model.serialize import trace_to_dict

GOLDEN = Path(__file__).resolve().parent / "golden"
"""The golden-pair folder: one subfolder per importer name."""
SUFFIX = ".expected.json"


def inputs() -> list[Path]:
    """Every golden input, sorted by path (``golden/<format>/<name>.<ext>``)."""
    return sorted(p for p in GOLDEN.glob("*/*") if p.is_file() and not p.name.endswith(SUFFIX))


def expected_path(path: Path) -> Path:
    """``golden/otel/chat.otlp.json`` -> ``golden/otel/chat.otlp.expected.json``."""
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return path.with_name(stem + SUFFIX)


def normalise(path: Path) -> dict[str, Any]:
    """What the registry makes of ``path``: ``{"importer", "traces", "problems"}`` (or ``{"failed"}``)."""
    problems: list[ImportProblem] = []
    try:
        importer = REGISTRY.detect(path, problems)
        records = list(REGISTRY.load(importer, path))
    except ImportFailed as exc:
        return {"failed": str(exc).replace(str(path), path.name)}
    traces = [trace_to_dict(r) for r in records if not isinstance(r, ImportProblem)]
    problems += [r for r in records if isinstance(r, ImportProblem)]
    return {
        "importer": importer.name,
        "traces": traces,
        "problems": [str(p).replace(str(path), path.name) for p in problems],
    }


def render(data: dict[str, Any]) -> str:
    """The expectation file's text: indented JSON, non-ASCII kept, newline at the end."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    """Rewrite every expectation (or, with ``--check``, list the stale ones and return 1)."""
    check = "--check" in argv
    stale = []
    for path in inputs():
        text = render(normalise(path))
        target = expected_path(path)
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        stale.append(target)
        if not check:
            target.write_text(text, encoding="utf-8")
    verb = "stale" if check else "rewrote"
    for target in stale:
        print(f"{verb}: {target.relative_to(GOLDEN.parent)}")
    print(f"{len(inputs())} golden input(s), {len(stale)} {verb}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
