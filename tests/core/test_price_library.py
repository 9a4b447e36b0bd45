"""genai-prices is imported without its price-update client (ctxviewer/tokens/price_library.py):
httpx2 and asyncio stand in until an attribute is read, so a price loads neither, the updater still
reaches the real modules, and a later import of either is the real module. Run in a fresh
interpreter (the test session may have imported genai-prices already)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("genai_prices")

PROBE = """
import json, sys, types
from datetime import datetime, timezone
from ctxviewer.tokens import price_library
from ctxviewer.tokens.cost import call_cost, source
from ctxviewer.model.trace import Usage
c = call_cost("openai", "gpt-4o-mini", datetime(2026, 10, 1, tzinfo=timezone.utc), Usage(input_tokens=1000, output_tokens=100))
out = {"usd": str(c.total), "model": c.model, "source": source().split(" (")[0],
       "loaded": [m for m in ("httpx2", "asyncio", "ssl") if m in sys.modules]}
import genai_prices.update_prices as up
out["stand_in"] = type(up.httpx2).__name__
out["timeout"] = up.httpx2.Timeout.__module__  # read through the stand-in: the real client
out["real"] = type(sys.modules["httpx2"]).__name__
import asyncio
out["asyncio"] = type(asyncio).__name__ == "module" and hasattr(asyncio, "run")
out["again"] = price_library.load() is sys.modules["genai_prices"]
print(json.dumps(out))
"""


def test_a_price_loads_no_update_client_and_the_updater_still_reaches_it() -> None:
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout.splitlines()[-1])
    assert got["model"] == "gpt-4o-mini" and got["usd"] != "None"
    assert got["source"].startswith("genai-prices ")
    assert got["loaded"] == []  # priced from the bundled data: no HTTP client, no event loop, no TLS
    assert got["stand_in"] == "DeferredModule"  # the updater's module keeps the stand-in ...
    assert got["timeout"].startswith("httpx2")  # ... which hands out the real client's names
    assert got["real"] == "module"  # imported for real on that first read
    assert got["asyncio"] is True  # a later import is the real module
    assert got["again"] is True
