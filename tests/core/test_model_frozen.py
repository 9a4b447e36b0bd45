"""A request trace is frozen all the way down (issue 5): its ``budget`` and ``attributes`` mappings
cannot be changed after construction, nested JSON values are frozen too, and ``hash()`` works."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, replace

import pytest
from factories import make_rich_trace, make_trace
from frozendict import frozendict

from ctxviewer.model.trace import Category


def test_budget_and_attributes_refuse_changes() -> None:
    t = make_rich_trace()
    with pytest.raises(TypeError):
        t.budget[Category.SYS] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        t.attributes["temperature"] = 1.0  # type: ignore[index]
    with pytest.raises(TypeError):
        t.attributes["nested"]["a"] = 2
    with pytest.raises(FrozenInstanceError):
        t.trace_id = "other"  # type: ignore[misc]
    assert t.attributes["tags"] == ("support", "delivery")  # JSON lists become tuples


def test_plain_dicts_given_to_the_constructor_are_frozen() -> None:
    budget = {Category.SYS: 800, Category.OUT: 1200}
    attrs = {"params": {"stop": ["\n\n"], "seed": 7}}
    t = replace(make_trace(), budget=budget, attributes=attrs)
    budget[Category.SYS] = 1  # the caller's dicts stay theirs
    attrs["params"]["seed"] = 8
    assert isinstance(t.budget, frozendict) and t.budget == {Category.SYS: 800, Category.OUT: 1200}
    assert t.attributes == {"params": {"stop": ("\n\n",), "seed": 7}}
    assert isinstance(t.attributes["params"], frozendict)


def test_equal_traces_hash_equal_and_dedupe_in_a_set() -> None:
    t = make_rich_trace()
    copy = replace(t)
    assert copy is not t and copy == t and hash(copy) == hash(t)
    assert {t, copy, make_trace()} == {t, make_trace()}


def test_a_copy_keeps_already_frozen_attributes_and_freezes_anything_else() -> None:
    """replace() of a trace reuses its frozen attributes instead of freezing them again (issue 11:
    an import copies each trace a few times); anything not frozen all the way down is frozen."""
    t = make_rich_trace()
    assert replace(t).attributes is t.attributes and replace(t).budget is t.budget
    half = frozendict({"params": {"stop": ["x"]}, "n": 1})  # a frozendict holding a dict and a list
    u = replace(t, attributes=half)
    assert u.attributes == {"params": {"stop": ("x",)}, "n": 1} and u.attributes is not half
    assert isinstance(u.attributes["params"], frozendict) and hash(u) == hash(replace(u))
    with pytest.raises(TypeError):
        u.attributes["params"]["stop"] = ()


def test_a_plain_dict_of_frozen_values_becomes_the_frozendict_deepfreeze_makes() -> None:
    from frozendict import deepfreeze

    t = make_rich_trace()
    attrs = dict(t.attributes)
    attrs["status"] = "ok"
    u = replace(t, attributes=attrs)
    assert type(u.attributes) is frozendict and u.attributes == deepfreeze(attrs)
    attrs["status"] = "changed later"  # the caller's dict stays theirs
    assert u.attributes["status"] == "ok"
    v = replace(t, attributes={**t.attributes, "list": [1, {"a": [2]}]})  # not frozen: frozen all the way
    assert v.attributes["list"] == (1, frozendict(a=(2,))) and hash(v) == hash(replace(v))


def _same(a: object, b: object) -> bool:
    """Equal, with the same type at every level (a tuple is not a list, a frozendict not a dict)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (dict, frozendict)):
        assert isinstance(b, (dict, frozendict))
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list))
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("value", [
    {"a": [1, {"b": (2, [3])}], "c": frozendict(d=[1.5, None, True]), "e": "x"},
    [], (), {}, {"s": {1, 2}}, {"b": bytearray(b"x")}, {1: [2]}, {"f": frozenset([1])}, {"t": (1, [{}])},
    {"gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}], "n": 2**70},
])
def test_freeze_is_deepfreeze_type_for_type(value: object) -> None:
    """:func:`ctxviewer.model.trace.freeze` (traces' and run steps' attributes) gives what
    ``frozendict.deepfreeze`` gives, with the same type at every level, key order kept."""
    from frozendict import deepfreeze

    from ctxviewer.model.run import RunSpan
    from ctxviewer.model.trace import freeze

    assert _same(freeze(value), deepfreeze(value))
    if isinstance(value, dict):
        step = RunSpan("r", "s", None, "llm", None, None, None, attributes=value)
        assert _same(step.attributes, deepfreeze(dict(value)))
        assert _same(replace(make_trace(), attributes=value).attributes, deepfreeze(value))
