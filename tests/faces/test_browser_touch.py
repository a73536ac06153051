"""What a finger meets on a phone, in a real browser (Debian's Chromium via Playwright).

A new user at 390 px: an answer's [n], the chat's Clear, the sidebar's toggle and the footer's
Settings were too small to hit, and the chat's "↓" button sat over the answer's text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.faces.test_browser import QUESTION
from tests.faces.test_browser_layout import (
    DESKTOP,
    FINGER_PX,
    ask,
    closed_sidebar,
    open_desktop,
    open_phone,
    scrolled_up,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

    from tests.ui_server import Served

pytestmark = pytest.mark.browser

LONG = "Which papers study large language models?"  # an answer taller than the chat
# An element brought into view, then the extent around its middle where a tap reaches it, as
# [width, height, left] in CSS px (null when its middle does not): its invisible area counts.
TAP_AREA = """(target) => {
  target.scrollIntoView({ block: "center" });
  const box = target.getBoundingClientRect();
  const x = box.x + box.width / 2, y = box.y + box.height / 2;
  const on = (px, py) => {
    const hit = document.elementFromPoint(px, py);
    return !!hit && target.contains(hit);
  };
  if (!on(x, y)) return null;
  let [left, right, top, bottom] = [x, x, y, y];
  while (on(left - 1, y)) left -= 1;
  while (on(right + 1, y)) right += 1;
  while (on(x, top - 1)) top -= 1;
  while (on(x, bottom + 1)) bottom += 1;
  return [right - left + 1, bottom - top + 1, left];
}"""
# Kept at their size on a phone (the text and the chat look as before), each with an
# invisible area a finger hits: 28 x 19, 18 x 18, 28 x 32 and 81 x 21 px before.
SMALL_TARGETS = (
    "#chat a.cite",
    "#chat button[aria-label='Clear']",
    "#settings .toggle-button",
    "footer button.settings",
)
# The right edge of the answers' bubbles, the furthest one's (CSS px).
ANSWERS_RIGHT = """() => Math.max(...[...document.querySelectorAll("#chat .message.bot")]
  .map((b) => b.getBoundingClientRect().right))"""


def test_phone_small_controls_have_a_finger_sized_tap_area(
    browser: Browser, served: Served
) -> None:
    page = open_phone(browser, served)
    closed_sidebar(page)
    ask(page, QUESTION)
    areas = {
        selector: page.locator(selector).first.evaluate(TAP_AREA) for selector in SMALL_TARGETS
    }
    small = {
        selector: area
        for selector, area in areas.items()
        if area is None or area[0] < FINGER_PX or area[1] < FINGER_PX
    }
    assert not small, f"under {FINGER_PX} px of tap area ([width, height, left]): {small}"
    # What lies beside them is still reached whole: the Ask tab beside the toggle, the
    # answers beside the Clear button.
    tab = page.get_by_role("tab", name="Ask").first.evaluate(TAP_AREA)
    assert tab is not None and tab[0] >= FINGER_PX, tab
    clear = page.locator("#chat button[aria-label='Clear']").evaluate(TAP_AREA)
    assert clear[2] >= page.evaluate(ANSWERS_RIGHT), clear
    # The [n] keeps the line it is in: no taller than the text.
    height = page.locator("#chat a.cite").first.evaluate("(a) => a.offsetHeight")
    assert height < FINGER_PX / 2, height
    page.close()


def test_desktop_small_controls_keep_their_size(browser: Browser, served: Served) -> None:
    # A mouse points precisely: on a desktop the phone's areas would take clicks meant for
    # the text around an [n].
    page = open_desktop(browser, served)
    ask(page, QUESTION)
    link = page.locator("#chat a.cite").first
    area, box = link.evaluate(TAP_AREA), link.bounding_box()
    assert area is not None and box is not None
    assert area[0] <= box["width"] + 1 and area[1] <= box["height"] + 1, (area, box)
    page.close()


@pytest.mark.parametrize("size", ["phone", "narrow"])
def test_the_chat_scroll_button_covers_no_answer_text(
    browser: Browser, served: Served, size: str
) -> None:
    # It sat mid-width over the answer's text at 390 px; it keeps a finger-sized area.
    page = open_phone(browser, served)
    if size == "narrow":
        page.set_viewport_size({"width": 480, "height": DESKTOP["height"]})
    closed_sidebar(page)
    ask(page, LONG)
    scrolled_up(page)
    button = page.locator("#chat .scroll-down-button-container button")
    box = button.bounding_box()
    chat = page.locator("#chat").bounding_box()
    assert box is not None and chat is not None
    right = page.evaluate(ANSWERS_RIGHT)
    assert box["x"] >= right, f"the button ({box}) lies over the answers (their edge at {right})"
    assert box["x"] + box["width"] <= chat["x"] + chat["width"], (box, chat)  # in the chat
    area = button.evaluate(TAP_AREA)
    assert area is not None and area[0] >= FINGER_PX and area[1] >= FINGER_PX, area
    assert area[2] >= right, area  # nor does its area take taps meant for an answer's [n]
    page.close()
