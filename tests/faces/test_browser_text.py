"""The chat's text as a reader sees it in a real browser (Debian's Chromium via Playwright).

What a new user met: a question with "<" or ">" (a bound, "p < 0.05") shown back with
"&lt;" in it, and grey text too faint to read on the page's white.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.faces.test_browser import QUESTION
from tests.faces.test_browser_layout import ask, open_desktop

if TYPE_CHECKING:
    from playwright.sync_api import Browser

    from tests.ui_server import Served

pytestmark = pytest.mark.browser

# Comparison signs, an ampersand and Markdown's characters: each must read as typed.
TYPED = "Which graph methods keep accuracy > 90% when p < 0.05 & labels *are* noisy?"
# A follow-up rewritten with the chat's earlier turns, so that it says what was searched.
TYPED_FOLLOW_UP = "what dataset did the second one use with < 5% noise?"


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
