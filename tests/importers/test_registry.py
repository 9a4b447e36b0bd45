"""The importer registry: confidence-ranked detection, reading far enough to decide, third-party
importers from the ``ctxviewer.importers`` entry-point group, and bugs in one importer isolated
as problem records naming the file and the importer."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Iterator

import pytest
from factories import make_trace
from otlp_factories import s

from ctxviewer.importers import (
    CONFIDENT,
    HEAD_SIZES,
    ImportFailed,
    ImportProblem,
    Record,
    Registry,
    detect,
    get_importer,
    omissions_recorded,
)
from ctxviewer.importers.formats.native import write_jsonl
from ctxviewer.importers.registry import BUILTIN
from ctxviewer.model.serialize import trace_to_dict
from ctxviewer.model.trace import RequestTrace
from ctxviewer.pipeline.importing import import_files
from ctxviewer.store import TraceStore

BIG = 100 * 1024  # a first span larger than the first 64 KiB head


class Fixed:
    """An importer that is always ``score`` sure and loads nothing."""

    description = "test importer"
    records_omissions = False

    def __init__(self, name: str, score: float) -> None:
        self.name, self.score = name, score

    def sniff(self, path: Path, head: bytes) -> float:
        return self.score

    def load(self, path: Path) -> Iterator[Record]:
        return iter(())


def test_the_most_confident_importer_wins_and_ties_go_to_the_first(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("x")
    reg = Registry(builtin=(), group=None)
    for imp in (Fixed("low", 0.3), Fixed("high", 0.7), Fixed("also-high", 0.7)):
        reg.register(imp)
    assert reg.detect(path).name == "high"
    reg.unregister("high")
    assert reg.detect(path).name == "also-high"
    reg = Registry(builtin=(), group=None)
    reg.register(Fixed("nope", 0.0))
    with pytest.raises(ImportFailed, match="f.txt: not a recognised trace file"):
        reg.detect(path)


def test_builtins_in_order_and_declared_omissions() -> None:
    assert Registry(group=None).names()[:3] == ["native", "openinference", "otel"]  # the most specific first
    assert len(Registry(group=None).names()) == len(BUILTIN)
    assert (omissions_recorded("native"), omissions_recorded("otel"), omissions_recorded(None)) == (True, False, True)
    assert get_importer("otel").records_omissions is False


def _readable_span(attributes: dict, span_id: str = "39d6e9b3ddec9996") -> dict:
    return {"name": "ai.generateText.doGenerate",
            "spanContext": {"traceId": "b3e700af9eab81e19f72f964d62a35af", "spanId": span_id},
            "startTime": [1770131992, 242000000], "endTime": [1770131993, 0], "attributes": attributes}


def _chat_attrs(question: str) -> dict:
    return {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m-1",
            "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": question}]}])}


@pytest.mark.parametrize("where", ["genai-keys-first", "genai-keys-after-64k"])
def test_span_list_whose_first_span_is_over_64_kib_is_recognised(tmp_path: Path, where: str) -> None:
    question = "q" * BIG
    attrs = _chat_attrs(question)
    if where == "genai-keys-after-64k":  # nothing GenAI before the cut: only reading further decides
        attrs = {"app.debug_dump": "d" * BIG, **attrs}
    path = tmp_path / "spans.json"
    path.write_text(json.dumps([_readable_span(attrs), _readable_span(_chat_attrs("second"), "39d6e9b3ddec9997")]))
    head = path.read_bytes()[: HEAD_SIZES[0]]
    otel = get_importer("otel")
    assert otel.sniff(path, head) == (0.9 if where == "genai-keys-first" else 0.3)
    assert otel.sniff(path, path.read_bytes()) == 0.9 >= CONFIDENT
    assert detect(path) is otel
    traces = [r for r in otel.load(path) if isinstance(r, RequestTrace)]
    assert [t.user_request for t in traces] == [question, "second"]


def test_one_otlp_request_per_line_with_a_huge_first_line(tmp_path: Path) -> None:
    from otlp_factories import chat_span, otlp_request

    line1 = otlp_request(chat_span("00000000000000a1", **{"app.blob": s("b" * BIG), "gen_ai.system": s("openai")}))
    line2 = otlp_request(chat_span("00000000000000a2"))
    path = tmp_path / "collector.jsonl"
    path.write_text(json.dumps(line1) + "\n" + json.dumps(line2) + "\n")
    assert detect(path).name == "otel"


BROKEN_MODULE = '''
from pathlib import Path

from ctxviewer.importers.formats.native import IMPORTER as NATIVE


class BrokenImporter:
    """Claims *.broken files, then fails: in sniff for files named sniff-*, in load after one trace."""

    name = "broken"
    description = "a deliberately broken third-party importer"
    records_omissions = True

    def sniff(self, path, head):
        if path.name.startswith("sniff-"):
            raise RuntimeError("sniffing went wrong")
        return 1.0 if path.suffix == ".broken" else 0.0

    def load(self, path):
        yield next(iter(NATIVE.load(path)))  # the first (valid) trace ...
        raise ZeroDivisionError("division by zero inside load")
'''


@pytest.fixture
def plugin_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Registry:
    """A registry with real entry points: an installed-looking distribution on ``sys.path`` whose
    ``entry_points.txt`` names a broken importer class and one that cannot be imported."""
    site = tmp_path / "site"
    (site / "broken_plugin.py").parent.mkdir()
    (site / "broken_plugin.py").write_text(textwrap.dedent(BROKEN_MODULE))
    dist = site / "broken_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[ctxviewer.importers]\nbroken = broken_plugin:BrokenImporter\nmissing = no_such_module:IMPORTER\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "broken_plugin", raising=False)
    return Registry()


def test_third_party_importers_come_from_the_entry_point_group(plugin_registry: Registry) -> None:
    assert plugin_registry.names()[-1] == "broken" and len(plugin_registry.names()) == len(BUILTIN) + 1
    assert [(p.file, p.record) for p in plugin_registry.load_problems] == [
        ("entry point missing", "no_such_module:IMPORTER")]
    assert "ModuleNotFoundError" in plugin_registry.load_problems[0].message


def test_a_broken_importer_becomes_problems_never_a_lost_run(tmp_path: Path, plugin_registry: Registry) -> None:
    loads = tmp_path / "two.broken"  # the broken importer is surer than native (0.9 untagged), yields one, raises
    loads.write_text("".join(json.dumps(trace_to_dict(make_trace(trace_id=t))) + "\n" for t in ("first", "second")))
    sniffs = tmp_path / "sniff-good.jsonl"  # its sniff raises here; native still recognises the file
    write_jsonl([make_trace(trace_id="native-ok")], sniffs)
    with TraceStore.create(tmp_path / "t.db") as store:
        report = import_files([loads, sniffs], store, registry=plugin_registry)
        ids = [r.trace_id for r in store.list()]
    assert report.imported == 2 and report.files == 2 and report.files_imported == 2
    assert sorted(ids) == ["first", "native-ok"]
    assert [str(p) for p in report.problems] == [
        "entry point missing: no_such_module:IMPORTER: ModuleNotFoundError: No module named 'no_such_module'",
        f"{loads}: whole file: importer 'broken' failed in load: ZeroDivisionError: division by zero inside load",
        f"{sniffs}: whole file: importer 'broken' failed in sniff: RuntimeError: sniffing went wrong",
    ]


def test_an_importer_yielding_junk_is_a_problem(tmp_path: Path) -> None:
    class Junk(Fixed):
        def load(self, path: Path) -> Iterator[Record]:
            yield "not a trace"  # type: ignore[misc]

    reg = Registry(builtin=(), group=None)
    reg.register(Junk("junk", 1.0))
    path = tmp_path / "x"
    path.write_text("x")
    assert list(reg.load(reg.detect(path), path)) == [ImportProblem(
        str(path), "whole file", "importer 'junk' failed in load: TypeError: yielded str, not a RequestTrace or ImportProblem")]


def _corpus_files() -> list[str]:
    root = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
    if not root.is_dir():
        return []
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.suffix != ".md")


def _owner(rel: str) -> str | None:
    """Which importer a corpus file belongs to, from where FORMATS.md files it."""
    if "/spec-schemas/" in rel:
        return None  # JSON Schemas, not traces
    if rel.endswith(".expected-chatml.json"):
        return "langfuse-chatml"
    if rel.startswith("provider-api/"):
        return "cassette" if rel.endswith(".yaml") else "provider-api"
    folder = rel.split("/")[1] if rel.startswith("other/") else rel.split("/")[0]
    return {"otel-genai": "otel"}.get(folder, folder)


@pytest.mark.parametrize("rel", _corpus_files())
def test_every_corpus_file_has_one_most_confident_importer(shared: Path, rel: str) -> None:
    """The real exports of ``../shared/corpus``: the importer that owns a file is the single most
    confident one (no tie left to registration order); JSON Schemas are recognised by none."""
    path = shared / "corpus" / rel
    head = path.read_bytes()[: HEAD_SIZES[0]]
    scores = {i.name: float(i.sniff(path, head)) for i in Registry(group=None).importers()}
    best = max(scores.values())
    owner = _owner(rel)
    if owner is None:
        assert best == 0.0, scores
        return
    assert [n for n, v in scores.items() if v == best] == [owner], scores
    assert detect(path).name == owner


def test_a_second_thread_waits_for_the_whole_first_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads asking at once (a GUI import and the window, say) both get every importer; the
    first load used to mark itself done before it had any, so the second saw none."""
    import threading

    (tmp_path / "slow_importer_mod.py").write_text(textwrap.dedent("""
        import threading, time
        from pathlib import Path
        STARTED = threading.Event()

        class Slow:
            name = "slow"
            description = "loads slowly"
            records_omissions = False
            def sniff(self, path, head): return 0.0
            def load(self, path): return iter(())

        STARTED.set()
        time.sleep(0.3)  # the other thread asks meanwhile
        IMPORTER = Slow()
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    reg = Registry(builtin=("slow_importer_mod:IMPORTER", "ctxviewer.importers.formats.native:IMPORTER"), group=None)
    seen: dict[str, list[str]] = {}

    def ask(who: str) -> None:
        seen[who] = reg.names()

    first = threading.Thread(target=ask, args=("first",))
    first.start()
    # the module object is in sys.modules before its first line runs: wait for its STARTED event to exist
    while not hasattr(sys.modules.get("slow_importer_mod"), "STARTED"):
        threading.Event().wait(0.001)
    sys.modules["slow_importer_mod"].STARTED.wait(5)
    ask("second")
    first.join()
    assert seen == {"first": ["slow", "native"], "second": ["slow", "native"]}
