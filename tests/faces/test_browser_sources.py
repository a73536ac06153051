"""Every answer's `[n]` in a real browser (Debian's Chromium via Playwright): a click shows
that answer's source cards, also after later answers replaced them in the panel."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from rag import api
from rag.answer.rendering import quoted_sentences
from tests.faces.test_browser import ANSWER_TIMEOUT_MS, LLM_QUESTION, PHONE, QUESTION

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

    from tests.ui_server import Served

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
THIRD = "Which papers study the fairness of machine learning models?"


def first_paper(served: Served, question: str) -> str:
    """Return the citation key of the paper the answer to `question` cites as [1]."""
    answer = api.ask(question, index=served.index, settings=served.index.settings)
    return answer.citations[0].hit.paper.citation_key


# An abstract box's quoted sentence lies within the box; taller than the box, it starts in it.
# (Before, a quarter of the box went above it, and a long finding was cut off mid-way.)
WHOLE_MARK_SHOWN = """box => {
  const mark = box.querySelector("mark.first") || box.querySelector("mark");
  const b = box.getBoundingClientRect();
  const m = mark.getBoundingClientRect();
  const starts = m.top >= b.top - 1 && m.top < b.bottom;
  return m.height > b.height ? starts : starts && m.bottom <= b.bottom + 1;
}"""

# The box is scrolled by whole lines, its top line not cut through its letters.
TOP_LINE_WHOLE = """box => {
  const style = getComputedStyle(box), line = parseFloat(style.lineHeight);
  const off = (box.scrollTop - (parseFloat(style.paddingTop) || 0)) % line;
  return box.scrollTop === 0 || off < 1 || line - off < 1;
}"""


def ask(page: Page, question: str, turn: int) -> None:
    """Ask `question`, the chat's question `turn` (0 the first), and wait for its cards."""
    from playwright.sync_api import expect

    box = page.locator("#question textarea")
    box.fill(question)
    box.press("Enter")
    expect(page.locator(f"#t{turn}-source-1")).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    expect(box).to_be_enabled(timeout=ANSWER_TIMEOUT_MS)


def shown_heading(page: Page) -> Locator:
    """The heading of the source cards the panel shows: the question they are for."""
    return page.locator("#sources .sources-for:visible")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_an_earlier_answers_number_shows_that_answers_card(
    browser: Browser, served: Served, size: dict[str, int]
) -> None:
    from playwright.sync_api import expect

    phone = size == PHONE
    page = browser.new_page(viewport=size, is_mobile=phone, has_touch=phone)
    page.goto(served.url, wait_until="domcontentloaded")
    papers = [first_paper(served, q) for q in (QUESTION, LLM_QUESTION)]
    assert papers[0] != papers[1]
    ask(page, QUESTION, 0)
    ask(page, LLM_QUESTION, 1)
    answers = page.locator("#chat [data-testid='bot']")
    earlier, latest = page.locator("#t0-source-1"), page.locator("#t1-source-1")
    expect(earlier).to_be_hidden()  # the panel shows the latest answer's cards

    def follow(answer: Locator, card: Locator) -> None:
        """Click (tap) `answer`'s [1] and check its card is shown as a latest answer's is."""
        link = answer.locator("a.cite", has_text="[1]").first
        link.tap() if phone else link.click()
        # Outlined for 1.5 s: read first, before the slower checks below let it go.
        expect(card).to_have_class(re.compile(r"\bflash\b"))
        # Its head on the screen, and on a phone the abstract opened at the quoted sentence.
        expect(card.locator(".card-head")).to_be_in_viewport(ratio=1)
        # (the sentence the answer quoted first, when it quoted two: `mark.first`)
        first = card.locator("mark.first")
        shown = first if first.count() else card.locator("mark").first
        expect(shown).to_be_in_viewport(ratio=0.5)
        if phone:  # the whole quoted sentence inside its abstract's box, where it fits
            assert card.locator(".card-abstract").evaluate(WHOLE_MARK_SHOWN)

    follow(answers.first, earlier)
    expect(earlier).to_contain_text(papers[0])
    expect(shown_heading(page)).to_have_text(f"for “{QUESTION}”")
    expect(latest).to_be_hidden()

    follow(answers.last, latest)
    expect(latest).to_contain_text(papers[1])
    expect(shown_heading(page)).to_have_text(f"for “{LLM_QUESTION}”")
    expect(earlier).to_be_hidden()

    # Looking at the first answer's cards, a new answer brings its own.
    follow(answers.first, earlier)
    ask(page, THIRD, 2)
    expect(shown_heading(page)).to_have_text(f"for “{THIRD}”")
    expect(earlier).to_be_hidden()
    assert len(page.context.pages) == 1, "a citation link opened another tab"
    page.close()


@pytest.mark.parametrize(
    "question", ["what did Guan et al. find?", "how well does ConPress compress reasoning?"]
)
def test_a_phone_card_opens_at_the_whole_quoted_sentence(
    browser: Browser, served: Served, question: str
) -> None:
    # Guan et al.'s finding, quoted from the end of its abstract, was cut off mid-way in its
    # card's box on a phone (a new user at 390 px).
    page = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    page.goto(served.url, wait_until="domcontentloaded")
    ask(page, question, 0)
    boxes = page.locator("#t0-source-1 .card-abstract")
    boxes.first.locator("mark").first.wait_for()
    page.wait_for_function(
        "() => document.querySelector('#t0-source-1 .card-abstract[data-opened]') !== null"
    )
    assert boxes.first.evaluate("box => box.scrollHeight > box.clientHeight")
    assert boxes.first.evaluate(WHOLE_MARK_SHOWN)
    # Its top line whole: scrolled by half a line, the top showed half its letters (a new user).
    assert boxes.first.evaluate(TOP_LINE_WHOLE)
    page.close()


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_card_marks_every_sentence_the_answer_quoted_from_its_paper(
    browser: Browser, served: Served, size: dict[str, int]
) -> None:
    # MAI & Loubes, cited by two sentences of an answer, had only the first of them marked in
    # its card (a new user at both widths).
    answer = api.ask(LLM_QUESTION, index=served.index, settings=served.index.settings)
    citing = [
        " ".join(str(s["text"]).split())
        for s in answer.sentences
        if s.get("shown") and 1 in s.get("citations", ())
    ]
    assert len(citing) >= 2, f"paper [1] is cited by one sentence: nothing to test ({citing})"
    phone = size == PHONE
    page = browser.new_page(viewport=size, is_mobile=phone, has_touch=phone)
    page.goto(served.url, wait_until="domcontentloaded")
    ask(page, LLM_QUESTION, 0)
    link = page.locator("#chat a.cite", has_text="[1]").first
    link.tap() if phone else link.click()
    card = page.locator("#t0-source-1")
    abstract = " ".join(card.locator(".card-abstract").inner_text().split())
    marks = [" ".join(m.split()) for m in card.locator("mark").all_inner_texts()]
    for mark in marks:
        assert mark in abstract, mark  # each a sentence of the paper's own abstract
    # Each answer sentence citing the paper shows in its card: it quotes a marked sentence.
    for sentence in citing:
        assert any(mark.rstrip(".") in sentence for mark in marks), (sentence, marks)
    if phone:  # the abstract still opens at the first marked sentence, the whole of it
        expect_opened = "() => !!document.querySelector('#t0-source-1 .card-abstract[data-opened]')"
        page.wait_for_function(expect_opened)
        assert card.locator(".card-abstract").evaluate(WHOLE_MARK_SHOWN)
    page.close()


# The mark holding `text` (the sentence the answer quoted first from this card's paper) lies
# within the box, or starts in it when taller.
MARK_SHOWN = """(box, text) => {
  const flat = (s) => s.replace(/\\s+/g, " ").trim();
  const mark = [...box.querySelectorAll("mark")].find((m) => flat(m.textContent) === flat(text));
  if (!mark) return "no mark";
  const b = box.getBoundingClientRect(), m = mark.getBoundingClientRect();
  const starts = m.top >= b.top - 1 && m.top < b.bottom;
  return m.height > b.height ? starts : starts && m.bottom <= b.bottom + 1;
}"""


@pytest.mark.parametrize(
    "question",
    [
        "how well does ConPress compress reasoning?",
        "Which papers study the fairness of machine learning models?",
    ],
)
def test_a_phone_card_opens_at_the_sentence_the_answer_quoted_first(
    browser: Browser, served: Served, question: str
) -> None:
    # "Which papers work on graph neural networks?" quoted Zhao et al.'s finding, then their
    # method, which comes first in the abstract: the phone's card opened at the method, the
    # finding out of view (a new user, stop 65). Here the first quoted sentence also comes
    # after the other in its abstract.
    answer = api.ask(question, index=served.index, settings=served.index.settings)
    twice = [c for c in answer.citations if len(quoted_sentences(answer, c)) > 1]
    assert twice, answer.answer  # a paper with two quoted sentences, or the test says nothing
    page = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    page.goto(served.url, wait_until="domcontentloaded")
    ask(page, question, 0)
    for citation in twice:
        box = page.locator(f"#t0-source-{citation.n} .card-abstract")
        page.wait_for_function(
            f"() => document.querySelector('#t0-source-{citation.n} .card-abstract[data-opened]')"
        )
        assert box.evaluate("box => box.scrollHeight > box.clientHeight")
        assert box.evaluate(MARK_SHOWN, quoted_sentences(answer, citation)[0]) is True
    page.close()
