"""Benchmark: the Conversation tab rendered (tool calls, Markdown, thumbnails) against raw plain text.

Builds the conversation of the sample trace ``history-16k`` (86 items, about 60,000 characters)
and of a synthetic one of ``--messages`` items cycling through its items (default 2,000, about 1.36
million characters: over :data:`ctxviewer.gui.message_pane.CONVERSATION_LIMIT`, so the window
shows it raw; measured here to show why), in the raw
:class:`~ctxviewer.gui.conversation_pane.ConversationView` and the
:class:`~ctxviewer.gui.rendered_conversation.RenderedConversation` (700x500 px, document built,
laid out and painted once), and prints the wall-clock ms of each (median of ``--repeat``) and the
rendered / raw ratio, plus the core's share (:func:`~ctxviewer.gui.rendered_conversation.turn_blocks`:
parsing into blocks). Not a test::

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_rendered.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--messages", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from ctxviewer.gui.conversation_pane import ConversationView
    from ctxviewer.gui.rendered_conversation import RenderedConversation, turn_blocks
    from ctxviewer.store import TraceStore

    with TraceStore.open(ROOT / "sample_traces" / "samples.db") as store:
        small = store.load("history-16k")
    items = tuple(replace(small.items[i % len(small.items)], id=f"m{i}") for i in range(args.messages))
    big = replace(small, items=items)

    def build(cls: type, trace: object) -> float:
        times = []
        for _ in range(args.repeat):
            view = cls()
            view.resize(700, 500)
            view.show()
            t0 = time.perf_counter()
            view.set_trace(trace)
            app.processEvents()
            view.grab()
            times.append((time.perf_counter() - t0) * 1000)
            view.close()
            view.deleteLater()
            app.processEvents()
        return statistics.median(times)

    for name, trace in (("history-16k", small), (f"{args.messages:,} messages", big)):
        chars = sum(len(i.content or "") for i in trace.items)
        raw = build(ConversationView, trace)
        rendered = build(RenderedConversation, trace)
        t0 = time.perf_counter()
        turn_blocks(trace)
        core = (time.perf_counter() - t0) * 1000
        print(f"{name} ({chars:,} characters): raw {raw:.0f} ms, rendered {rendered:.0f} ms "
              f"({rendered / raw:.1f}x raw; blocks in the core {core:.0f} ms)")


if __name__ == "__main__":
    main()
