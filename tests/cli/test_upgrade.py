"""``ctxviewer upgrade``: an older database is never upgraded in place; an upgraded copy is."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ctxviewer.cli import cli
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.store import SCHEMA_VERSION

SCHEMA_1 = Path(__file__).resolve().parents[1] / "data" / "store" / "schema-1.db"


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_list_of_an_old_database_says_so_and_offers_upgrade(tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    old.write_bytes(SCHEMA_1.read_bytes())
    code, _, err = run("list", str(old))
    assert code == 2
    assert f"{old}: uses an older schema (1; current {SCHEMA_VERSION})" in err
    assert f"`ctxviewer upgrade {old} -o NEW.db`" in err
    assert old.read_bytes() == SCHEMA_1.read_bytes()


def test_upgrade_writes_a_copy_with_back_filled_facts(tmp_path: Path) -> None:
    old, new = tmp_path / "old.db", tmp_path / "new.db"
    old.write_bytes(SCHEMA_1.read_bytes())
    code, out, err = run("upgrade", str(old), "-o", str(new))
    assert code == 0, err
    assert out.strip() == f"wrote {new}: schema 1 -> {SCHEMA_VERSION}, 2 trace(s); {old} is unchanged"
    assert old.read_bytes() == SCHEMA_1.read_bytes()
    rows = json.loads(run("list", str(new), "--json")[1])
    assert [(r["trace_id"], r["state"], r["fits"], r["margin"]) for r in rows] == [
        ("trace-4471-delivery", "ok", True, 6601), ("trace-rich", "failure", True, 6580)]  # its cited_ids validation failed
    code, _, err = run("upgrade", str(old), "-o", str(new))
    assert code == 2 and f"{new}: already exists" in err


def test_upgrade_of_a_current_database_reassesses_stale_facts(tmp_path: Path) -> None:
    import sqlite3
    from contextlib import closing

    from factories import make_trace

    from ctxviewer.store import TraceStore

    cur, new = tmp_path / "cur.db", tmp_path / "new.db"
    with TraceStore.create(cur) as store:
        store.add(with_facts([make_trace()]))
    with closing(sqlite3.connect(cur)) as conn, conn:  # facts from an older set of checks
        conn.execute("UPDATE traces SET state = 'failure', verdict = 'stale'")
    code, out, err = run("upgrade", str(cur), "-o", str(new))
    assert code == 0, err
    assert out.strip() == (f"wrote {new}: {cur} is already at schema {SCHEMA_VERSION}; copied with its 1 trace(s) "
                           f"re-assessed; {cur} is unchanged")
    (row,) = json.loads(run("list", str(new), "--json")[1])
    assert (row["state"], row["verdict"]) == ("ok", "fits, 6,601 tokens margin")


SCHEMA_3 = SCHEMA_1.with_name("schema-3.db")
"""Written by ctxviewer at schema 3 (commit 067e70e) from schema-3.otlp.json (an ``invoke_agent
planner`` span over a chat span that ended in error and one that never ended, and a chat span
of agent ``writer`` that ended ok) and schema-3.jsonl (a native trace with
``gen_ai.agent.name = triage``)."""


def test_upgrade_of_a_schema_3_database_back_fills_span_status_agent_and_operation(tmp_path: Path) -> None:
    old, new = tmp_path / "old.db", tmp_path / "new.db"
    old.write_bytes(SCHEMA_3.read_bytes())
    code, _, err = run("list", str(old))
    assert code == 2 and f"{old}: uses an older schema (3; current {SCHEMA_VERSION})" in err
    code, out, err = run("upgrade", str(old), "-o", str(new))
    assert code == 0, err
    assert out.strip() == f"wrote {new}: schema 3 -> {SCHEMA_VERSION}, 4 trace(s); {old} is unchanged"
    assert old.read_bytes() == SCHEMA_3.read_bytes()
    rows = json.loads(run("list", str(new), "--json")[1])
    t = "4bf92f3577b34da6a3ce929d0e0e4736:00000000000000"
    assert [(r["trace_id"], r["span_status"], r["status_message"], r["agent"], r["operation"]) for r in rows] == [
        (t + "b1", "error", "429 rate limited", None, "chat"),
        (t + "b2", "unfinished", None, None, "chat"),
        (t + "b3", "ok", None, None, "chat"),
        # schema 3 kept no agent of an OTel span (re-import for it); a native trace's attributes did
        ("native-with-agent", None, None, "triage", "chat"),
    ]

    def ids(flt: str) -> list[str]:
        return [r["trace_id"] for r in json.loads(run("list", str(new), "--json", "--filter", flt)[1])]

    assert ids("status == error") == [t + "b1"]
    assert ids("status == unfinished") == ids('status == "never ended"') == [t + "b2"]
    assert ids("agent == triage") == ids("agent ~ TRI") == ["native-with-agent"]
    assert ids("operation == chat and not status") == ["native-with-agent"]
    text = run("list", str(new), "--wide")[1]
    assert "Span status" in text and "Agent / operation" in text and "never ended" in text


def test_import_into_an_old_database_is_refused_and_leaves_it_untouched(tmp_path: Path) -> None:
    """An older schema is never upgraded in place by ``import -o``: one line naming both schema
    versions and the upgrade command, exit 2, the file byte-identical and no journal beside it."""
    old = tmp_path / "old.db"
    old.write_bytes(SCHEMA_1.read_bytes())
    samples = Path(__file__).resolve().parents[2] / "sample_traces" / "traces.jsonl"
    code, out, err = run("import", str(samples), "-o", str(old))
    assert code == 2
    assert err.strip() == (
        f"Error: {old}: uses an older schema (1; current {SCHEMA_VERSION}), so it is not written into "
        f"(it is never upgraded in place); write an upgraded copy with `ctxviewer upgrade {old} -o NEW.db` "
        "and use that")
    assert old.read_bytes() == SCHEMA_1.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.db"]


def test_whatif_save_into_an_old_database_is_refused_and_leaves_it_untouched(tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    old.write_bytes(SCHEMA_1.read_bytes())
    samples = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
    code, _, err = run("whatif", str(samples), "budget-8k", "--capacity", "6000", "--save", str(old))
    assert code == 2
    assert f"Error: {old}: uses an older schema (1; current {SCHEMA_VERSION}), so it is not written into" in err
    assert old.read_bytes() == SCHEMA_1.read_bytes()


def test_upgrade_names_each_stage_on_stderr(tmp_path: Path) -> None:
    from ctxviewer.store.migrations import STEPS

    old, new = tmp_path / "old.db", tmp_path / "new.db"
    old.write_bytes(SCHEMA_1.read_bytes())
    code, _, err = run("upgrade", str(old), "-o", str(new))
    assert code == 0, err
    pending = [name for version, name in STEPS if version > 1]
    assert err.splitlines() == [f"upgrade: copying {old}"] + [
        f"upgrade: schema step {n} of {len(pending)}: {name}" for n, name in enumerate(pending, 1)] + [
        "upgrade: re-assessing every trace"]  # schema 1 stored no facts: the back-fill after the steps


def test_upgrade_to_standard_output_is_refused_and_writes_no_file_named_dash(tmp_path: Path,
                                                                            monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """newuser s5 #5: ``-o -`` created a database file named ``-``."""
    old = tmp_path / "old.db"
    old.write_bytes(SCHEMA_1.read_bytes())
    monkeypatch.chdir(tmp_path)
    code, out, err = run("upgrade", str(old), "-o", "-")
    assert (code, out) == (2, "")
    assert err.strip() == ("Error: -o -: upgrade writes a database file, not a stream to standard output; "
                           "name a new file, e.g. -o upgraded.db")
    assert not (tmp_path / "-").exists()


def test_upgrade_into_a_folder_it_cannot_write_is_status_1_without_errno_or_temporary_name(
        tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """newuser s5 #10: status 2 and ``[Errno 30] ... '.u.db.upgrading-gcvn9kcu'``; an output that
    cannot be written is status 1, as for export, report and import."""
    import os
    import sqlite3

    old = tmp_path / "old.db"
    old.write_bytes(SCHEMA_1.read_bytes())
    ro = tmp_path / "ro"
    ro.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == ro and mode == os.W_OK else real(p, mode))
    code, _, err = run("upgrade", str(old), "-o", str(ro / "u.db"))
    assert code == 1
    assert err.strip() == f"Error: {ro / 'u.db'}: cannot write: folder {ro} is not writable (read-only file system or no permission)"
    monkeypatch.setattr(os, "access", real)

    real_connect = sqlite3.connect

    def refuse(target, *a, **kw):  # type: ignore[no-untyped-def]
        if ".upgrading-" in str(target):
            raise sqlite3.OperationalError("unable to open database file")
        return real_connect(target, *a, **kw)

    monkeypatch.setattr(sqlite3, "connect", refuse)
    code, _, err = run("upgrade", str(old), "-o", str(ro / "u.db"))
    assert code == 1
    assert err.strip().splitlines()[-1] == (f"Error: {ro / 'u.db'}: cannot write the upgraded copy: "
                                            "unable to open database file")
    assert list(ro.iterdir()) == []


def test_an_os_error_is_worded_without_its_errno_and_file_name() -> None:
    from ctxviewer.cli.upgrade_cmd import _os_reason

    assert _os_reason("cannot write the copy: [Errno 30] Read-only file system: '/x/.n.db.upgrading-k3'") == \
        "read-only file system"
    assert _os_reason("cannot write the copy: disk I/O error") == "disk I/O error"
