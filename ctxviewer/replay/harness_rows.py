"""Result rows of the existing position harnesses, read into the position test's scores
(:class:`~ctxviewer.replay.stats.RunScore`), so they get the same table, statistics and chart.

* **Lost in the Middle** (Liu et al. 2023, ``qa_predictions`` made from ``qa_data``): JSON Lines
  (``.jsonl`` or ``.jsonl.gz``), one question per line with ``question``, ``answers`` (list),
  ``ctxs`` (the documents in prompt order, the gold one ``isgold: true``) and ``model_answer``.
  The position is the gold document's index + 1; the item is the question; right is the paper's
  ``best_subspan_em``: the answer's first line, SQuAD-normalised (lower case, punctuation and
  the articles a / an / the removed, white space collapsed), contains a normalised gold answer.
* **Needle in a Haystack** (LLMTest_NeedleInAHaystack result files): JSON objects (one per file,
  or JSON Lines) with ``context_length``, ``depth_percent``, ``score`` (the evaluator's 1-10) and
  ``model_response``; the position is the depth in percent (rounded to a whole percent), the item
  the context length, right is ``score >= pass_score`` (default 7 of 10: "aligned with the
  reference, at most minor omissions"; assumed, and said in the notes); a repeated file of the
  same length and depth is a repeat.
* **RULER** predictions (``pred/<task>.jsonl``): ``pred`` and ``outputs`` (the references); right
  is RULER's ``string_match_all`` (every reference in the prediction, case-insensitive) reaching
  1.0 -- ``string_match_part`` (any reference) for ``qa`` tasks; RULER rows carry no needle
  position of their own, so the position is read from ``position_field`` (looked for at the top
  level and in ``others``); the item is ``index``.

A line that cannot be read is a problem naming the file and line; the rest still loads. No Qt here.
"""

from __future__ import annotations

import gzip
import json
import re
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from ctxviewer.replay.stats import RunScore

HARNESSES = ("litm", "niah", "ruler")


@dataclass(frozen=True)
class HarnessRows:
    """Scores read from harness files, with notes on what was assumed and problems per line."""

    harness: str
    scores: tuple[RunScore, ...]
    notes: tuple[str, ...]
    problems: tuple[str, ...]


def squad_normalise(text: str) -> str:
    """Lower case, punctuation removed, articles a / an / the removed, white space collapsed (the
    SQuAD evaluation's normalisation, which Lost in the Middle's ``best_subspan_em`` uses)."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def best_subspan_em(prediction: str, answers: Iterable[str]) -> bool:
    """Whether a normalised gold answer occurs in the normalised first line of ``prediction``."""
    pred = squad_normalise(prediction.split("\n")[0].strip())
    return any(squad_normalise(a) in pred for a in answers)


def _lines(path: Path) -> Iterator[tuple[int, Any | None, str | None]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        text = f.read()
    stripped = text.lstrip()
    if stripped.startswith("{") and "\n{" not in stripped:
        try:  # one JSON object (a NIAH result file), possibly pretty-printed
            yield 1, json.loads(text), None
            return
        except ValueError:
            pass
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line), None
        except ValueError as exc:
            yield n, None, f"not JSON ({exc})"


def _litm(doc: Any) -> tuple[str, int, bool]:
    golds = [k for k, c in enumerate(doc["ctxs"]) if c.get("isgold")]
    if len(golds) != 1:
        raise ValueError(f"{len(golds)} gold documents in ctxs (expected one)")
    return str(doc["question"]), golds[0] + 1, best_subspan_em(str(doc["model_answer"]), [str(a) for a in doc["answers"]])


def _niah(doc: Any, pass_score: float) -> tuple[str, int, bool]:
    score = doc["score"]
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise ValueError("score is not a number")
    return f"{doc['context_length']} tokens", round(float(doc["depth_percent"])), score >= pass_score


def _ruler(doc: Any, field: str | None, task: str) -> tuple[str, int, bool]:
    if field is None:
        raise ValueError("RULER rows record no needle position; name the field that holds it (position_field)")
    pos = doc.get(field, (doc.get("others") or {}).get(field))
    if isinstance(pos, bool) or not isinstance(pos, (int, float)):
        raise ValueError(f"no number in field {field!r} (top level or others)")
    pred, refs = str(doc["pred"]).lower(), [str(r).lower() for r in doc["outputs"]]
    found = [r in pred for r in refs]
    right = any(found) if task.startswith("qa") else bool(found) and all(found)
    return str(doc["index"]), round(float(pos)), right


def read_harness(paths: Iterable[str | Path], harness: str, *, pass_score: float = 7,
                 position_field: str | None = None) -> HarnessRows:
    """The scores of ``paths`` read as ``harness`` (one of :data:`HARNESSES`; module docstring).
    Raises ``ValueError`` for an unknown harness; unreadable lines are :attr:`HarnessRows.problems`."""
    if harness not in HARNESSES:
        raise ValueError(f"harness must be one of {', '.join(HARNESSES)} (got {harness!r})")
    scores: list[RunScore] = []
    problems: list[str] = []
    repeats: dict[tuple[str, int], int] = {}
    for p in map(Path, paths):
        try:
            rows = list(_lines(p))
        except (OSError, UnicodeDecodeError, EOFError) as exc:
            problems.append(f"{p}: cannot be read ({exc})")
            continue
        for n, doc, bad in rows:
            where = f"{p}:{n}"
            if bad is not None:
                problems.append(f"{where}: {bad}")
                continue
            try:
                if not isinstance(doc, dict):
                    raise ValueError("not a JSON object")
                item, pos, right = (_litm(doc) if harness == "litm" else _niah(doc, pass_score) if harness == "niah"
                                    else _ruler(doc, position_field, p.stem))
            except KeyError as exc:
                problems.append(f"{where}: no field {exc.args[0]!r}")
                continue
            except (ValueError, TypeError, AttributeError) as exc:
                problems.append(f"{where}: {exc}")
                continue
            repeats[(item, pos)] = repeats.get((item, pos), 0) + 1
            scores.append(RunScore(item, pos, repeats[(item, pos)], right))
    notes = {"litm": ["right = best_subspan_em (Liu et al. 2023): a gold answer in the answer's first line, SQuAD-normalised",
                      "position = the gold document's place among the documents (1-based)"],
             "niah": [f"right = evaluator score >= {pass_score:g} of 10 (assumed)", "position = needle depth in percent"],
             "ruler": ["right = string_match_all (string_match_part for qa tasks) reaching 1.0",
                       f"position = field {position_field!r}"]}[harness]
    return HarnessRows(harness, tuple(scores), tuple(notes), tuple(problems))
