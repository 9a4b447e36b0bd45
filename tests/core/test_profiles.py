"""Endpoint profiles: model names -> encoding and limits, user-extendable, never fatal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxviewer.tokens import profiles
from ctxviewer.tokens.counting import UnknownEncodingError
from ctxviewer.tokens.profiles import ProfileError, resolve


@pytest.fixture(autouse=True)
def _no_user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(profiles.PROFILES_ENV, str(tmp_path / "absent.json"))


@pytest.mark.parametrize("model, profile, encoding", [
    ("gpt-4o", "gpt-4o", "o200k_base"),
    ("gpt-4o-2024-08-06", "gpt-4o", "o200k_base"),
    ("GPT-4o-mini", "gpt-4o-mini", "o200k_base"),
    ("gpt-4", "gpt-4", "cl100k_base"),
    ("gpt-4-0613", "gpt-4", "cl100k_base"),
    ("gpt-4-1106-preview", "gpt-4-turbo", "cl100k_base"),
    ("gpt-3.5-turbo-0125", "gpt-3.5-turbo", "cl100k_base"),
    ("gpt-oss-120b", "gpt-oss", "o200k_harmony"),
    ("ft:gpt-3.5-turbo-0613:acme::8abc", "gpt-3.5-turbo", "cl100k_base"),
])
def test_known_names(model: str, profile: str, encoding: str) -> None:
    r = resolve(model)
    assert (r.profile.name, r.encoding, r.assumed) == (profile, encoding, False)


def test_fine_tuned_name_says_its_base() -> None:
    assert resolve("ft:gpt-4o-2024-08-06:acme::x").reason.startswith("fine-tuned from gpt-4o-2024-08-06; ")


@pytest.mark.parametrize("model", [None, "", "my-azure-deployment", "ft:", "ft:unknown:x", "🤖"])
def test_unknown_names_are_assumed(model: str | None) -> None:
    r = resolve(model)
    assert r.assumed and r.encoding == "o200k_base" and r.label == "o200k_base (assumed)"


def test_encoding_override() -> None:
    r = resolve("my-deploy", "cl100k_base")
    assert (r.encoding, r.assumed) == ("cl100k_base", False)
    assert "chosen by the user" in r.reason
    with pytest.raises(UnknownEncodingError):
        resolve("gpt-4o", "p50k_base")


def test_claude_is_a_cross_vendor_estimate() -> None:
    r = resolve("claude-3-5-sonnet-20241022")
    assert r.profile.estimate and r.label == "cl100k_base (cross-vendor estimate)"


def test_user_profiles_come_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "profiles.json"
    f.write_text(json.dumps({"profiles": [
        {"name": "house", "patterns": ["house-*", "gpt-4o"], "encoding": "cl100k_base", "capacity": 32000}]}))
    monkeypatch.setenv(profiles.PROFILES_ENV, str(f))
    assert resolve("house-large").profile.capacity == 32000
    assert resolve("gpt-4o").profile.name == "house"
    assert resolve("gpt-4o-mini").profile.name == "gpt-4o-mini"


def test_bad_user_file_names_file_and_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "profiles.json"
    f.write_text(json.dumps({"profiles": [{"patterns": ["x*"]}]}))
    monkeypatch.setenv(profiles.PROFILES_ENV, str(f))
    with pytest.raises(ProfileError, match=r"profiles.json: profile '\?'"):
        resolve("x1")


def test_tolerance() -> None:
    prof = resolve("gpt-4o").profile
    assert prof.tolerance(100) == 8 and prof.tolerance(10_000) == 200
