"""The chat page's layout across widths in a real browser (Debian's Chromium via Playwright).

What a new user met resizing a window mid-conversation and reading on a phone: the sidebar,
the chat's scrolling, the answer bubbles, and what a screen reader is told about a message.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.faces.test_browser import ANSWER_TIMEOUT_MS, PHONE, QUESTION

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

    from tests.ui_server import Served

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
NARROW = {"width": 700, "height": 800}  # under the phone breakpoint (768 px)
OPEN = re.compile(r"\bopen\b")
FOLLOW_UP = "what dataset did the second one use?"  # rewritten with the chat's earlier turns
INSET_PX = 6  # an answer bubble's least distance from the chat's border on a phone
# Three answers overflow the chat at 1280 px, so that it scrolls.
QUESTIONS = [
    QUESTION,
    "How can large language models be made to reason more reliably?",
    "Which papers study the fairness of machine learning models?",
]
# True when a tap at the middle of the first element matching the selector reaches it.
REACHED = """(selector) => {
  const target = document.querySelector(selector);
  const box = target.getBoundingClientRect();
  const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
  return !!hit && target.contains(hit);
}"""
SLID_IN = "() => document.querySelector('#settings').getBoundingClientRect().x === 0"
# Two animation frames: the layout after a resize is drawn, and its observers have run.
DRAWN = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
# No transition runs (the sidebar's slide, the page's padding): the layout has settled.
SETTLED = """() => document.getAnimations()
  .every((a) => a.playState !== "running" || a.effect.getTiming().iterations === Infinity)"""


def open_desktop(browser: Browser, served: Served) -> Page:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(served.url, wait_until="domcontentloaded")
    page.wait_for_selector("#question textarea", state="visible")
    return page


def open_phone(browser: Browser, served: Served) -> Page:
    page = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    page.goto(served.url, wait_until="domcontentloaded")
    return page


def closed_sidebar(page: Page) -> tuple[Locator, Locator]:
    """The settings sidebar as a phone first shows it, closed and settled, and its toggle."""
    from playwright.sync_api import expect

    sidebar = page.locator("#settings")
    expect(sidebar).not_to_have_class(OPEN)
    page.wait_for_function(SETTLED)
    return sidebar, sidebar.locator(".toggle-button")


def ask(page: Page, question: str) -> None:
    """Ask `question` and wait until its answer is complete and the box takes input again."""
    from playwright.sync_api import expect

    bot = page.locator("#chat [data-testid='bot']")
    before = bot.count()
    box = page.locator("#question textarea")
    box.fill(question)
    box.press("Enter")
    expect(bot).to_have_count(before + 1, timeout=ANSWER_TIMEOUT_MS)
    expect(page.locator("#chat .turn-pending")).to_have_count(0, timeout=ANSWER_TIMEOUT_MS)
    expect(box).to_be_enabled(timeout=ANSWER_TIMEOUT_MS)


def scrolled_up(page: Page) -> None:
    """Scroll the chat to its start, once the page has placed the complete answer (from its
    question down, off the chat's end), so that the chat offers its "↓" button."""
    from playwright.sync_api import expect

    page.wait_for_function(
        "() => { const l = document.querySelector('#chat .bubble-wrap');"
        " return l.scrollHeight - l.scrollTop - l.clientHeight > 100; }",
        timeout=5000,
    )
    page.locator("#chat .bubble-wrap").evaluate("(log) => log.scrollTo(0, 0)")
    expect(page.locator("#chat .scroll-down-button-container button")).to_be_visible()


def resize(page: Page, size: dict[str, int]) -> None:
    """Resize the page and wait until its layout has settled (transitions reflow the chat)."""
    page.set_viewport_size(size)
    page.evaluate(DRAWN)
    page.wait_for_function(SETTLED)
    page.evaluate(DRAWN)


def test_sidebar_closes_when_the_window_narrows_and_reopens_when_it_widens(
    browser: Browser, served: Served
) -> None:
    from playwright.sync_api import expect

    page = open_desktop(browser, served)
    ask(page, QUESTION)
    sidebar = page.locator("#settings")
    expect(sidebar).to_have_class(OPEN)

    # Narrowed mid-conversation, the full-width sidebar no longer covers the chat and the box.
    resize(page, NARROW)
    expect(sidebar).not_to_have_class(OPEN)
    for target in ("#question textarea", "#chat [data-testid='bot']"):
        page.wait_for_function(REACHED, arg=target)
    toggle = sidebar.locator(".toggle-button").bounding_box()
    assert toggle is not None and 0 <= toggle["x"] <= NARROW["width"] - toggle["width"], toggle

    # Widened again, it is open as on a desktop page's start.
    resize(page, DESKTOP)
    expect(sidebar).to_have_class(OPEN)
    page.wait_for_function(REACHED, arg="#question textarea")
    page.close()


def test_chat_scroll_button_stays_under_the_open_sidebar(browser: Browser, served: Served) -> None:
    from playwright.sync_api import expect

    page = open_desktop(browser, served)
    for question in QUESTIONS:
        ask(page, question)
    resize(page, NARROW)
    sidebar = page.locator("#settings")
    if "open" not in (sidebar.get_attribute("class") or "").split():
        sidebar.locator(".toggle-button").click()
    # Slid in over the whole page (Gradio: full width below 768 px).
    page.wait_for_function(SLID_IN)
    # Scrolled up, the chat offers its "↓" button; the sidebar lies over it, not under it.
    page.locator("#chat .bubble-wrap").evaluate("(log) => log.scrollTo(0, 0)")
    button = page.locator("#chat .scroll-down-button-container")
    expect(button).to_be_attached()
    box = button.bounding_box()
    assert box is not None, "no scroll button"
    under = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('#settings, #chat')?.id",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert under == "settings", f"the chat's scroll button lies over the open sidebar ({under})"
    page.close()


def test_chat_follows_the_newest_answer_after_a_resize(browser: Browser, served: Served) -> None:
    from playwright.sync_api import expect

    page = open_desktop(browser, served)
    for question in QUESTIONS:
        ask(page, question)
    newest = page.locator("#chat [data-testid='bot']").last
    expect(newest).to_be_in_viewport(ratio=0.9)  # the chat scrolls, and is at its end

    # Reflowed narrower and back, the chat keeps showing its end, and the next answer too.
    resize(page, NARROW)
    expect(newest).to_be_in_viewport(ratio=0.9)
    resize(page, DESKTOP)
    expect(newest).to_be_in_viewport(ratio=0.9)
    ask(page, "Which papers use contrastive learning?")
    expect(page.locator("#chat [data-testid='bot']").last).to_be_in_viewport(ratio=0.9)
    page.close()


def test_phone_answer_is_inset_in_the_chat_and_clear_of_its_clear_button(
    browser: Browser, served: Served
) -> None:
    page = open_phone(browser, served)
    for question in QUESTIONS[:2]:
        ask(page, question)
    chat = page.locator("#chat").bounding_box()
    clear = page.locator("#chat button[aria-label='Clear']").bounding_box()
    assert chat is not None and clear is not None
    for bubble in page.locator("#chat .message.bot").all():
        box = bubble.bounding_box()
        text = bubble.locator("[data-testid='bot']").bounding_box()
        assert box is not None and text is not None
        # A small inset from the chat's border on both sides, most of the width still used.
        assert box["x"] >= chat["x"] + INSET_PX, (box, chat)
        assert box["x"] + box["width"] <= chat["x"] + chat["width"] - INSET_PX, (box, chat)
        assert box["width"] >= 0.85 * chat["width"], (box, chat)
        # The Clear button floats over the chat's top-right corner as the answers scroll
        # under it: no part of a bubble, let alone its text, lies in its column.
        assert text["x"] + text["width"] <= clear["x"], (text, clear)
        assert box["x"] + box["width"] <= clear["x"], (box, clear)
    page.close()


def test_desktop_question_bubble_is_clear_of_the_chats_clear_button(
    browser: Browser, served: Served
) -> None:
    # A new user at 1280 px (stop 66): the Clear button covered the right edge of the question
    # bubble at the top of the chat ("kv cache", "what do they propose instead?").
    page = open_desktop(browser, served)
    ask(page, "kv cache")
    # the button's framed column (23 px), not its 18 px icon
    column = "#chat .icon-button-wrapper:has(button[aria-label='Clear'])"
    clear = page.locator(column).bounding_box()
    bubble = page.locator("#chat .message.user").first.bounding_box()
    assert clear is not None and bubble is not None
    assert bubble["x"] + bubble["width"] <= clear["x"], (bubble, clear)
    page.close()


def test_desktop_scroll_button_lies_over_no_answer_text(browser: Browser, served: Served) -> None:
    # A new user at 1280 px (stop 67): scrolled up, the chat's "↓" sat mid-width over an
    # answer ("De↓ng et al. (ConPress)"); only phones had it moved to the free right column.
    page = open_desktop(browser, served)
    for question in [*QUESTIONS, *QUESTIONS]:  # the chat overflows, so that it scrolls
        ask(page, question)
    page.locator("#chat .bubble-wrap").hover()
    page.mouse.wheel(0, -3000)  # the reader scrolls up
    # read at once, while the button is on the page (Gradio redraws it as the chat moves)
    button, texts = page.wait_for_function(
        "() => { const b = document.querySelector('#chat .scroll-down-button-container button');"
        " if (!b || !b.isConnected) return null; const box = (e) => { const r ="
        " e.getBoundingClientRect(); return [r.x, r.y, r.x + r.width, r.y + r.height]; };"
        " const texts = document.querySelectorAll(\"#chat [data-testid='bot']\");"
        " return [box(b), [...texts].map(box)]; }",
        timeout=5000,
    ).json_value()
    x0, y0, x1, y1 = button
    for left, top, right, bottom in texts:
        assert right <= x0 or bottom <= y0 or top >= y1 or left >= x1, (button, texts)
    page.close()


def test_phone_empty_chat_text_is_inset_from_its_border(browser: Browser, served: Served) -> None:
    # A new user at 390 px (stop 63): "Ask a question about the papers, or start with an
    # example:" ran against the chat's left border.
    page = open_phone(browser, served)
    page.wait_for_selector("#chat .placeholder", state="visible")
    chat = page.locator("#chat").bounding_box()
    words = page.locator("#chat .placeholder p").first.bounding_box()
    assert chat is not None and words is not None
    assert words["x"] >= chat["x"] + INSET_PX, (words, chat)
    assert words["x"] + words["width"] <= chat["x"] + chat["width"] - INSET_PX, (words, chat)
    page.close()


TAP_TARGETS = (  # what a reader taps on a phone, beside the chat's own links
    "#export-md",
    "#export-bib",
    "#question .submit-button",
    "[role='tablist'] > button[role='tab']",
    ".source-card:visible summary",
    ".source-card:visible .copy-bib",
)
FINGER_PX = 44  # the usual least size of a touch target


def test_phone_controls_are_big_enough_for_a_finger(browser: Browser, served: Served) -> None:
    # A new user at 390 px: the exports were 26 px high, Ask 30, the tabs 32, a card's BibTeX
    # toggle 19 and its Copy 21.
    page = open_phone(browser, served)
    ask(page, QUESTIONS[0])
    page.locator(".source-card:visible summary").first.click()  # shows its Copy button
    for selector in TAP_TARGETS:
        targets = page.locator(selector)
        assert targets.count(), selector
        for target in targets.all():
            box = target.bounding_box()
            assert box is not None and box["height"] >= FINGER_PX, (selector, box)
    ask_box = page.locator("#question .submit-button").bounding_box()
    assert ask_box is not None and ask_box["width"] >= FINGER_PX, ask_box
    # The other tabs' buttons too: the draft's Download .bib was 26 px high, its Suggest
    # citations 40 (a new user, stop 65).
    for tab, selectors in (
        ("Cite my draft", ("#cite-btn", "#draft-bib")),
        ("Library", ("#remove-btn",)),
    ):
        page.get_by_role("tab", name=tab).click()
        for selector in selectors:
            box = page.locator(selector).bounding_box()
            assert box is not None and box["height"] >= FINGER_PX, (selector, box)
    page.close()


def test_screen_readers_are_told_each_message_as_plain_text(
    browser: Browser, served: Served
) -> None:
    page = open_desktop(browser, served)
    # Answers with [n] links, one with "&" in a name, and a rewritten follow-up ("Searched
    # for: ...").
    for question in (QUESTIONS[2], "graph neural networks on graph data", FOLLOW_UP):
        ask(page, question)
    messages = page.locator("#chat [data-testid='bot'], #chat [data-testid='user']").all()
    labels = [(m.get_attribute("aria-label") or "", m.inner_text()) for m in messages]
    assert any("&" in text for _, text in labels), labels
    assert any("Searched for" in text for _, text in labels), labels
    for label, text in labels:
        assert not re.search(r"<|&\w+;|\\", label), label
        assert label.endswith(" ".join(text.split())), (label, text)
    page.close()


def test_phone_sidebar_toggle_is_whole_on_the_screen(browser: Browser, served: Served) -> None:
    page = open_phone(browser, served)
    _, toggle = closed_sidebar(page)
    box = toggle.bounding_box()
    tab = page.get_by_role("tab", name="Ask").bounding_box()
    assert box is not None and tab is not None
    # Not a half circle cut by the screen's edge: off the edge, outlined all round, and
    # beside the tabs rather than over them.
    assert box["x"] >= 2 and box["x"] + box["width"] <= tab["x"], (box, tab)
    assert toggle.evaluate("(t) => parseFloat(getComputedStyle(t).borderLeftWidth)") >= 1
    page.close()


def test_phone_footer_has_no_stray_separator(browser: Browser, served: Served) -> None:
    from playwright.sync_api import expect

    page = open_phone(browser, served)
    footer = page.locator("footer")
    expect(footer).to_contain_text("Settings")
    # Gradio hides "Use via API" on phones but not the "·" after it.
    assert " ".join(footer.inner_text().split()).startswith("Settings"), footer.inner_text()
    page.close()


# Every side's border width and every corner's radius of an element, in px.
OUTLINE = """(t) => { const s = getComputedStyle(t); return [
  ...["Top", "Right", "Bottom", "Left"].map((side) => parseFloat(s[`border${side}Width`])),
  ...["TopLeft", "TopRight", "BottomRight", "BottomLeft"].map(
    (corner) => parseFloat(s[`border${corner}Radius`])),
]; }"""


def test_phone_open_sidebar_toggle_is_a_whole_pill(browser: Browser, served: Served) -> None:
    from playwright.sync_api import expect

    page = open_phone(browser, served)
    sidebar, toggle = closed_sidebar(page)
    toggle.tap()
    expect(sidebar).to_have_class(OPEN)
    page.wait_for_function(SETTLED)
    # Open, it sits 8 px from the screen's edge: a side left open read as a shape cut off.
    *borders, top_left, top_right, bottom_right, bottom_left = toggle.evaluate(OUTLINE)
    assert all(width >= 1 for width in borders), borders
    assert top_left == top_right == bottom_right == bottom_left > 0, (top_left, top_right)
    page.close()


def test_library_table_shows_every_column_on_a_desktop(browser: Browser, served: Served) -> None:
    from playwright.sync_api import expect

    page = open_desktop(browser, served)
    page.get_by_role("tab", name="Library").click()
    table = page.locator("#papers")
    expect(table.locator("th", has_text="Area")).to_be_visible()
    page.evaluate(DRAWN)
    # Long areas ("Social Aspects · Accountability, ...") widened their column past the
    # screen's edge, so the Area column was out of sight until the table was scrolled sideways.
    view = table.locator(".virtual-table-viewport")
    width, scroll = view.evaluate("(v) => [v.clientWidth, v.scrollWidth]")
    assert scroll <= width, (scroll, width)
    box = view.bounding_box()
    assert box is not None
    for header in table.locator("th").all():
        cell = header.bounding_box()
        assert cell is not None
        assert cell["x"] + cell["width"] <= box["x"] + box["width"] + 1, (
            header.inner_text(),
            cell,
            box,
        )
    page.close()


def test_a_long_answer_is_shown_from_its_question_down_once_complete(
    browser: Browser, served: Served
) -> None:
    # Before: the chat stayed at the answer's end, and on a phone the reader saw the sixth
    # paper's line alone, the finding that opens the answer scrolled away (a new user, stop 59).
    from playwright.sync_api import expect

    page = open_phone(browser, served)
    closed_sidebar(page)
    ask(page, "Which papers study large language models?")
    log = page.locator("#chat .bubble-wrap")
    answer = page.locator("#chat [data-testid='bot']").last
    height = answer.evaluate("(a) => a.getBoundingClientRect().height")
    assert height > log.evaluate("(l) => l.clientHeight"), "the answer fits: nothing to test"
    expect(page.locator("#chat [data-testid='user']").last).to_be_in_viewport()
    top = answer.evaluate("(a) => a.getBoundingClientRect().top")
    view = log.evaluate("(l) => [l.getBoundingClientRect().top, l.getBoundingClientRect().bottom]")
    assert view[0] <= top < view[1], (top, view)  # its first line is on the screen
    page.close()


def test_the_next_answer_after_a_long_one_is_on_screen(browser: Browser, served: Served) -> None:
    # Shown from its question down, a long answer left the chat off its end, so Gradio stopped
    # following it: the next question's answer landed below the fold, the old answer still on
    # screen (a phone, 9 of 22 follow-ups; a new user, stop 60).
    page = open_phone(browser, served)
    closed_sidebar(page)
    ask(page, "Which papers study large language models?")
    log = page.locator("#chat .bubble-wrap")
    # shown from its question down once the chat is quiet: then it is off its end
    page.wait_for_function(
        "() => { const l = document.querySelector('#chat .bubble-wrap');"
        " return l.scrollHeight - l.scrollTop - l.clientHeight > 100; }",
        timeout=5000,
    )
    ask(page, "What is ConPress?")
    view = log.evaluate("(l) => [l.getBoundingClientRect().top, l.getBoundingClientRect().bottom]")
    for role in ("user", "bot"):
        last = page.locator(f"#chat [data-testid='{role}']").last
        top = last.evaluate("(a) => a.getBoundingClientRect().top")
        assert view[0] <= top < view[1], (role, top, view)
    page.close()


def test_the_chat_scroll_button_hides_the_text_under_it(browser: Browser, served: Served) -> None:
    # A bare "↓" on the text garbled it on a phone ("g↓eral", "trajectorie↓are"; a new user,
    # stop 60): the button is a filled circle with an edge.
    page = open_phone(browser, served)
    closed_sidebar(page)
    ask(page, "Which papers study large language models?")
    scrolled_up(page)
    # read while the button is on the page (Gradio redraws it as the chat moves)
    style = page.wait_for_function(
        "() => { const b = document.querySelector('#chat .scroll-down-button-container button');"
        " if (!b || !b.isConnected) return null; const s = getComputedStyle(b);"
        " return [s.backgroundColor, s.borderTopWidth, s.borderTopColor]; }",
        timeout=5000,
    ).json_value()
    background, width, edge = style
    clear = ("transparent", "rgba(0, 0, 0, 0)")
    assert background not in clear, style
    # white on the white answer with a clear edge, the circle was not seen: its edge is
    assert width != "0px" and edge not in clear and edge != background, style
    page.close()
