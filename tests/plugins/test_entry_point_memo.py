"""Whether any distribution has ctxviewer plug-ins, remembered between processes
(ctxviewer.util.entry_point_memo): a second process answers from the file without looking;
a distribution added to a ``sys.path`` folder changes the folder's time and is found; a folder
changed in the last two seconds is not remembered; a damaged file is ignored; off, nothing is
kept; a registry whose group is known empty does not look entry points up."""

from __future__ import annotations

import importlib.metadata
import json
import os
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from ctxviewer.util import entry_point_memo
from ctxviewer.util.plugins import PluginRegistry

HOUR_NS = 3_600_000_000_000


def _dist(site: Path, name: str, group: str, value: str) -> None:
    dist = site / f"{name}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{group}]\n{name} = {value}\n")


def _age(folder: Path, hours: int = 1) -> None:
    """Set ``folder``'s modification time ``hours`` back (no longer "racy")."""
    then = time.time_ns() - hours * HOUR_NS
    os.utime(folder, ns=(then, then))


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A ``sys.path`` folder with one distribution that has a ``ctxviewer.checks`` entry point;
    the memo on, its file in ``tmp_path/cache``."""
    folder = tmp_path / "site"
    folder.mkdir()
    _dist(folder, "somecheck", "ctxviewer.checks", "somecheck_mod:CHECK")
    _age(folder)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setenv("CTXVIEWER_ENTRY_POINT_MEMO", "1")
    monkeypatch.setenv("CTXVIEWER_CACHE_DIR", str(tmp_path / "cache"))
    entry_point_memo.reset()
    yield folder
    entry_point_memo.reset()


def _kept(site: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((site.parent / "cache" / entry_point_memo.FILE_NAME).read_text("utf-8"))
    return doc


def _no_look_up(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("entry points looked up")
    monkeypatch.setattr(entry_point_memo, "_found", refuse)
    monkeypatch.setattr(importlib.metadata, "entry_points", refuse)


def test_a_second_process_answers_from_the_file(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not entry_point_memo.known_empty("ctxviewer.checks")
    assert entry_point_memo.known_empty("ctxviewer.importers") and entry_point_memo.known_empty("ctxviewer.scanner_rules")
    assert not entry_point_memo.known_empty("test.greeters")  # not ours: always looked up
    kept = _kept(site)
    assert kept["groups"]["ctxviewer.checks"] == [["somecheck", "somecheck_mod:CHECK"]]
    assert [str(site), os.stat(site).st_mtime_ns] in kept["identity"][2]

    entry_point_memo.reset()
    _no_look_up(monkeypatch)
    assert entry_point_memo.known_empty("ctxviewer.importers") and not entry_point_memo.known_empty("ctxviewer.checks")


def test_an_installed_distribution_changes_the_folder_time_and_is_found(site: Path) -> None:
    assert entry_point_memo.known_empty("ctxviewer.importers")
    before = os.stat(site).st_mtime_ns
    _dist(site, "someimporter", "ctxviewer.importers", "someimporter_mod:IMPORTER")
    assert os.stat(site).st_mtime_ns != before  # the claim the memo rests on
    entry_point_memo.reset()
    assert not entry_point_memo.known_empty("ctxviewer.importers")  # looked up again: found
    assert _kept(site)["groups"]["ctxviewer.importers"] == []  # changed just now: not remembered yet
    _age(site, hours=2)
    entry_point_memo.reset()
    assert not entry_point_memo.known_empty("ctxviewer.importers")
    assert _kept(site)["groups"]["ctxviewer.importers"] == [["someimporter", "someimporter_mod:IMPORTER"]]


def test_a_damaged_file_is_ignored_and_replaced(site: Path) -> None:
    path = site.parent / "cache" / entry_point_memo.FILE_NAME
    path.parent.mkdir()
    path.write_text('{"identity": [1, ', encoding="utf-8")
    assert entry_point_memo.known_empty("ctxviewer.importers")
    assert _kept(site)["groups"]["ctxviewer.checks"] == [["somecheck", "somecheck_mod:CHECK"]]


def test_turned_off_nothing_is_kept_and_every_group_is_looked_up(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXVIEWER_ENTRY_POINT_MEMO", "0")
    assert not entry_point_memo.known_empty("ctxviewer.importers")
    assert not (site.parent / "cache" / entry_point_memo.FILE_NAME).exists()


def test_a_registry_of_a_group_known_empty_does_not_look_entry_points_up(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert entry_point_memo.known_empty("ctxviewer.scanner_rules")  # the memo written
    entry_point_memo.reset()
    _no_look_up(monkeypatch)
    reg: PluginRegistry[str] = PluginRegistry("greeting", key=str, shape=str, builtin=("textwrap:__name__",),
                                              group="ctxviewer.scanner_rules")
    assert reg.all() == ["textwrap"] and reg.load_problems == []
