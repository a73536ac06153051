"""The chat by keyboard in a real browser (Debian's Chromium via Playwright).

What a new user met: the question box is locked while an answer is made, which took its
focus away, so a follow-up typed right after the answer went nowhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.faces.test_browser import ANSWER_TIMEOUT_MS, QUESTION
from tests.faces.test_browser_layout import FOLLOW_UP, open_desktop, open_phone

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

    from tests.ui_server import Served

pytestmark = pytest.mark.browser

IN_THE_BOX = "() => !!document.activeElement?.closest('#question')"


def wait_for_answer(page: Page, count: int) -> None:
    """Wait until the chat holds `count` answers, the last complete, and the box is free."""
    from playwright.sync_api import expect

    expect(page.locator("#chat [data-testid='bot']")).to_have_count(
        count, timeout=ANSWER_TIMEOUT_MS
    )
    expect(page.locator("#chat .turn-pending")).to_have_count(0, timeout=ANSWER_TIMEOUT_MS)
    expect(page.locator("#question textarea")).to_be_enabled(timeout=ANSWER_TIMEOUT_MS)


def test_follow_up_is_typed_straight_after_the_answer(browser: Browser, served: Served) -> None:
    from playwright.sync_api import expect

    page = open_desktop(browser, served)
    box = page.locator("#question textarea")
    box.click()
    page.keyboard.type(QUESTION)
    page.keyboard.press("Enter")
    wait_for_answer(page, 1)

    # No click on the box first: the keys go into it.
    page.keyboard.type(FOLLOW_UP)
    expect(box).to_have_value(FOLLOW_UP)
    page.keyboard.press("Enter")
    wait_for_answer(page, 2)

    # An example asked by a click leaves the box ready too.
    page.locator("#chat button[aria-label='Clear']").click()
    page.get_by_text(QUESTION).first.click()
    wait_for_answer(page, 1)
    assert page.evaluate(IN_THE_BOX), "the question box lost its focus to the example"
    page.close()


def test_phone_keyboard_is_not_raised_over_the_new_answer(browser: Browser, served: Served) -> None:
    page = open_phone(browser, served)
    box = page.locator("#question textarea")
    box.tap()
    box.fill(QUESTION)
    box.press("Enter")
    wait_for_answer(page, 1)
    page.wait_for_timeout(300)  # the page script would have focused the box by now
    # Focus on a touch screen opens the on-screen keyboard over the answer being read.
    assert not page.evaluate(IN_THE_BOX)
    page.close()
