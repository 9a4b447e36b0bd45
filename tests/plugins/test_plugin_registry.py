"""The one plug-in registry type (:mod:`ctxviewer.util.plugins`): order, the shape check,
factories, keys, isolation of plug-ins that fail to load, and reloading."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import pytest

from ctxviewer.util.plugins import PluginProblem, PluginRegistry, conform, failure, load_spec


@runtime_checkable
class Greeter(Protocol):
    name: str

    def greet(self) -> str: ...


class Hello:
    def __init__(self, name: str = "hello") -> None:
        self.name = name

    def greet(self) -> str:
        return f"{self.name}!"


def _greeter(obj: Any) -> Greeter:
    result: Greeter = conform(obj, Greeter, "a greeter", "name, greet")
    return result


MODULE = '''
class Hello:
    def __init__(self, name="hello"):
        self.name = name
    def greet(self):
        return self.name + "!"

FIRST = Hello("first")
SECOND = Hello("second")
AGAIN = Hello("first")
NOT_ONE = object()

def factory():
    return Hello("made")

def failing_factory():
    raise RuntimeError("factory failed")
'''


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``greeters_mod`` and a distribution whose entry points (group ``test.greeters``) name a
    built-in's twin, a factory, a class, a failing factory, a non-greeter and a missing module."""
    (tmp_path / "greeters_mod.py").write_text(textwrap.dedent(MODULE))
    dist = tmp_path / "greeters-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: greeters\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent("""
        [test.greeters]
        twin = greeters_mod:AGAIN
        made = greeters_mod:factory
        cls = greeters_mod:Hello
        fails = greeters_mod:failing_factory
        junk = greeters_mod:NOT_ONE
        gone = no_such_greeters:X
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "greeters_mod", raising=False)
    return tmp_path


def test_builtins_then_direct_registrations_then_entry_points_in_order(site: Path) -> None:
    changes: list[int] = []
    reg: PluginRegistry[Greeter] = PluginRegistry(
        "greeter", key=lambda g: g.name, shape=_greeter, builtin=("greeters_mod:FIRST", "greeters_mod:SECOND"),
        group="test.greeters", on_change=lambda: changes.append(1))
    reg.register(Hello("direct"))  # before the first use: kept after the built-ins
    assert not reg.loaded and changes == [1]
    assert reg.keys() == ["first", "second", "direct", "made", "hello"]
    assert [g.greet() for g in reg][:2] == ["first!", "second!"]
    assert [str(p) for p in reg.load_problems] == [
        "greeter plug-in 'twin' (greeters_mod:AGAIN): greeter name 'first' is already taken; left out",
        "greeter plug-in 'fails' (greeters_mod:failing_factory): RuntimeError: factory failed",
        "greeter plug-in 'junk' (greeters_mod:NOT_ONE): TypeError: "
        f"{sys.modules['greeters_mod'].NOT_ONE!r} is not a greeter (needs name, greet)",
        "greeter plug-in 'gone' (no_such_greeters:X): ModuleNotFoundError: No module named 'no_such_greeters'",
    ]
    assert len(changes) == 2  # the registration, then the load


def test_a_known_key_is_replaced_in_place_and_unregister_removes_it(site: Path) -> None:
    reg: PluginRegistry[Greeter] = PluginRegistry(
        "greeter", key=lambda g: g.name, shape=_greeter, builtin=("greeters_mod:FIRST", "greeters_mod:SECOND"))
    early = Hello("second")
    reg.register(early)  # before the first use: the built-in keeps its key
    assert reg.keys() == ["first", "second"] and reg.get("second") is not early
    assert [str(p) for p in reg.load_problems] == [
        f"greeter plug-in 'second' ({__name__}:Hello): greeter name 'second' is already taken; left out"]
    replacement = Hello("first")
    assert reg.register(replacement) is replacement  # after it: replaced in its place
    assert reg.keys() == ["first", "second"] and reg.get("first") is replacement
    reg.unregister("first")
    assert reg.keys() == ["second"] and reg.find("first") is None
    with pytest.raises(KeyError):
        reg.get("first")
    with pytest.raises(TypeError, match="is not a greeter"):
        reg.register(object())


def test_without_unique_keys_every_plugin_is_kept() -> None:
    reg: PluginRegistry[Greeter] = PluginRegistry("greeter", key=lambda g: g.name, shape=_greeter, unique=False)
    reg.register(Hello("same"))
    reg.register(Hello("same"))
    assert reg.keys() == ["same", "same"]


def test_a_failing_builtin_is_a_problem_too_and_reset_loads_again(site: Path) -> None:
    reg: PluginRegistry[Greeter] = PluginRegistry(
        "greeter", key=lambda g: g.name, shape=_greeter, builtin=("greeters_mod:FIRST", "greeters_mod:MISSING"))
    assert reg.keys() == ["first"]
    assert [p.message for p in reg.load_problems] == ["AttributeError: module 'greeters_mod' has no attribute 'MISSING'"]
    reg.note("first", "greeters_mod:FIRST", "failed in greet: ValueError: x")
    reg.note("first", "greeters_mod:FIRST", "failed in greet: ValueError: x")  # once per plug-in and message
    assert reg.problems == [*reg.load_problems, PluginProblem("greeter", "first", "greeters_mod:FIRST",
                                                              "failed in greet: ValueError: x")]
    reg.reset()
    assert not reg.loaded and reg.keys() == ["first"] and len(reg.problems) == 1


def test_load_spec_and_the_failure_wording() -> None:
    assert load_spec("ctxviewer.util.plugins:PluginRegistry") is PluginRegistry
    with pytest.raises(ValueError, match="is not a 'module:attribute' spec"):
        load_spec("ctxviewer.util.plugins")
    assert failure("importer", "x", "load", ZeroDivisionError("division by zero")) == (
        "importer 'x' failed in load: ZeroDivisionError: division by zero")
