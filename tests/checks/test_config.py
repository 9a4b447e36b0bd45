"""Check configuration: ctxviewer.toml beside the DB and --expected-policy values."""

import pytest

from ctxviewer.assess import config


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


def test_the_user_sets_a_context_window_per_model_and_per_trace(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``[context_window.models]`` stands in for the model catalogue on traces that record no C;
    ``[context_window.traces]`` is the user's word for one trace, over what it recorded."""
    from dataclasses import replace

    from factories import make_trace

    from ctxviewer.assess.assessment import assess
    from ctxviewer.assess.context import context_for_db
    from ctxviewer.model.trace import Endpoint

    (tmp_path / "ctxviewer.toml").write_text(
        '[context_window.models]\n"gpt-4o-mini*" = 9000\n\n[context_window.traces]\n"pinned" = 7000\n', encoding="utf-8")
    ctx = context_for_db(tmp_path / "t.db")
    bare = replace(make_trace(), endpoint=Endpoint(provider="openai", model="gpt-4o-mini"), budget={})
    a = assess(bare, ctx)
    assert (a.capacity.capacity, a.capacity.capacity_source) == (
        9000, "assumed (ctxviewer.toml: context_window for gpt-4o-mini*)")
    assert assess(bare).capacity.capacity == 128_000  # without the file: the model catalogue's
    recorded = replace(bare, endpoint=replace(bare.endpoint, capacity=8000))
    assert assess(recorded, ctx).capacity.capacity == 8000  # a recorded C wins over a model setting
    pinned = replace(recorded, trace_id="pinned")
    b = assess(pinned, ctx)
    assert (b.capacity.capacity, b.capacity.capacity_source, b.verdict.endswith("(capacity from ctxviewer.toml)")) == (
        7000, "set for this trace in ctxviewer.toml", True)
    assert ctx.fingerprint != context_for_db(tmp_path / "elsewhere" / "t.db").fingerprint


def test_a_context_window_that_is_not_a_positive_integer_names_the_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from ctxviewer.assess.config import load_file

    bad = tmp_path / "ctxviewer.toml"
    bad.write_text('[context_window.models]\n"gpt-4o" = "big"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"ctxviewer.toml: context_window.models must map names to positive token counts"):
        load_file(bad)


def test_a_bad_value_in_ctxviewer_toml_is_named_with_its_key(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """New user (wt-nu): the message named the table but not which entry of it was wrong."""
    import pytest

    from ctxviewer.assess.config import load_file

    bad = tmp_path / "ctxviewer.toml"
    cases = [
        ('[context_window.models]\n"gpt-4o" = 128000\n"my-*" = "big"\n',
         "context_window.models must map names to positive token counts (integers); \"my-*\" is 'big'"),
        ('[context_window.traces]\n"budget-8k" = -5\n',
         "context_window.traces must map names to positive token counts (integers); \"budget-8k\" is -5"),
        ('[context_window.traces]\n"budget-8k" = true\n',
         "context_window.traces must map names to positive token counts (integers); \"budget-8k\" is True"),
        ('[context_window]\nmodels = 5\n',
         "context_window.models must map names to positive token counts (integers); it is 5"),
        ('[expected_policy."*"]\nsupport = 5\n',
         'expected_policy."*" must map policy ids to version strings; "support" is 5'),
    ]
    for text, message in cases:
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError) as err:
            load_file(bad)
        assert str(err.value) == f"{bad}: {message}"
