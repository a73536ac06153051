"""The chat's text as a reader sees it in a real browser (Debian's Chromium via Playwright).

What a new user met: a question with "<" or ">" (a bound, "p < 0.05") shown back with
"&lt;" in it, grey text too faint to read on the page's white, with the system set to
dark, an abstention's text white on a near-white bubble, and a fallback's label after the
sentences it is about.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from rag import prompts
from tests.faces.test_browser import OFF_TOPIC, PHONE, QUESTION
from tests.faces.test_browser_layout import DESKTOP, ask, open_desktop, open_phone

if TYPE_CHECKING:
    from playwright.sync_api import Browser

    from tests.ui_server import Served

pytestmark = pytest.mark.browser

# Comparison signs, an ampersand and Markdown's characters: each must read as typed.
TYPED = "Which graph methods keep accuracy > 90% when p < 0.05 & labels *are* noisy?"
# A follow-up rewritten with the chat's earlier turns, so that it says what was searched (the
# answer before it cites one paper: "the second one" would be told there is none).
TYPED_FOLLOW_UP = "what dataset did the first one use with < 5% noise?"


def test_question_and_searched_line_read_as_typed(browser: Browser, served: Served) -> None:
    page = open_desktop(browser, served)
    ask(page, TYPED)
    ask(page, QUESTION)
    ask(page, TYPED_FOLLOW_UP)

    bubbles = page.locator("#chat [data-testid='user']").all_inner_texts()
    users = [" ".join(u.split()) for u in bubbles]
    assert users == [TYPED, QUESTION, TYPED_FOLLOW_UP], users
    searched = page.locator("#chat .searched").last.inner_text()
    assert "< 5%" in searched, searched
    for text in (*users, searched):
        assert "&lt;" not in text and "&gt;" not in text and "&amp;" not in text, text
    page.close()


def test_a_bibtex_entry_in_the_chat_reads_as_it_is_to_be_pasted(
    browser: Browser, served: Served
) -> None:
    # Before: `note = {... MAI &amp; Loubes}`, the backslash gone, in 10 px type, after the
    # whole abstract (a new user's trial at 1280 and 390 px, stop 58).
    page = open_desktop(browser, served)
    ask(page, "what does the paper on fair ERM find?")
    ask(page, "how do I cite that?")
    entry = page.locator("#chat pre.bibtex").last
    text = entry.inner_text()
    assert text.startswith("@misc{mai,") and r"MAI \& Loubes" in text, text
    assert "&amp;" not in text and "abstract" not in text, text
    size = entry.locator("code").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 13, size
    page.close()


def test_two_bibtex_entries_in_the_chat_are_one_block(browser: Browser, served: Served) -> None:
    # Before: the blank line between the entries ended the block; the second showed as a
    # paragraph without its indentation (stop 58, at 1280 and 390 px).
    page = open_desktop(browser, served)
    for question in ("What is ConPress?", "What is TreePO?", "how do I cite both?"):
        ask(page, question)
    last = page.locator("#chat [data-testid='bot']").last
    assert last.locator("pre.bibtex").count() == 1
    text = last.locator("pre.bibtex").inner_text()
    assert text.count("@misc{") == 2 and "\n  author" in text, text
    page.close()


# The contrast ratio (WCAG 2) of each element's text colour to the background it sits on (the
# nearest ancestor's opaque background), by selector; absent selectors are left out.
CONTRASTS = """(selectors) => {
  const channel = (v) => {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const luminance = (color) => {
    const [r, g, b] = color.match(/[\\d.]+/g).map(Number);
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  };
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const color = getComputedStyle(el).backgroundColor;
      if (!/^rgba\\(.*, 0\\)$/.test(color) && color !== "transparent") return color;
    }
    return "rgb(255, 255, 255)";
  };
  const ratios = {};
  for (const selector of selectors) {
    const el = document.querySelector(selector);
    if (!el) continue;
    const [a, b] = [luminance(getComputedStyle(el).color), luminance(background(el))];
    ratios[selector] = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }
  return ratios;
}"""
# The page's secondary text: the intro, the sidebar's hint, what a follow-up searched, and the
# source cards' question line, metadata and "derived label" mark.
SECONDARY = [
    "#intro p",
    ".hint p",
    "#chat .searched",
    ".sources-for",
    ".card-meta",
    ".card-head .derived",
]
AA_RATIO = 4.5  # WCAG AA for text under 18 pt


def test_secondary_text_is_readable_on_its_background(browser: Browser, served: Served) -> None:
    page = open_desktop(browser, served)
    ask(page, QUESTION)
    ask(page, TYPED_FOLLOW_UP)

    ratios = page.evaluate(CONTRASTS, SECONDARY)
    assert set(ratios) == set(SECONDARY), ratios
    faint = {selector: round(r, 2) for selector, r in ratios.items() if r < AA_RATIO}
    assert not faint, f"text under {AA_RATIO}:1 contrast: {faint}"
    page.close()


# Dark mode (the system's setting, which Gradio follows): what carries a colour of its own.
DARK_TEXT = [
    "#chat .message.bot:has(.turn-abstained) [data-testid='bot']",
    "#chat .turn-abstained",
    "#chat .message.bot:has(.turn-error) [data-testid='bot']",
    "#chat .turn-error",
    ".card-abstract .role-tag",
    ".card-abstract mark",
]


def test_dark_mode_keeps_every_turn_and_tag_readable(browser: Browser, served: Served) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800}, color_scheme="dark")
    page.goto(served.url, wait_until="domcontentloaded")
    page.wait_for_selector("#question textarea", state="visible")
    ask(page, QUESTION)  # cards with a tagged, highlighted sentence
    ask(page, OFF_TOPIC)  # an abstention
    page.locator("#settings [placeholder='e.g. Wei Ju']").fill("Nobody Byname")
    ask(page, QUESTION)  # an error: no paper matches the author filter

    ratios = page.evaluate(CONTRASTS, DARK_TEXT)
    assert set(ratios) == set(DARK_TEXT), ratios
    faint = {selector: round(r, 2) for selector, r in ratios.items() if r < AA_RATIO}
    assert not faint, f"text under {AA_RATIO}:1 contrast in dark mode: {faint}"
    page.close()


def test_a_long_url_in_an_abstract_wraps_inside_its_card_on_a_phone(
    browser: Browser, served: Served
) -> None:
    # Before: CURE's "https://anonymous.4open.science/r/cure_9C6E/." ran past the card's right
    # edge at 390 px and was clipped (a new user's trial, stop 59).
    page = open_phone(browser, served)
    ask(page, "how does CURE work?")
    card = page.locator(".source-card", has_text="4open.science").first
    card.locator("summary").first.tap()
    abstract = card.locator(".card-abstract")
    assert "https://anonymous.4open.science/r/cure_9C6E/" in abstract.inner_text()
    width, scroll = abstract.evaluate("(a) => [a.clientWidth, a.scrollWidth]")
    assert scroll <= width, (scroll, width)
    page.close()


@pytest.fixture(scope="module")
def served_with_model(served: Served) -> Iterator[str]:
    """The chat over the same seeds, its model an OpenAI-compatible server whose every answer
    the papers do not support (so the page shows the quoted evidence instead): its URL."""
    from rag.ui import app as ui
    from tests.openai_server import FakeOpenAIServer
    from tests.ui_server import free_port

    unsupported = "Sourdough bread rises overnight in a warm kitchen [1]."
    with FakeOpenAIServer(reply=unsupported) as model:
        settings = served.index.settings.model_copy(
            update={"backend": "openai", "openai_base_url": model.base_url,
                    "openai_api_key": "test-key", "port": free_port()}
        )  # fmt: skip
        app = ui.build_app(settings, served.index)
        app.launch(**{**ui.launch_options(settings), "prevent_thread_lock": True, "quiet": True})
        try:
            yield f"http://127.0.0.1:{settings.port}/"
        finally:
            app.close()


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_fallbacks_label_comes_before_the_sentences_it_is_about(
    browser: Browser, served_with_model: str, size: dict[str, int]
) -> None:
    # Before: "Fallback" and its reason came after the quoted sentence, so the reader took it
    # for the model's answer until the end (a new user with the local model, at 1280 px).
    phone = size == PHONE
    page = browser.new_page(viewport=size, is_mobile=phone, has_touch=phone)
    page.goto(served_with_model, wait_until="domcontentloaded")
    ask(page, QUESTION)
    answer = page.locator("#chat [data-testid='bot']").last
    label, quote = answer.locator(".turn-fallback"), answer.locator("a.cite").first
    text = " ".join(answer.inner_text().split())
    assert text.startswith(f"Fallback {prompts.NO_SUPPORTED_SENTENCE}"), text
    above, below = label.bounding_box(), quote.bounding_box()
    assert above is not None and below is not None
    assert above["y"] + above["height"] <= below["y"], (above, below)  # read first
    page.close()
