"""Table 3.1 row 1: policy missing, unavailable, not pinned, not the expected version."""

from dataclasses import replace

from factories import make_trace

from ctxviewer.assess import config
from ctxviewer.assess.checks.policy import PolicyCheck
from ctxviewer.model.findings import Severity
from ctxviewer.model.trace import Kind, Policy, Status


def run(trace):
    return list(PolicyCheck().run(trace))


def test_benign_pinned_policy_sent_gives_nothing():
    assert run(make_trace()) == []


def test_unavailable_is_a_failure_with_row_1_words():
    [f] = run(make_trace(policy=Policy(id="support-policy", version="v7", available=False)))
    assert (f.rule, f.severity, f.table_row) == ("policy.unavailable", Severity.FAILURE, 1)
    assert f.first_evidence == "Policy loader and version pin"
    assert f.evidence.item_ids == ("policy",)
    assert f.message == "required policy version v7 unavailable: the request should be rejected"


def test_missing_policy_item_required_by_id_is_a_failure():
    t = make_trace()
    t = replace(t, items=tuple(i for i in t.items if i.kind is not Kind.POLICY))
    [f] = run(t)
    assert (f.rule, f.severity) == ("policy.missing", Severity.FAILURE)
    [g] = run(replace(t, policy=Policy()))  # an application that sends no system instructions: neutral
    assert (g.rule, g.severity, g.message) == (
        "policy.missing", Severity.INFO, "no policy (system instructions) was sent with this request")


def test_no_policy_finding_when_the_content_was_not_captured():
    """OpenTelemetry content capture is opt-in: nothing captured says nothing about a policy."""
    t = make_trace()
    t = replace(t, policy=Policy(), items=tuple(i for i in t.items if i.kind is not Kind.POLICY),
                attributes={"ctxviewer.content": "not captured"})
    assert [f.rule for f in run(t)] == []


def test_a_policy_expected_by_the_config_and_not_sent_is_a_failure():
    t = make_trace()
    t = replace(t, policy=Policy(), items=tuple(i for i in t.items if i.kind is not Kind.POLICY))
    token = config.using(config.CheckConfig().with_expected({"support-policy": "v3"}))
    try:
        [f] = run(t)
    finally:
        config.restore(token)
    assert (f.rule, f.severity, f.message) == (
        "policy.missing", Severity.FAILURE, "policy support-policy was required but no policy item was sent")


def test_a_required_policy_of_a_span_without_content_is_not_known_not_a_failure():
    """The reviewer's F7: with an expected policy, a span whose input was not captured (the OTel
    default) or not readable was a row-1 FAILURE "no policy item was sent"."""
    t = make_trace()
    base = replace(t, policy=Policy(), items=tuple(i for i in t.items if i.kind is not Kind.POLICY))
    token = config.using(config.CheckConfig().with_expected({"support-policy": "v3"}))
    try:
        found = [[(f.rule, f.severity, f.message) for f in run(replace(base, attributes=attrs))]
                 for attrs in ({"ctxviewer.content": "not captured"},
                               {"ctxviewer.content": "truncated", "ctxviewer.truncated": ("gen_ai.input.messages",)})]
    finally:
        config.restore(token)
    said = ("policy.missing", Severity.INFO, "policy support-policy is required; whether it was sent is not known "
                                             "(the span's input messages were not captured or could not be read)")
    assert found == [[said], [said]]


def test_omitted_policy_item_counts_as_missing():
    t = make_trace()
    items = tuple(replace(i, status=Status.OMITTED, position=None) if i.kind is Kind.POLICY else i for i in t.items)
    assert [f.rule for f in run(replace(t, items=items))] == ["policy.missing"]


def test_version_not_pinned():
    for version in ("latest", "Current"):
        [f] = run(make_trace(policy=Policy(id="support-policy", version=version, available=True)))
        assert f.rule == "policy.version_not_pinned" and f.severity is Severity.WARNING
        assert f.message == f"policy support-policy is not pinned to a version ({version!r} can change)"
    assert run(make_trace(policy=Policy(id="support-policy", version=None, available=True))) == []  # unknown


def test_unexpected_version_per_application():
    cfg = config.CheckConfig().with_expected({"support-policy": "v8"}, app="northwind-support")
    token = config.using(cfg)
    try:
        [f] = run(make_trace())
        assert f.rule == "policy.unexpected_version" and f.severity is Severity.FAILURE
        assert f.message == "policy support-policy version v7 was sent; northwind-support expects v8"
        assert f.evidence.positions == (1,)
        assert run(make_trace(service="other-app")) == []  # configured for one application only
        assert run(make_trace(policy=Policy(id="support-policy", version="v8", available=True))) == []
    finally:
        config.restore(token)
