"""A third-party package of ctxviewer plug-ins, installed for the tests as a dist-info directory
on ``sys.path`` (``tests/plugins/site``): its ``entry_points.txt`` registers, under each of the
groups ``ctxviewer.importers``, ``ctxviewer.checks`` and ``ctxviewer.scanner_rules``, one working
plug-in, one that raises while it runs and one that cannot be loaded.

* importer ``example`` (a class: the registry instantiates it) reads ``EXAMPLE/1`` files, one
  trace per line ``ID<TAB>EVIDENCE TEXT<TAB>QUESTION``; ``broken`` claims ``*.broken`` files and
  raises in ``sniff`` and in ``load``; ``missing`` names a module that does not exist;
* check ``example`` finds the marker ``EXAMPLE-MARKER`` in any item (rule ``example.marker``);
  ``broken`` raises on every trace; ``not-a-check`` has no ``run``;
* scanner rule ``injection.example`` finds "open the pod bay doors"; ``broken`` raises on every
  text; ``missing`` names an attribute the module does not have.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

from ctxviewer.assess.scanner.patterns import Hit
from ctxviewer.importers import ImportProblem, Record
from ctxviewer.model.findings import Evidence, Finding, Severity
from ctxviewer.model.trace import ContextItem, Endpoint, Kind, Policy, RequestTrace, Trust

TAG = b"EXAMPLE/1\n"
MARKER = "EXAMPLE-MARKER"
PHRASE = "open the pod bay doors"


class ExampleImporter:
    """``EXAMPLE/1`` files: the tag line, then ``ID<TAB>EVIDENCE<TAB>QUESTION`` per trace."""

    name = "example"
    description = "the example plug-in format (EXAMPLE/1, tab-separated)"
    records_omissions = False

    def sniff(self, path: Path, head: bytes) -> float:
        return 1.0 if head.startswith(TAG) else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        lines = path.read_text(encoding="utf-8").splitlines()[1:]
        for n, line in enumerate(lines, 2):
            fields = line.split("\t")
            if len(fields) != 3:
                yield ImportProblem(str(path), f"line {n}", f"expected 3 tab-separated fields, got {len(fields)}")
                continue
            trace_id, evidence, question = fields
            items = (ContextItem(kind=Kind.EVIDENCE, id="doc-0", content=evidence, position=1, trust=Trust.UNTRUSTED),
                     ContextItem(kind=Kind.USER, id="user", content=question, position=2, role="user"))
            yield RequestTrace(trace_id=trace_id, created=None, endpoint=Endpoint(model="example-model"),
                               policy=Policy(), user_request=question, items=items, source_format=self.name)


class BrokenImporter:
    """Sure of ``*.broken`` files, then raises; its sniff raises on files named ``sniff-*``."""

    name = "broken"
    description = "a deliberately broken importer"
    records_omissions = True

    def sniff(self, path: Path, head: bytes) -> float:
        if path.name.startswith("sniff-"):
            raise RuntimeError("sniffing went wrong")
        return 1.0 if path.suffix == ".broken" else 0.0

    def load(self, path: Path) -> Iterator[Record]:
        raise ZeroDivisionError("division by zero inside load")
        yield  # a generator, as importers are


BROKEN_IMPORTER = BrokenImporter()


class ExampleCheck:
    """``example.marker``: an item whose content holds :data:`MARKER`."""

    id = "example"
    title = "the example plug-in check (a marker in an item)"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        return [Finding(rule="example.marker", severity=Severity.WARNING, message=f"{item.id}: holds {MARKER}",
                        evidence=Evidence(item_ids=(item.id,)))
                for item in trace.items if MARKER in (item.content or "")]


class BrokenCheck:
    """Raises on every trace."""

    id = "example-broken"
    title = "a deliberately broken check"

    def run(self, trace: RequestTrace) -> Iterable[Finding]:
        raise KeyError("no such thing")


class NotACheck:
    """Has an id and a title but no ``run``."""

    id = "not-a-check"
    title = "not a check"

    def __repr__(self) -> str:
        return "NotACheck()"


CHECK = ExampleCheck()
BROKEN_CHECK = BrokenCheck()
NOT_A_CHECK = NotACheck()


class PodBayRule:
    """``injection.example``: the phrase :data:`PHRASE`, any case."""

    id = "injection.example"
    title = "the example plug-in rule (a request to open the pod bay doors)"

    def find(self, text: str) -> Iterable[Hit]:
        start = text.lower().find(PHRASE)
        if start < 0:
            return []
        return [Hit(self.id, start, start + len(PHRASE), "asks to open the pod bay doors", Severity.WARNING)]


class BrokenRule:
    """Raises on every text."""

    id = "injection.example_broken"
    title = "a deliberately broken rule"

    def find(self, text: str) -> Iterable[Hit]:
        raise ValueError("this rule always fails")


RULE = PodBayRule()
BROKEN_RULE = BrokenRule()
