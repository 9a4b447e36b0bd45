"""Result rows of Lost in the Middle, NeedleInAHaystack and RULER read into position-test scores
(ctxviewer.replay.harness_rows) and ``ctxviewer position-results``."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.replay.harness_rows import best_subspan_em, read_harness, squad_normalise
from ctxviewer.replay.stats import analyse

DATA = Path(__file__).resolve().parents[1] / "data" / "harness"


def test_squad_normalisation_and_best_subspan_em() -> None:
    assert squad_normalise("The  Eiffel-Tower!") == "eiffeltower"
    assert best_subspan_em("an eiffel tower", ["Eiffel Tower"])
    assert not best_subspan_em("Sydney\nCanberra is the capital", ["Canberra"])  # first line only
    assert best_subspan_em("A spider has 8 legs.", ["eight", "8"])


def test_litm_rows_give_accuracy_per_gold_position() -> None:
    rows = read_harness([DATA / "litm-nq-20docs.jsonl"], "litm")
    assert rows.problems == (f"{DATA / 'litm-nq-20docs.jsonl'}:13: not JSON (Expecting value: line 1 column 1 (char 0))",)
    a = analyse(rows.scores)
    assert a.unit == "items"
    assert [(p.position, p.accuracy, p.n) for p in a.positions] == [(1, 0.75, 4), (10, 0.5, 4), (20, 0.75, 4)]


def test_litm_rows_draw_the_published_longchat_curve(tmp_path: Path) -> None:
    """Rows whose answers are right for 1821, 1524, 1469, 1394 and 1461 of 2,655 questions with the
    gold document at index 0, 4, 9, 14 and 19 give the curve the LITM repository's EXPERIMENTS.md
    states for longchat-13b-16k on 20 documents (best_subspan_em 0.6859, 0.5740, 0.5533, 0.5250, 0.5503)."""
    right = {0: 1821, 4: 1524, 9: 1469, 14: 1394, 19: 1461}
    for g, k in right.items():
        with gzip.open(tmp_path / f"nq-open-20_total_documents_gold_at_{g}-predictions.jsonl.gz", "wt") as f:
            for q in range(2655):
                ctxs = [{"isgold": n == g} for n in range(20)]
                answer = "Paris, France" if q < k else "I do not know"
                f.write(json.dumps({"question": f"q{q}", "answers": ["Paris"], "ctxs": ctxs, "model_answer": answer}) + "\n")
    rows = read_harness(sorted(tmp_path.glob("*.jsonl.gz")), "litm")
    a = analyse(rows.scores, resamples=200)
    got = [(p.position, round(p.accuracy, 4)) for p in a.positions]
    assert got == [(1, 0.6859), (5, 0.5740), (10, 0.5533), (15, 0.5250), (20, 0.5503)]
    assert a.spread[:2] == (1, 15)
    assert a.cochran[2] < 1e-6


def _niah(tmp_path: Path, name: str, length: int, depth: float, score: int) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps({"model": "claude-2.1", "context_length": length, "depth_percent": depth, "version": 1,
                             "needle": "n", "model_response": "r", "score": score}), encoding="utf-8")
    return p


def test_niah_result_files(tmp_path: Path) -> None:
    files = [_niah(tmp_path, f"len_{n}_depth_{d}.json", n, d, s)
             for n, d, s in [(1000, 0.0, 10), (1000, 50.0, 3), (1000, 100.0, 10), (2000, 0.0, 7), (2000, 50.0, 1),
                             (2000, 100.0, 5)]]
    files.append(_niah(tmp_path, "len_1000_depth_0_results_2.json", 1000, 0.0, 1))  # a repeat
    rows = read_harness(files, "niah")
    a = analyse(rows.scores)
    assert [(p.position, p.accuracy, p.runs) for p in a.positions] == [(0, 0.75, 3), (50, 0.0, 2), (100, 0.5, 2)]
    assert rows.notes[0] == "right = evaluator score >= 7 of 10 (assumed)"
    strict = analyse(read_harness(files, "niah", pass_score=10).scores)
    assert [p.accuracy for p in strict.positions] == [0.25, 0.0, 0.5]


def test_ruler_rows_need_their_position_field(tmp_path: Path) -> None:
    p = tmp_path / "niah_multikey_1.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in [
        {"index": 0, "pred": "The numbers are 123 and 456", "outputs": ["123", "456"], "others": {"depth": 10}},
        {"index": 0, "pred": "123", "outputs": ["123", "456"], "others": {"depth": 90}},
        {"index": 1, "pred": "789 and 1", "outputs": ["789", "1"], "others": {"depth": 10}},
        {"index": 1, "pred": "789 1", "outputs": ["789", "1"], "others": {"depth": 90}}]), encoding="utf-8")
    none = read_harness([p], "ruler")
    assert none.scores == () and none.problems[0].endswith("RULER rows record no needle position; name the field "
                                                           "that holds it (position_field)")
    a = analyse(read_harness([p], "ruler", position_field="depth").scores)
    assert [(q.position, q.accuracy) for q in a.positions] == [(10, 1.0), (90, 0.5)]


def test_position_results_command() -> None:
    result = CliRunner().invoke(cli, ["position-results", str(DATA / "litm-nq-20docs.jsonl"), "--harness", "litm"])
    assert result.exit_code == 0, result.output
    assert "litm: 12 rows from 1 file(s)" in result.output
    assert "skipped " in result.output and ":13: not JSON" in result.output
    assert "McNemar 1 vs 10: 2 right only at 1, 1 right only at 10, exact p = 1" in result.output


@pytest.mark.parametrize("harness", ["niah", "ruler"])
def test_position_results_with_no_readable_row_is_bad_input(tmp_path: Path, harness: str) -> None:
    p = tmp_path / "x.jsonl"
    p.write_text("[]\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["position-results", str(p), "--harness", harness])
    assert result.exit_code == 2 and f"no {harness} row could be read" in result.output


def test_one_item_runs_are_one_column(tmp_path: Path) -> None:
    """New-user finding N17: a NIAH result of one needle printed two columns titled ``runs``."""
    p = tmp_path / "niah.jsonl"
    p.write_text("".join(json.dumps({"depth_percent": d, "score": s, "context_length": 1000}) + "\n"
                         for d, s in ((0, 10), (50, 9), (100, 10), (0, 10), (50, 1), (100, 10))))
    result = CliRunner().invoke(cli, ["position-results", str(p), "--harness", "niah"])
    header = next(line for line in result.output.splitlines() if line.lstrip().startswith("position")).split()
    assert result.exit_code == 0 and header == ["position", "accuracy", "95%", "interval", "(Wilson)", "runs"]
