"""genai-prices' answers kept on disk (ctxviewer.tokens.price_memo): a second process answers a
trace's price, window, version and data date without importing the library, with the same values,
and never from another installed package's data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

import pytest

from ctxviewer.model.trace import Usage
from ctxviewer.tokens import catalogue, cost, price_memo

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def memo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CTXVIEWER_PRICE_MEMO", "1")
    monkeypatch.setenv("CTXVIEWER_CACHE_DIR", str(tmp_path))
    price_memo.reset()
    yield tmp_path / price_memo.FILE_NAME
    price_memo.reset()


def _fail() -> object:
    raise AssertionError("computed although kept")


def test_an_answer_is_kept_for_the_next_process_and_read_back(memo: Path) -> None:
    assert price_memo.answer("k", lambda: [1, "a"]) == [1, "a"]
    assert not memo.exists()  # written at exit
    price_memo.flush()
    assert json.loads(memo.read_text())["entries"] == {"k": [1, "a"]}
    price_memo.reset()
    assert price_memo.answer("k", _fail) == [1, "a"]


def test_another_installed_package_or_a_broken_file_is_never_read(memo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    price_memo.answer("k", lambda: 1)
    price_memo.flush()
    price_memo.reset()
    monkeypatch.setattr(price_memo, "identity", lambda: ["/elsewhere/genai_prices", [[1, 2]]])
    assert price_memo.answer("k", lambda: 2) == 2
    price_memo.reset()
    memo.write_text("{not json")
    monkeypatch.undo()
    monkeypatch.setenv("CTXVIEWER_PRICE_MEMO", "1")
    monkeypatch.setenv("CTXVIEWER_CACHE_DIR", str(memo.parent))
    assert price_memo.answer("k", lambda: 3) == 3
    price_memo.flush()
    assert json.loads(memo.read_text())["entries"] == {"k": 3}


def test_off_computes_every_time(memo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXVIEWER_PRICE_MEMO", "0")
    price_memo.reset()
    assert [price_memo.answer("k", lambda n=n: n) for n in (1, 2)] == [1, 2]
    price_memo.flush()
    assert not memo.exists()


def test_the_file_keeps_the_newest_entries_only(memo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(price_memo, "MAX_ENTRIES", 3)
    for n in range(5):
        price_memo.answer(f"k{n}", lambda n=n: n)
    price_memo.flush()
    assert json.loads(memo.read_text())["entries"] == {"k2": 2, "k3": 3, "k4": 4}


def test_a_kept_price_window_version_and_date_equal_the_librarys(memo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    usage = Usage(input_tokens=6118, output_tokens=378, cached_input_tokens=1024)
    sent = datetime(2026, 11, 9, 16, 42, tzinfo=timezone.utc)
    cost.data_date.cache_clear()
    fresh = (cost.call_cost("openai", "gpt-4o-mini", sent, usage), catalogue._genai_prices("openai", "gpt-4o"),
             catalogue.package_version(), cost.data_date())
    price_memo.flush()
    price_memo.reset()
    cost.data_date.cache_clear()
    for module, name in ((cost, "_price_now"), (cost, "_data_date"), (catalogue, "_window"),
                         (catalogue, "_installed_version")):
        monkeypatch.setattr(module, name, _fail)
    kept = (cost.call_cost("openai", "gpt-4o-mini", sent, usage), catalogue._genai_prices("openai", "gpt-4o"),
            catalogue.package_version(), cost.data_date())
    cost.data_date.cache_clear()
    assert kept == fresh and isinstance(kept[0].total, Decimal) and kept[0].total > 0
    assert kept[1] == ("gpt-4o", 128_000) and kept[3] is not None


def test_a_second_show_imports_no_price_library_and_says_the_same(tmp_path: Path) -> None:
    env = {**os.environ, "CTXVIEWER_PRICE_MEMO": "1", "CTXVIEWER_CACHE_DIR": str(tmp_path)}
    code = ("import sys, io, contextlib; from ctxviewer.cli import main; out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            "    try: main(['show', sys.argv[1], 'budget-8k', '--json'])\n"
            "    except SystemExit: pass\n"
            "print(sorted(m for m in ('genai_prices', 'pydantic') if m in sys.modules)); print(out.getvalue())")
    db = str(ROOT / "sample_traces" / "samples.db")
    runs = [subprocess.run([sys.executable, "-c", code, db], capture_output=True, text=True, env=env, check=True).stdout
            for _ in range(2)]
    first, second = (r.split("\n", 1) for r in runs)
    assert (first[0], second[0]) == ("['genai_prices', 'pydantic']", "[]")
    assert first[1] == second[1] and json.loads(second[1])["cost"]["usd"] == 0.0011445


def test_a_change_to_ctxviewers_own_pricing_code_is_another_identity(memo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review M1: the memo served answers of the old lookup after ctxviewer's own code changed."""
    before = price_memo.identity()
    real = os.stat

    def touched(path: object, *a: object, **kw: object) -> os.stat_result:
        st = real(path, *a, **kw)  # type: ignore[arg-type]
        if str(path).endswith("model_names.py"):
            return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid,
                                   st.st_size + 1, st.st_atime, st.st_mtime, st.st_ctime))
        return st

    monkeypatch.setattr(price_memo.os, "stat", touched)
    assert before is not None and price_memo.identity() != before


def test_each_installation_keeps_its_own_memo_file(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Review finding: two virtual environments sharing one cache folder rewrote the one 2.6 MB
    prefilter file at every switch; each installation now has its own name."""
    import sys

    from ctxviewer.util.user_cache import install_name

    here = install_name("scanner-prefilter", "bin")
    assert here.startswith("scanner-prefilter-") and here.endswith(".bin") and len(here) == len("scanner-prefilter-") + 12
    monkeypatch.setattr(sys, "prefix", sys.prefix + "-other-venv")
    assert install_name("scanner-prefilter", "bin") != here
