"""Check configuration: ctxviewer.toml beside the DB and --expected-policy values."""

import pytest

from ctxviewer.assess.checks import config


def test_load_for_db_reads_expected_versions(tmp_path):
    (tmp_path / "ctxviewer.toml").write_text(
        '[expected_policy."*"]\nsupport-policy = "2026-10-03"\n\n'
        '[expected_policy."billing"]\nsupport-policy = "v9"\n', encoding="utf-8")
    cfg = config.load_for_db(tmp_path / "traces.db")
    assert cfg.expected_version("support-assistant", "support-policy") == "2026-10-03"
    assert cfg.expected_version("billing", "support-policy") == "v9"
    assert cfg.expected_version("billing", "other") is None


def test_no_file_is_an_empty_config(tmp_path):
    assert config.load_for_db(tmp_path / "traces.db") == config.CheckConfig()


def test_bad_file_names_the_file(tmp_path):
    (tmp_path / "ctxviewer.toml").write_text("[expected_policy\n", encoding="utf-8")
    with pytest.raises(ValueError, match="ctxviewer.toml: not valid TOML"):
        config.load_for_db(tmp_path / "x.db")
    (tmp_path / "ctxviewer.toml").write_text('[expected_policy."*"]\np = 3\n', encoding="utf-8")
    with pytest.raises(ValueError, match='expected_policy."\\*" must map policy ids to version strings'):
        config.load_for_db(tmp_path / "x.db")


def test_parse_expected():
    assert config.parse_expected(["a=1", " b = v2 "]) == {"a": "1", "b": "v2"}
    with pytest.raises(ValueError, match="'a' is not ID=VERSION"):
        config.parse_expected(["a"])
