"""How a finished turn and its cards render: what a new user read wrong at both widths.

A card marked one of the sentences an answer quoted from its paper, and a fallback's label came
after the quoted sentences it is about.
"""

from __future__ import annotations

import re

from rag import prompts
from rag.answer.history import last_answer, to_turns
from rag.answer.rendering import Answer, Citation
from rag.records import Hit, Paper
from rag.ui import render as ui_render
from rag.ui import tabs as ui_tabs

FOUND = (
    "Despite the asymptotic nature of our findings, they closely capture the statistical "
    "behavior of moderately large ML models."
)
SHOWN = (
    "Importantly, we show that even though conventional fair ERM fails on overparameterized "
    "models, this approach can be corrected by modifying the equality fairness constraint."
)
ABSTRACT = (
    "Bias mitigation is particularly challenging for overparameterized machine learning models. "
    f"{SHOWN} Moreover, our analysis presents an empirical criterion for strong equalized odds. "
    f"{FOUND}"
)
MAI = Paper.create(
    authors=["Xiaoyi MAI", "Jean-Michel Loubes"], abstract=ABSTRACT, citation_key="mai"
)


def quoted(text: str, n: int = 1) -> dict[str, object]:
    """The record of an answer sentence that quotes paper [n]."""
    return {"text": text, "shown": True, "supported": True, "reason": "quoted", "citations": [n]}


def test_a_card_marks_each_sentence_the_answer_quoted_also_in_other_words() -> None:
    # The composer names whose sentence it quotes: "we show" reads "MAI & Loubes show".
    first = f"MAI & Loubes: {FOUND.replace('our findings', 'their findings')}"
    second = f"MAI & Loubes show that {SHOWN.split('we show that ', 1)[1]}"
    text = f"- {first[:-1]} [1]. {second[:-1]} [1]."
    citation = Citation(1, Hit(MAI, 1, 0.5, "", 0.41), FOUND)
    answer = Answer("fairness?", text, (citation,), (quoted(first), quoted(second)), False, (),
                    "extractive")  # fmt: skip

    cards = ui_render.render_cards(answer)
    marks = re.findall(r"<mark(?: class=\"first\")?>(.*?)</mark>", cards)

    assert marks == [SHOWN, FOUND]  # in the abstract's order; the sentence between is not
    # the one the answer quoted first is where the card opens (`mark.first`)
    assert re.findall(r"<mark class=\"first\">(.*?)</mark>", cards) == [FOUND]


def test_a_card_opens_at_the_sentence_its_line_opens_with() -> None:
    # "Across ... baselines. These results suggest ... [1]": the line joins the sentence that
    # "These results" points back to before it, and the citation names the latter; the phone's
    # card opened at it, the line's opening sentence cut off above (a new user, stop 65).
    pointing = "These results suggest that the constraint can be corrected."
    paper = Paper.create(authors=["Ann Lee"], abstract=f"{ABSTRACT} {pointing}", citation_key="lee")
    line = f"MAI & Loubes: {FOUND} {pointing}"
    citation = Citation(1, Hit(paper, 1, 0.5, "", 0.41), pointing)
    answer = Answer("q", f"{line} [1].", (citation,), (quoted(line),), False, (), "extractive")

    cards = ui_render.render_cards(answer)

    assert re.findall(r"<mark class=\"first\">(.*?)</mark>", cards) == [FOUND]
    assert re.findall(r"<mark(?: class=\"first\")?>(.*?)</mark>", cards) == [FOUND, pointing]


def test_a_card_does_not_mark_what_another_paper_was_cited_for() -> None:
    other = quoted(f"Ju et al.: {SHOWN}", n=2)  # the same words, said of paper [2]
    citation = Citation(1, Hit(MAI, 1, 0.5, "", 0.41), FOUND)
    answer = Answer("q", f"{FOUND} [1]. {SHOWN} [2].", (citation,), (quoted(FOUND), other),
                    False, (), "extractive")  # fmt: skip

    assert re.findall(r"<mark>(.*?)</mark>", ui_render.render_cards(answer)) == [FOUND]


def fallback(question: str, text: str, notice: str) -> Answer:
    return Answer(question, text, (), (quoted(text),), False, (), "local", notice=notice)


def test_a_fallbacks_label_and_notice_come_before_the_quoted_sentences() -> None:
    answer = fallback("q", "Ju et al.: Experiments show the superiority [1].",
                      prompts.NO_SUPPORTED_SENTENCE)  # fmt: skip

    shown = ui_render.render_turn(answer)

    notice, rest = shown.split("\n\n")
    assert notice.startswith('<span class="turn-label turn-fallback">Fallback</span>'), shown
    assert ui_render._md_escape(prompts.NO_SUPPORTED_SENTENCE) in notice
    assert rest.startswith("Ju et al.: Experiments show the superiority"), shown


def test_a_notice_before_an_answer_is_not_read_as_its_text_by_a_follow_up() -> None:
    # The library tells a reply to thanks by how it starts: after a translated "merci", "it"
    # still means the papers of the answer before.
    thanks = prompts.THANKED.format(collection="40 papers", topic="graphs")
    history = [
        {"role": "user", "content": "Which papers deal with noisy labels on graphs?"},
        {"role": "assistant", "content": ui_render.render_answer("Ju et al. propose ICGNN [1].")},
        {"role": "user", "content": "merci"},
        {"role": "assistant", "content": ui_render.render_turn(
            fallback("merci", thanks, prompts.DRAWN_FROM_ENGLISH))},
    ]  # fmt: skip

    turns = to_turns(history)  # the page's notice is no part of the answer it reads

    assert turns[1].answer.startswith("You're welcome."), turns[1].answer
    last = last_answer(turns)
    assert last is not None and last.question.startswith("Which papers"), last


def test_the_conversation_export_gives_a_notice_before_its_answer() -> None:
    text = "Ju et al.: Experiments show the superiority [1]."
    md = ui_tabs.conversation_markdown([fallback("q", text, prompts.NO_SUPPORTED_SENTENCE)])
    assert md.index(prompts.NO_SUPPORTED_SENTENCE) < md.index(text), md
