"""Time the chat page in Debian's Chromium: ready to type, and first streamed answer text.

    .venv/bin/python bench/startup/ui_timing.py [runs] [url]   # default 5 runs; extractive backend

Without a URL it serves the seeds (fake embedding, as the browser test does) on a free
loopback port; with one (e.g. a `rag serve` started with RAG_BACKEND=extractive, real
embedding model) it measures that app. For each run it opens a fresh page (goto until the
question box is visible) and asks the seed question (Enter until the page shows progress: the
progress line or the locked question box; until the assistant's message shows answer text;
then until the cited card shows).
Prints each run and the medians.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

# Run as a script from anywhere: the tests package holds the server and the selectors.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.faces.test_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    FIRST_TEXT_JS,
    PROGRESS_JS,
    QUESTION,
)
from tests.ui_server import serve_seeds


def main(runs: int = 5, url: str | None = None) -> None:
    """Print page-ready and first-text times over `runs` fresh pages of `url` (or the seeds)."""
    from playwright.sync_api import sync_playwright

    ready, progress, first, cards = [], [], [], []
    with ExitStack() as stack:
        if url is None:
            tmp = stack.enter_context(tempfile.TemporaryDirectory())
            url = stack.enter_context(serve_seeds(Path(tmp))).url
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for run in range(1, runs + 1):
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            t0 = time.perf_counter()
            page.goto(url, wait_until="domcontentloaded")
            page.wait_for_selector("#question textarea", state="visible")
            ready.append(time.perf_counter() - t0)
            box = page.locator("#question textarea")
            box.fill(QUESTION)
            t1 = time.perf_counter()
            box.press("Enter")
            page.wait_for_function(PROGRESS_JS, timeout=60_000, polling=10)
            progress.append(time.perf_counter() - t1)
            page.wait_for_function(FIRST_TEXT_JS, timeout=60_000)
            first.append(time.perf_counter() - t1)
            page.wait_for_selector(".source-card", state="visible", timeout=60_000)
            cards.append(time.perf_counter() - t1)
            print(
                f"run {run}: page ready {ready[-1]:.2f}s, progress shown {progress[-1]:.2f}s, "
                f"first text {first[-1]:.2f}s, "
                f"cards {cards[-1]:.2f}s",
                flush=True,
            )
            page.close()
        browser.close()
    print(
        f"median of {runs}: page ready {statistics.median(ready):.2f}s, progress shown "
        f"{statistics.median(progress):.2f}s, first streamed text "
        f"{statistics.median(first):.2f}s, answer with cards {statistics.median(cards):.2f}s"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5, sys.argv[2] if len(sys.argv) > 2 else None)
