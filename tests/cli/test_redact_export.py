"""Issue 12, redacted export: ``ctxviewer export DB --redact RULES -o FILE`` removes and masks what
the rules say, lists every redaction before writing, and marks each affected trace so the viewer
says exact replay is impossible."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from factories import make_trace

from ctxviewer.cli import cli
from ctxviewer.pipeline.importing import import_into
from ctxviewer.pipeline.stored_facts import with_facts
from ctxviewer.present.request_body import request_notice
from ctxviewer.report.redact import load_rules, redact
from ctxviewer.store import TraceStore

KEY = "sk-proj-abcdefghijklmnop1234"


def _db(tmp_path: Path) -> Path:
    t = make_trace(trace_id="r1", user_id="u-42", session_id="s-7",
                   user_request=f"mail ann@example.com, my key is {KEY}",
                   attributes={"user.email": "ann@example.com", "order": "order 123456"})
    clean = make_trace(trace_id="r2", user_id=None, session_id=None)
    db = tmp_path / "t.db"
    with TraceStore.create(db) as store:
        store.add(with_facts([t, clean]))
    return db


def test_redacted_export_lists_every_redaction_and_marks_the_trace(tmp_path: Path) -> None:
    db = _db(tmp_path)
    rules = tmp_path / "rules.toml"
    rules.write_text('[redact]\nbuiltin = ["user-ids", "emails", "api-keys"]\nfields = ["attributes.user.email"]\n'
                     '[[redact.pattern]]\nname = "order number"\nregex = "order \\\\d{6,}"\nmask = "[order]"\n')
    out = tmp_path / "shared.jsonl"
    res = CliRunner().invoke(cli, ["export", str(db), "--redact", str(rules), "-o", str(out), "--format", "native"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == [
        "redact: trace r1: user_id: removed",
        "redact: trace r1: session_id: removed",
        "redact: trace r1: attributes.user.email: removed",
        "redact: trace r1: user_request: 1 e-mail address(s) masked, 1 API key(s) masked",
        "redact: trace r1: attributes.order: 1 order number(s) masked",
        "5 redaction(s) in 1 of 2 trace(s)",
        f"exported 2 trace(s) from {db} to {out} (native)",
    ]
    text = out.read_text()
    assert "ann@example.com" not in text and KEY not in text and "u-42" not in text and "123456" not in text
    back = tmp_path / "back.db"
    assert import_into(back, [out]).imported == 2
    with TraceStore.open(back) as store:
        r1, r2 = store.load("r1"), store.load("r2")
    assert r1.user_request == "mail [email], my key is [api-key]" and r1.user_id is None
    assert dict(r1.attributes) == {"order": "[order]"}
    assert request_notice(r1.request) == ("serialized request not recorded; exact replay impossible: fields user_id, "
                                          "session_id, attributes.user.email, user_request, attributes.order redacted")
    assert r2.request.redacted_fields == () and r2.request.exact_replay is None  # untouched
    shown = CliRunner().invoke(cli, ["show", str(back), "r1"]).stdout
    assert "exact replay impossible: fields user_id, session_id, attributes.user.email" in shown


def test_builtin_names_and_otlp_and_bad_rules(tmp_path: Path) -> None:
    db = _db(tmp_path)
    out = tmp_path / "x.otlp.json"
    res = CliRunner().invoke(cli, ["export", str(db), "r1", "--redact", "emails", "-o", str(out)])
    assert res.exit_code == 0 and "ann@example.com" not in out.read_text()
    assert json.loads(out.read_text())["resourceSpans"]
    res = CliRunner().invoke(cli, ["export", str(db), "--redact", "emails,phone", "-o", str(tmp_path / "y.json")])
    assert res.exit_code == 2 and "'phone' is not a built-in rule (user-ids, emails, api-keys)" in res.output


def test_redact_keeps_an_untouched_trace_and_adds_to_earlier_redactions() -> None:
    t = make_trace(user_id=None, session_id=None)
    assert redact(t, load_rules("user-ids")) == (t, [])
    t = make_trace(user_request="a@b.io")
    t = replace(t, request=replace(t.request, redacted_fields=("messages[0]",)))
    done, found = redact(t, load_rules("emails"))
    assert [str(r) for r in found] == [f"trace {t.trace_id}: user_request: 1 e-mail address(s) masked"]
    assert done.request.redacted_fields == ("messages[0]", "user_request") and done.request.exact_replay is False


def test_a_removed_fields_value_is_masked_wherever_else_it_is_written(tmp_path: Path) -> None:
    """A new user's finding: --redact user-ids removed user_id but cust-20417 stayed in the
    evidence text and in the kept request body of the budget-8k sample (4 times)."""
    samples = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
    out = tmp_path / "red.json"
    res = CliRunner().invoke(cli, ["export", str(samples), "budget-8k", "--redact", "emails,user-ids", "-o", str(out),
                                   "--format", "native"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[:5] == [
        "redact: trace budget-8k: user_id: removed",
        "redact: trace budget-8k: session_id: removed",
        "redact: trace budget-8k: request.content: 2 user_id value(s) masked",
        "redact: trace budget-8k: items[16].content: 1 user_id value(s) masked",
        "4 redaction(s) in 1 of 1 trace(s)",
    ]
    text = out.read_text()
    assert "cust-20417" not in text and "sess-7f3c21" not in text
    assert text.count("[user_id removed]") == 3  # twice in the request body, once in ORD-NW-4418207


def test_a_field_no_trace_has_is_warned_about(tmp_path: Path) -> None:
    db = _db(tmp_path)
    rules = tmp_path / "rules.toml"
    rules.write_text('[redact]\nfields = ["nonexistent.field"]\n')
    res = CliRunner().invoke(cli, ["export", str(db), "--redact", str(rules), "-o", str(tmp_path / "o.json")])
    assert res.exit_code == 0
    assert ("warning: redact: field nonexistent.field is in no exported trace (not recorded, or the path is misspelt: "
            "paths are those of the native format, e.g. user_id, attributes.user.email)") in res.stderr


SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces" / "samples.db"
PATTERN = "[[redact.pattern]] with name, regex, mask"


@pytest.mark.parametrize(("toml", "problem"), [
    ("fields = 5", "redact.fields must be a list of dotted field paths (user_id, attributes.user.email), like "
                   "[\"...\"], not 5"),
    ('builtin = "emails"', "redact.builtin must be a list of rule names (user-ids, emails, api-keys), like [\"...\"], "
                           "not 'emails'"),
    ('builtin = ["mails"]', "redact.builtin: 'mails' is not a built-in rule (user-ids, emails, api-keys)"),
    ('pattern = ["(unclosed"]', f"redact.pattern[0] must be a table ({PATTERN}), not '(unclosed'"),
    ('pattern = "x"', f"redact.pattern must be tables ({PATTERN}), not 'x'"),
    ('[[redact.pattern]]\nname = "order"', "redact.pattern[0]: needs regex = \"...\" (a regular expression), not None"),
    ('[[redact.pattern]]\nregex = "(order"', "redact.pattern[0]: regex '(order' is not a regular expression: "
                                             "missing ), unterminated subpattern at position 0"),
    ('[[redact.pattern]]\nregex = "x"\nmask = 3', "redact.pattern[0]: name and mask must be strings"),
])
def test_a_rules_file_of_the_wrong_shape_names_the_key_and_what_it_should_hold(
        tmp_path: Path, toml: str, problem: str) -> None:
    """New user (wt-nu): `fields = 5` was a TypeError traceback (exit 1), a pattern given as a string
    "'str' object has no attribute 'get'"."""
    rules = tmp_path / "rules.toml"
    rules.write_text(f"[redact]\n{toml}\n")
    res = CliRunner().invoke(cli, ["export", str(SAMPLES), "-o", str(tmp_path / "out.json"), "--redact", str(rules)])
    assert (res.exit_code, res.stdout, res.stderr) == (2, "", f"Error: {rules}: {problem}\n")
    assert not (tmp_path / "out.json").exists()


def test_a_rules_file_that_is_missing_or_not_text_says_so(tmp_path: Path) -> None:
    from ctxviewer.report.redact import RulesError

    with pytest.raises(RulesError) as err:
        load_rules(str(tmp_path / "nope.toml"))
    assert str(err.value) == f"{tmp_path / 'nope.toml'}: no such file"  # not "not a rules file"
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"[re\xff\xfe")
    with pytest.raises(RulesError) as err:
        load_rules(str(binary))
    assert str(err.value) == f"{binary}: cannot read redaction rules: not UTF-8 text (invalid start byte at byte 3)"
    with pytest.raises(RulesError) as err:
        load_rules("emails,nonsense")
    assert str(err.value).startswith("emails,nonsense: not a rules file, and 'nonsense' is not a built-in rule")
