"""The window's header and chart say of a ReAct observation what ``show`` says
(tests/importers/test_react_observations.py): the user request is the user's own words (msg-1,
12 tokens), the observation msg-3 history -- or, with no words of the user's, not recorded."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.gui.screenshot import screenshot_window

PATH = Path(__file__).resolve().parents[1] / "data" / "react" / "crewai-react.spans.json"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("react") / "react.db"
    res = CliRunner().invoke(cli, ["import", str(PATH), "-o", str(path)])
    assert res.exit_code == 0, res.output
    return path


@pytest.mark.parametrize(("trace_id", "question", "used"), [
    ("obs-user:obs-user-4", "msg-1 (the user's own words); msg-3 is only the output of tool search (span obs-user-3) "
                            "sent back as a user message: history, not the user request", {"sys": 26, "hist": 47, "user": 12}),
    ("obs-only:obs-only-4", "not recorded: no user message holds the user's own words (msg-2 is only the output of "
                            "tool search (span obs-only-3) sent back as a user message: history)", {"sys": 20, "hist": 49})])
def test_the_window_names_the_user_request_as_show_does(qapp, db: Path, trace_id: str, question: str,  # type: ignore[no-untyped-def]
                                                        used: dict[str, int]) -> None:
    with screenshot_window(db, trace_id) as w:
        assert dict(w.detail.rows())["Question"] == question
        assert {s.key: s.tokens for s in w.chart.segments()["used"] if s.key != "margin"} == used
