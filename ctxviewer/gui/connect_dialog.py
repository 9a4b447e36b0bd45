"""File › Connect to ClickHouse…: a team's ClickHouse trace store opened read-only in the window.

:class:`ConnectDialog` asks for host, port, TLS, database, table, user and the time window and
builds the store's URL (:func:`ctxviewer.pipeline.clickhouse.target.build_url`); it has no password
field: the password is read from the environment variable ``CTXVIEWER_CLICKHOUSE_PASSWORD`` (the
dialog says so) and never stored. The fields, never a password, are remembered in the settings.
:class:`ConnectController` adds the menu entry and shows the store through the store interface
(:meth:`WindowApi.set_source`), as the CLI's ``ctxviewer list URL`` reads it (README "Team store").
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ctxviewer.gui.window_api import WindowApi
from ctxviewer.util.visible import one_line

FIELDS = ("host", "port", "tls", "database", "table", "user", "since")
"""The dialog's fields, as remembered under ``clickhouse/`` in the settings (never a password)."""


class ConnectDialog(QDialog):
    """The Connect dialog (module docstring). :meth:`url` is the store's URL for the fields."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Connect to ClickHouse")
        self.host = QLineEdit("localhost")
        self.port = QSpinBox()
        self.port.setRange(1, 65535)
        self.port.setValue(8443)
        self.tls = QCheckBox("TLS (HTTPS)")
        self.tls.setChecked(True)
        self.database = QLineEdit("otel")
        self.table = QLineEdit("otel_traces")
        self.user = QLineEdit("default")
        self.since = QLineEdit("24h")
        self.since.setToolTip("How far back every query reads: 30m, 2h, 7d")
        form = QFormLayout()
        for label, widget in (("Host", self.host), ("Port", self.port), ("", self.tls), ("Database", self.database),
                              ("Table", self.table), ("User", self.user), ("Time window", self.since)):
            form.addRow(label, widget)
        from ctxviewer.pipeline.clickhouse.target import PASSWORD_ENV  # the dialog's, not the window's start-up

        self.note = QLabel(f"Password: read from the environment variable {PASSWORD_ENV}; never stored.")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.error = QLabel("")
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def url(self) -> str:
        """The store's URL for the fields. Raises ``ValueError`` for an empty host, database or
        table, or a bad time window."""
        from ctxviewer.pipeline.clickhouse.target import build_url

        return build_url(self.host.text(), self.port.value(), self.database.text(), self.table.text(),
                         self.user.text(), tls=self.tls.isChecked(), since=self.since.text())

    def values(self) -> dict[str, str]:
        """The fields as text, by :data:`FIELDS` name (for the settings)."""
        return {"host": self.host.text(), "port": str(self.port.value()), "tls": str(int(self.tls.isChecked())),
                "database": self.database.text(), "table": self.table.text(), "user": self.user.text(),
                "since": self.since.text()}

    def set_values(self, values: dict[str, str]) -> None:
        """Fill the fields from :meth:`values`' form (missing or bad entries keep their default)."""
        for name, edit in (("host", self.host), ("database", self.database), ("table", self.table),
                           ("user", self.user), ("since", self.since)):
            if values.get(name):
                edit.setText(values[name])
        if str(values.get("port", "")).isdigit():
            self.port.setValue(int(values["port"]))
        if values.get("tls") in ("0", "1"):
            self.tls.setChecked(values["tls"] == "1")

    def _accept(self) -> None:
        try:
            self.url()
        except ValueError as exc:
            self.error.setText(one_line(str(exc)))
            return
        self.accept()


class ConnectController(QObject):
    """File › Connect to ClickHouse… of ``window``: the dialog, then the store shown read-only."""

    def __init__(self, window: WindowApi) -> None:
        super().__init__(window.host)
        self.window = window
        self.act_connect = QAction("Connect to &ClickHouse…", window.host)
        self.act_connect.setShortcut(QKeySequence("Ctrl+Shift+K"))
        self.act_connect.setStatusTip("Read a team's ClickHouse trace store (otel_traces) in place, read-only")
        self.act_connect.triggered.connect(self.choose_and_connect)
        window.menu("&File").insertAction(window.act_quit, self.act_connect)

    def choose_and_connect(self) -> None:
        """Ask for the store (the last fields filled in) and open it."""
        dialog = ConnectDialog(self.window.host)
        settings = self.window.settings
        dialog.set_values({k: str(settings.value(f"clickhouse/{k}", "") or "") for k in FIELDS})
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        for k, v in dialog.values().items():
            settings.setValue(f"clickhouse/{k}", v)
        self.connect_url(dialog.url())

    def connect_url(self, url: str) -> bool:
        """Open the store at ``url`` read-only and show it; ``False`` (said in a message box naming
        the URL) when it cannot be opened."""
        from ctxviewer.pipeline.clickhouse.source import open_clickhouse
        from ctxviewer.store import StoreError

        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            source = open_clickhouse(url)
        except StoreError as exc:
            self.window.show_error("Cannot connect to ClickHouse", one_line(str(exc)))
            return False
        finally:
            QGuiApplication.restoreOverrideCursor()
        name = f"{source.target.database}.{source.target.table} on {source.target.host}"
        self.window.set_source(source, name, f"{url} (read-only; chat spans of the last "
                               f"{source.target.window}; state computed as rows are shown)", context_path="")
        return True
