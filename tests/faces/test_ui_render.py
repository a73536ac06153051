"""How a finished turn and its cards render: what a new user read wrong at both widths.

A card marked one of the sentences an answer quoted from its paper.
"""

from __future__ import annotations

import re

from rag.answer.rendering import Answer, Citation
from rag.records import Hit, Paper
from rag.ui import render as ui_render

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

    marks = re.findall(r"<mark>(.*?)</mark>", ui_render.render_cards(answer))

    assert marks == [SHOWN, FOUND]  # in the abstract's order; the sentence between is not


def test_a_card_does_not_mark_what_another_paper_was_cited_for() -> None:
    other = quoted(f"Ju et al.: {SHOWN}", n=2)  # the same words, said of paper [2]
    citation = Citation(1, Hit(MAI, 1, 0.5, "", 0.41), FOUND)
    answer = Answer("q", f"{FOUND} [1]. {SHOWN} [2].", (citation,), (quoted(FOUND), other),
                    False, (), "extractive")  # fmt: skip

    assert re.findall(r"<mark>(.*?)</mark>", ui_render.render_cards(answer)) == [FOUND]
