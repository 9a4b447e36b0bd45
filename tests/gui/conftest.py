"""Fixtures for the GUI tests: temporary trace databases and isolated QSettings."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from factories import make_trace
from PySide6.QtCore import QSettings

from ctxviewer.model.trace import Endpoint, Status
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import TraceStore

OFFSCREEN_NOISE = r"This plugin does not support propagateSizeHints\(\)"
"""Printed by Qt's offscreen platform whenever a dialog opens; not a problem of ours."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/gui" in item.nodeid.replace("\\", "/"):
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))


T0 = datetime(2026, 1, 5, 8, 0, 0, tzinfo=timezone.utc)


def variants() -> list:
    """Four traces that differ in every trace-list column."""
    base = make_trace()
    return [
        replace(base, trace_id="alpha", created=T0),
        replace(base, trace_id="bravo", created=T0 + timedelta(minutes=1),
                endpoint=replace(base.endpoint, model="claude-sonnet-4", provider="anthropic")),
        replace(base, trace_id="charlie", created=T0 + timedelta(minutes=2),
                endpoint=Endpoint(provider="openai", model="gpt-4o-mini")),  # capacity not recorded
        replace(base, trace_id="delta", created=None,
                items=tuple(replace(i, status=Status.RETAINED, omission_reason=None,
                                    position=i.position or 99) for i in base.items)),
    ]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database with the four :func:`variants`."""
    path = tmp_path / "traces.db"
    with TraceStore.create(path) as st:
        st.add(with_facts(variants()))
    return path


@pytest.fixture
def big_db(tmp_path: Path) -> Path:
    """A database with 450 traces ``t-000`` .. ``t-449`` one minute apart."""
    path = tmp_path / "big.db"
    base = make_trace()
    with TraceStore.create(path) as st:
        st.add(with_facts(replace(base, trace_id=f"t-{i:03d}", created=T0 + timedelta(minutes=i)) for i in range(450)))
    return path


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    """QSettings in a temporary INI file, so tests never touch the user's recent files."""
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
