"""The chat UI in a real browser (Debian's Chromium via Playwright) and over gradio_client."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

import pytest

from tests.ui_server import Served, serve_seeds

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Request

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
QUESTION = "Which papers deal with noisy labels on graphs?"
SCREENSHOT = Path(__file__).resolve().parent.parent / "bench" / "results" / "ui.png"
ANSWER_TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve_seeds(tmp_path_factory.mktemp("ui")) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip(
            f"{CHROMIUM} is missing: install it with `apt-get install -y chromium chromium-driver`"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def open_page(browser: Browser, served: Served, outside: list[str]) -> tuple[Page, float]:
    """Open the app and return it with the seconds it took to be usable.

    Every request the page makes to a host other than loopback is appended to `outside`.
    """
    page = browser.new_page(viewport={"width": 1280, "height": 800})

    def record(request: Request) -> None:
        host = urlparse(request.url).hostname
        if request.url.startswith(("http://", "https://")) and host not in {"127.0.0.1"}:
            outside.append(request.url)

    page.on("request", record)
    t0 = time.perf_counter()
    page.goto(served.url, wait_until="domcontentloaded")
    page.wait_for_selector("#question textarea", state="visible")
    return page, time.perf_counter() - t0


def test_question_in_the_browser_shows_cited_cards(browser: Browser, served: Served) -> None:
    from playwright.sync_api import expect

    outside: list[str] = []
    page, ready_s = open_page(browser, served, outside)
    print(  # measured start-up, shown with -s
        f"\nUI timings: ingest {served.ingest_s:.2f}s, build {served.build_s:.2f}s, "
        f"launch {served.launch_s:.2f}s, page ready {ready_s:.2f}s"
    )

    box = page.locator("#question textarea")
    box.fill(QUESTION)
    box.press("Enter")

    card = page.locator(".source-card", has_text="Wei Ju").first
    expect(card).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    expect(box).to_have_value("")
    answer = page.locator("#chat .message.bot, #chat [data-testid='bot']").last
    expect(answer).to_contain_text("[1]")

    # The first card sits below the fold until its number in the answer is clicked.
    page.evaluate("window.scrollTo(0, 0)")
    first_card = page.locator("#source-1")
    expect(first_card).to_be_attached()
    page.locator("#chat a.cite[href$='#source-1']").first.click()
    expect(first_card).to_be_in_viewport(ratio=0.9)
    assert len(page.context.pages) == 1, "the citation link opened another tab"

    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    assert outside == [], f"the page called outside hosts: {outside}"
    page.close()


def test_example_question_is_asked_on_click(browser: Browser, served: Served) -> None:
    from playwright.sync_api import expect

    outside: list[str] = []
    page, _ = open_page(browser, served, outside)
    page.get_by_text(QUESTION).first.click()

    expect(page.locator(".source-card", has_text="Wei Ju").first).to_be_visible(
        timeout=ANSWER_TIMEOUT_MS
    )
    page.close()


def test_gradio_client_gets_a_cited_answer(served: Served) -> None:
    from gradio_client import Client

    client = Client(served.url, verbose=False)
    history, cards = client.predict(QUESTION, api_name="/ask")

    answer = history[-1]
    assert answer["role"] == "assistant"
    text = str(answer["content"])
    assert 'href="#source-1">[1]</a>' in text
    assert 'id="source-1"' in cards
    assert "Wei Ju" in cards
