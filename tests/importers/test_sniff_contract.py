"""The sniff contract, held over real files: every built-in importer's ``sniff`` returns a
``float`` in ``[0, 1]`` for every golden input and every corpus export, and the most confident
importer is the file's own format -- the one detected before sniffs returned real confidences
(nine of them returned ``bool``, so ties were broken by registration order) -- and it is the only
one that sure, so no result rests on the order. The registry turns a sniff that breaks the
contract into a problem record naming the importer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from ctxviewer.importers import HEAD_SIZES, ImportFailed, ImportProblem, Record, Registry, detect
from tests.importers.regen import inputs

CORPUS_EXPECTED = Path(__file__).resolve().parent / "corpus_expected.json"
CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def _cases() -> list[tuple[str, str | None]]:
    """``(path, format detected today)``: a golden input's format is its folder; a corpus file's
    is in the corpus table (``None``: not a trace file, recognised by no importer)."""
    golden = [(str(p), p.parent.name) for p in inputs()]
    corpus = [(str(CORPUS / rel), row["importer"]) for rel, row in json.loads(CORPUS_EXPECTED.read_text()).items()]
    return golden + corpus


@pytest.mark.parametrize(("path", "today"), _cases(), ids=lambda v: Path(v).name if isinstance(v, str) and "/" in v else str(v))
def test_every_sniff_is_a_float_in_0_1_and_the_surest_is_todays_format(path: str, today: str | None) -> None:
    file = Path(path)
    if not file.exists():
        pytest.skip(f"{file} not present (../shared/corpus)")
    data = file.read_bytes()
    heads = [data[:size] for size in HEAD_SIZES if size <= len(data) or size == HEAD_SIZES[0]]
    for head in dict.fromkeys(heads):
        scores = {}
        for imp in Registry(group=None).importers():
            score = imp.sniff(file, head)
            assert type(score) is float and 0.0 <= score <= 1.0, (imp.name, score)
            scores[imp.name] = score
    best = max(scores.values())
    if today is None:
        assert best == 0.0, scores
        with pytest.raises(ImportFailed):
            detect(file)
        return
    assert [name for name, score in scores.items() if score == best] == [today], scores
    assert detect(file).name == today


class Returns:
    """An importer whose sniff returns ``value`` (and loads nothing)."""

    description = "test importer"
    records_omissions = False

    def __init__(self, name: str, value: object) -> None:
        self.name, self.value = name, value

    def sniff(self, path: Path, head: bytes) -> float:
        return self.value  # type: ignore[return-value]

    def load(self, path: Path) -> Iterator[Record]:
        return iter(())


@pytest.mark.parametrize(("value", "shown"), [(True, "True (bool)"), (float("nan"), "nan (float)"),
                                              (1.5, "1.5 (float)"), (-0.1, "-0.1 (float)"), ("0.9", "'0.9' (str)"),
                                              (None, "None (NoneType)")])
def test_a_sniff_that_breaks_the_contract_scores_0_and_is_a_problem(tmp_path: Path, value: object, shown: str) -> None:
    path = tmp_path / "f.txt"
    path.write_text("x")
    reg = Registry(builtin=(), group=None)
    reg.register(Returns("bad", value))
    reg.register(Returns("fair", 0.4))
    problems: list[ImportProblem] = []
    assert reg.detect(path, problems).name == "fair"  # "bad" scored 0, though it came first
    assert [str(p) for p in problems] == [
        f"{path}: whole file: importer 'bad' broke the sniff contract: it returned {shown}, not a float in [0, 1]"]


def test_an_integer_sniff_is_a_number_in_range_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("x")
    reg = Registry(builtin=(), group=None)
    reg.register(Returns("fair", 0.4))
    reg.register(Returns("sure", 1))
    problems: list[ImportProblem] = []
    assert reg.detect(path, problems).name == "sure" and problems == []
