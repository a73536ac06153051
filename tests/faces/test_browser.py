"""The chat UI in a real browser (Debian's Chromium via Playwright) and over gradio_client."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

import pytest

from rag.ui.layout import QUESTION_PLACEHOLDER
from tests.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: F401 - bench/startup imports them here
from tests.faces.test_ui import near_miss_draft

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Request

    from tests.ui_server import Served

pytestmark = pytest.mark.browser

GOOD_RECORD = {
    "authors": ["Zoe Quillfeather"],
    "area": "Ornithology",
    "title": "Counting Puffins from Orbit",
    "abstract": "We count puffin colonies on sea cliffs from satellite images of the coast.",
}
CLAIM = (
    "We combine the predictions from neighboring nodes on the graph to correct the detected "
    "noisy labels."
)
QUESTION = "Which papers deal with noisy labels on graphs?"
SCREENSHOT = Path(__file__).resolve().parents[2] / "bench" / "results" / "ui.png"
PHONE_SCREENSHOT = SCREENSHOT.with_name("ui-phone.png")
PHONE = {"width": 390, "height": 844}
OFF_TOPIC = "sourdough bread recipe with rye flour"
ANSWER_TIMEOUT_MS = 60_000
LLM_QUESTION = "How can large language models be made to reason more reliably?"
LLM_AREA = "Deep Learning · Large Language Models"
# True once the assistant's message shows answer text (not the progress line before it).
FIRST_TEXT_JS = """() => [
  ...document.querySelectorAll('#chat .message.bot, #chat [data-testid="bot"]'),
].some((m) => !m.querySelector(".turn-pending") && m.textContent.trim().length > 3)"""
# True once the page shows that an answer is being made (the progress line or a locked box).
PROGRESS_JS = """() => !!document.querySelector("#chat .turn-pending")
  || !!document.querySelector("#question textarea:disabled")"""


def open_page(browser: Browser, served: Served, outside: list[str]) -> tuple[Page, float]:
    """Open the app and return it with the seconds it took to be usable.

    Every request the page makes to a host other than loopback is appended to `outside`.
    """
    page = browser.new_page(
        viewport={"width": 1280, "height": 800},
        permissions=["clipboard-read", "clipboard-write"],
    )

    def record(request: Request) -> None:
        host = urlparse(request.url).hostname
        if request.url.startswith(("http://", "https://")) and host not in {"127.0.0.1"}:
            outside.append(request.url)

    page.on("request", record)
    t0 = time.perf_counter()
    page.goto(served.url, wait_until="domcontentloaded")
    page.wait_for_selector("#question textarea", state="visible")
    return page, time.perf_counter() - t0


def intro_count(page: Page) -> int:
    """Return the number of papers the Ask tab's intro says the index holds."""
    from playwright.sync_api import expect

    intro = page.locator("#intro")
    expect(intro).to_contain_text("indexed paper")
    found = re.search(r"Ask about the (\d+) indexed paper", intro.inner_text())
    assert found, intro.inner_text()
    return int(found.group(1))


def color_of(locator: object) -> str:
    return str(locator.evaluate("(e) => getComputedStyle(e).color"))  # type: ignore[attr-defined]


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
    t0 = time.perf_counter()
    box.press("Enter")
    page.wait_for_function(FIRST_TEXT_JS, timeout=ANSWER_TIMEOUT_MS)
    first_s = time.perf_counter() - t0

    card = page.locator(".source-card", has_text="Wei Ju").first
    expect(card).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    done_s = time.perf_counter() - t0
    print(f"UI timings: first streamed text {first_s:.2f}s, answer with cards {done_s:.2f}s")
    expect(box).to_have_value("")
    answer = page.locator("#chat .message.bot, #chat [data-testid='bot']").last
    expect(answer).to_contain_text("[1]")
    # A "which papers" answer is a list with one item per paper it cites; a list of one paper
    # is a paragraph.
    cited = page.locator("#chat a.cite").evaluate_all(
        "links => new Set(links.map((a) => a.getAttribute('href'))).size"
    )
    assert cited >= 1
    assert answer.locator("li").count() == (cited if cited > 1 else 0), answer.inner_html()

    # The first card sits below the fold until its number in the answer is clicked.
    page.evaluate("window.scrollTo(0, 0)")
    first_card = page.locator("#t0-source-1")
    expect(first_card).to_be_attached()
    page.locator("#chat a.cite[href$='#t0-source-1']").first.click()
    expect(first_card).to_be_in_viewport(ratio=0.9)
    assert len(page.context.pages) == 1, "the citation link opened another tab"

    # Each card offers its BibTeX; the Copy button puts it on the clipboard.
    first_card.locator("details.card-bib summary").click()
    expect(first_card.locator("details.card-bib pre")).to_contain_text("@")
    first_card.locator("button.copy-bib").click()
    expect(first_card.locator("button.copy-bib")).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("@") and copied == first_card.locator("pre").inner_text()
    first_card.locator("details.card-bib summary").click()  # closed again for the screenshot

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


def test_area_filter_in_the_sidebar_applies_to_the_next_answer(
    browser: Browser, served: Served
) -> None:
    from playwright.sync_api import expect

    page, _ = open_page(browser, served, [])
    choose = page.locator("#area input")
    choose.click()
    choose.fill("Large Language")
    page.get_by_role("option", name=LLM_AREA).click()
    expect(choose).to_have_value(LLM_AREA)

    box = page.locator("#question textarea")
    box.fill(LLM_QUESTION)
    box.press("Enter")
    cards = page.locator(".source-card")
    expect(cards.first).to_be_visible(timeout=ANSWER_TIMEOUT_MS)

    areas = page.locator(".source-card .card-meta > span:first-child").all_inner_texts()
    assert areas, "no card shows an area"
    assert set(areas) == {LLM_AREA}, areas
    page.close()


def test_a_library_search_says_what_it_found(browser: Browser, served: Served) -> None:
    # Before: a search matching nothing left the table's headers alone, no line saying so.
    from playwright.sync_api import expect

    page, _ = open_page(browser, served, [])
    page.get_by_role("tab", name="Library").click()
    search = page.locator("#library-search textarea")
    search.fill("zebra migration patterns")
    expect(page.locator("#stats")).to_contain_text("No paper matches “zebra migration patterns”")
    expect(page.locator("#papers tbody tr")).to_have_count(0)
    search.fill("auctions")
    expect(page.locator("#stats")).to_contain_text("papers match “auctions”.")
    expect(page.locator("#papers tbody")).to_contain_text("Haoran Sun")
    search.fill("")
    expect(page.locator("#stats")).not_to_contain_text("match")
    page.close()


def test_a_failed_removal_is_shown_in_the_error_colour(browser: Browser, served: Served) -> None:
    # Before: the Library's error line was in the body colour, unlike an upload's error.
    from playwright.sync_api import expect

    page, _ = open_page(browser, served, [])
    page.get_by_role("tab", name="Library").click()
    page.get_by_label("Remove a paper: citation key").fill("no_such_key")
    page.get_by_role("button", name="Remove").click()
    error = page.locator("#removed p.bad")
    expect(error).to_contain_text("the Library tab")
    assert color_of(error) == "rgb(185, 28, 28)"
    page.close()


def test_malformed_upload_shows_its_error_and_keeps_the_good_record(
    browser: Browser, served: Served, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    upload = tmp_path / "mixed.jsonl"
    upload.write_text(json.dumps(GOOD_RECORD) + "\n{broken json\n", encoding="utf-8")
    page, _ = open_page(browser, served, [])
    before = intro_count(page)
    page.get_by_role("tab", name="Library").click()
    expect(page.locator("#stats")).to_contain_text("papers")
    # The seeds have no years: no empty Year column.
    expect(page.locator("#papers th").first).to_be_visible()
    assert "Year" not in page.locator("#papers th").all_inner_texts()
    expect(page.locator("#papers")).to_contain_text("(derived label)")

    page.locator("#upload input[type=file]").set_input_files(str(upload))

    result = page.locator("#ingested")
    expect(result).to_contain_text("mixed.jsonl: 1 added", timeout=ANSWER_TIMEOUT_MS)
    expect(result).to_contain_text("mixed.jsonl:2: invalid JSON")
    # Added in the normal colour; skipped apart from it, in the warning colour.
    added, skipped = result.locator("li.added"), result.locator("li.skipped")
    expect(added).to_have_count(1)
    expect(skipped).to_contain_text("invalid JSON")
    body = page.evaluate("getComputedStyle(document.body).color")
    assert color_of(added) == body
    assert color_of(skipped) not in (body, color_of(page.locator("#ingested")))
    # The box is empty again, so uploading the file again is one upload with one message.
    expect(page.locator("#upload")).to_contain_text("Drop File Here")
    page.locator("#upload input[type=file]").set_input_files(str(upload))
    expect(result).to_contain_text("mixed.jsonl: 0 added, 1 already there",
                                   timeout=ANSWER_TIMEOUT_MS)  # fmt: skip
    expect(added).to_have_count(1)
    expect(page.locator("#upload")).to_contain_text("Drop File Here")

    page.get_by_label("Search papers").fill("puffin")
    expect(page.locator("#papers")).to_contain_text("Counting Puffins from Orbit")
    # The Ask tab's count follows the index, also on a reload.
    page.get_by_role("tab", name="Ask").click()
    intro = page.locator("#intro")
    expect(intro).to_contain_text(f"Ask about the {before + 1} indexed paper abstracts")
    page.reload(wait_until="domcontentloaded")
    expect(intro).to_contain_text(f"Ask about the {before + 1} indexed paper abstracts")
    # The sidebar's area choices now include the new paper's area.
    page.locator("#area input").click()
    expect(page.get_by_role("option", name="Ornithology")).to_be_attached()
    page.close()


def test_gradio_client_gets_a_cited_answer(served: Served) -> None:
    from gradio_client import Client

    client = Client(served.url, verbose=False)
    history, cards = client.predict(QUESTION, api_name="/ask")

    answer = history[-1]
    assert answer["role"] == "assistant"
    text = str(answer["content"])
    assert 'href="#t0-source-1">[1]</a>' in text
    assert 'id="t0-source-1"' in cards
    assert "Wei Ju" in cards
    # With the chat handed back, a second answer links to its own cards, and the first
    # answer's links still have theirs; an empty chat is a new one, with none of them.
    later, both = client.predict(LLM_QUESTION, history, api_name="/ask")
    assert 'href="#t0-source-1">[1]</a>' in str(later[1]["content"])
    assert 'href="#t1-source-1">[1]</a>' in str(later[-1]["content"])
    assert 'id="t0-source-1"' in both and 'id="t1-source-1"' in both
    assert client.predict(QUESTION, [], api_name="/ask") == (history, cards)

    text, suggestions, bib = client.predict(CLAIM, "pandoc", api_name="/cite_draft")
    assert text.startswith(CLAIM.rstrip(".")) and "[@ju_icgnn" in text
    assert "ju_icgnn" in suggestions
    assert "ju_icgnn" in Path(bib).read_text(encoding="utf-8")


# -- what a new user met (issue 13)

# Records, from before the page script runs, whether the question box was ever disabled and
# whether a progress line was ever shown: fast answers replace it within milliseconds.
WATCH_JS = """() => {
  window.seen = { disabled: false, pending: false };
  new MutationObserver(() => {
    const box = document.querySelector("#question textarea");
    if (box && box.disabled) window.seen.disabled = true;
    if (document.querySelector("#chat .turn-pending")) window.seen.pending = true;
  }).observe(document.body, { subtree: true, childList: true, attributes: true });
}"""


def test_phone_sidebar_starts_closed_and_the_question_is_answered(
    browser: Browser, served: Served
) -> None:
    from playwright.sync_api import expect

    page = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    page.goto(served.url, wait_until="domcontentloaded")
    box = page.locator("#question textarea")
    expect(box).to_be_visible()
    # The whole placeholder shows: "Ask a question about the papers…" read "Ask a question
    # about the" at 390 px.
    assert page.evaluate(PLACEHOLDER_FITS), page.evaluate(
        "document.querySelector('#question textarea').placeholder"
    )
    sidebar = page.locator("#settings")
    expect(sidebar).not_to_have_class(re.compile(r"\bopen\b"))
    toggle = sidebar.locator(".toggle-button")
    assert within_screen(toggle.bounding_box()), toggle.bounding_box()
    # Reachable without scrolling, and a tap reaches it (nothing lies over it).
    assert page.evaluate("window.scrollY") == 0
    assert within_screen(box.bounding_box()), box.bounding_box()
    box.tap()
    box.fill(QUESTION)
    box.press("Enter")
    expect(page.locator(".source-card", has_text="Wei Ju").first).to_be_visible(
        timeout=ANSWER_TIMEOUT_MS
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    PHONE_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(PHONE_SCREENSHOT), full_page=True)

    # A tap on [1] shows its card's head and the quoted sentence on the screen at once (the
    # card was taller than the screen and the tap landed mid-abstract).
    card = page.locator("#t0-source-1")
    assert card.locator("mark").count() == 1, card.inner_html()
    page.locator("#chat a.cite[href$='#t0-source-1']").first.tap()
    expect(card.locator(".card-head")).to_be_in_viewport(ratio=1)
    expect(card.locator("mark")).to_be_in_viewport(ratio=0.5)
    heights = page.locator(".source-card").evaluate_all("cs => cs.map((c) => c.offsetHeight)")
    assert max(heights) <= PHONE["height"], heights
    page.evaluate("window.scrollTo(0, 0)")

    # The chat fills the screen below the title, an answer takes nearly its whole width (the
    # inset: test_browser_layout.py), and an abstention's edge is drawn once (Gradio nests a
    # second ".message" in the bubble).
    chat_box = page.locator("#chat").bounding_box()
    assert chat_box is not None and chat_box["height"] >= PHONE["height"] / 2, chat_box
    box.fill(OFF_TOPIC)
    box.press("Enter")
    bot = page.locator("#chat [data-testid='bot']")
    expect(bot.last).to_contain_text("No paper on this", timeout=ANSWER_TIMEOUT_MS)
    for message in (bot.first, bot.last):
        width = message.evaluate("(m) => m.closest('.message-row').getBoundingClientRect().width")
        assert width >= 0.85 * chat_box["width"], (width, chat_box)
    assert bot.last.evaluate(EDGES) == 1

    # Opened, the sidebar's toggle is on the screen too, and closes it again.
    toggle.tap()
    expect(sidebar).to_have_class(re.compile(r"\bopen\b"))
    page.wait_for_timeout(400)  # the slide-in transition
    assert within_screen(toggle.bounding_box()), toggle.bounding_box()
    toggle.tap()
    expect(sidebar).not_to_have_class(re.compile(r"\bopen\b"))
    page.close()


# How many boxes of a chat message draw a left edge (a turn kind's 4 px bar).
EDGES = """(m) => [m.closest('.message-row'), ...m.closest('.message-row').querySelectorAll('*')]
  .filter((e) => parseFloat(getComputedStyle(e).borderLeftWidth) >= 3).length"""


PLACEHOLDER_FITS = """() => {
  const box = document.querySelector('#question textarea');
  const style = getComputedStyle(box);
  const pen = document.createElement('canvas').getContext('2d');
  pen.font = style.font;
  const room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return pen.measureText(box.placeholder).width <= room;
}"""


def within_screen(box: dict[str, float] | None, size: dict[str, int] = PHONE) -> bool:
    return box is not None and (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"]
        and box["y"] + box["height"] <= size["height"]
    )


def test_progress_shows_at_once_and_a_second_submit_waits(browser: Browser, served: Served) -> None:
    from playwright.sync_api import expect

    page, _ = open_page(browser, served, [])
    page.evaluate(WATCH_JS)
    box = page.locator("#question textarea")
    box.fill(QUESTION)
    box.press("Enter")
    box.press("Enter")  # impatient: the same question again while the first runs
    expect(page.locator(".source-card", has_text="Wei Ju").first).to_be_visible(
        timeout=ANSWER_TIMEOUT_MS
    )

    seen = page.evaluate("window.seen")
    assert seen["pending"], "no progress line between Enter and the answer"
    assert seen["disabled"], "the question box took input while the answer was being made"
    expect(page.locator("#chat [data-testid='user']")).to_have_count(1)
    expect(box).to_be_enabled()
    expect(box).to_have_attribute("placeholder", QUESTION_PLACEHOLDER)
    page.close()


def test_abstention_looks_unlike_an_answer(browser: Browser, served: Served) -> None:
    from playwright.sync_api import expect

    page, _ = open_page(browser, served, [])
    box = page.locator("#question textarea")
    box.fill(QUESTION)
    box.press("Enter")
    bot = page.locator("#chat [data-testid='bot']")
    expect(bot.last).to_contain_text("[1]", timeout=ANSWER_TIMEOUT_MS)
    expect(box).to_be_enabled()
    box.fill(OFF_TOPIC)
    box.press("Enter")
    expect(bot).to_have_count(2, timeout=ANSWER_TIMEOUT_MS)
    expect(bot.last).to_contain_text("No paper on this", timeout=ANSWER_TIMEOUT_MS)

    def look(message: object) -> tuple[str, str]:
        return message.evaluate(  # type: ignore[attr-defined]
            """(m) => { const s = getComputedStyle(m.closest('.message.bot'));
              return [s.borderLeftColor + ' ' + s.borderLeftWidth, s.backgroundColor]; }"""
        )

    assert look(bot.first) != look(bot.last)
    label = bot.last.locator(".turn-label")
    expect(label).to_be_visible()
    assert color_of(label) != color_of(bot.first)
    page.close()


def test_settings_sidebar_is_hidden_off_the_ask_tab(browser: Browser, served: Served) -> None:
    from playwright.sync_api import expect

    page, _ = open_page(browser, served, [])
    sidebar = page.locator("#settings")
    expect(sidebar).to_be_visible()
    for tab, shown in (("Cite my draft", False), ("Library", False), ("Ask", True)):
        page.get_by_role("tab", name=tab).click()
        if shown:
            expect(sidebar).to_be_visible()
        else:
            expect(sidebar).to_be_hidden()
    # Every tab once: the tab bar still shows each tab once.
    assert page.get_by_role("tab").all_inner_texts() == ["Ask", "Cite my draft", "Library"]
    page.close()


def test_near_miss_is_cited_with_one_click_and_the_bib_waits_for_it(
    browser: Browser, served: Served
) -> None:
    from playwright.sync_api import expect

    near, key = near_miss_draft(served.index)
    page, _ = open_page(browser, served, [])
    page.get_by_role("tab", name="Cite my draft").click()
    download = page.locator("#draft-bib")
    expect(download).to_be_disabled()  # nothing to download before a run

    page.locator("#draft textarea").fill(near)
    page.locator("#cite-btn").click()
    offer = page.locator("#suggestions .near-miss")
    expect(offer).to_contain_text(key, timeout=ANSWER_TIMEOUT_MS)
    expect(offer).to_contain_text("below the 0.50 bar")
    expect(download).to_be_disabled()  # nothing was cited yet
    assert f"cite{{{key}" not in page.locator("#cited textarea").input_value()

    offer.get_by_role("button", name="Cite it anyway").click()

    expect(page.locator("#cited textarea")).to_have_value(
        re.compile(re.escape(f"~\\cite{{{key}}}")), timeout=ANSWER_TIMEOUT_MS
    )
    expect(download).to_be_enabled()
    expect(page.locator("#suggestions")).to_contain_text("below the 0.50 bar")
    with page.expect_download() as got:
        download.click()
    assert f"{{{key}," in Path(got.value.path()).read_text(encoding="utf-8")
    page.close()
