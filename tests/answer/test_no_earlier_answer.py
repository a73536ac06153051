"""Follow-ups with nothing, or nothing of the right kind, to point back at.

A new user (stop 62) opened a chat in Chinese, which the bundled models cannot read, then wrote
"the second one": it searched "the second one" and quoted ExPLAIND on Grokking. "how do they
measure it?" next was searched as "how do they measure 哪些论文… (ExPLAIND)?". After an answer
that found no paper on hiking trails and one citing CURE, "which of them is the most recent?"
was asked of TreePO too, the nearest paper to the hiking question. With BM25 within one
author's papers, an off-topic question was told the nearest papers "are listed below", and the
sources panel said "The index has no papers to show". Stop 65: after the same Chinese question,
"the second one - what is its main limitation?" quoted Grokking's stages (relevance 0.09), and
"top 3 papers on RL" as a first message was told it pointed at an earlier answer.
"""

from __future__ import annotations

from typing import Any

import pytest

from rag import api, prompts
from rag.answer.history import Turn, to_turns, with_earlier
from rag.answer.references import opens_on_a_pointer, points_back_only
from rag.index.paper_index import Index
from rag.index.retrieve import Filters
from rag.records import Paper
from rag.ui.render import render_cards
from tests.answer.chat_turns import chat, session

CHINESE = "哪些论文研究大语言模型的推理能力？"  # noqa: RUF001


def _paper(abstract: str, author: str) -> Paper:
    return Paper.create(authors=[author], abstract=abstract)


NEAR = _paper("We propose NearNet, a model for graphs.", "Ann Lee")
ON_TOPIC = _paper("We propose OnTopicGAN, a generator of images.", "Bo Kim")


def test_a_question_that_was_not_searched_is_no_turn_to_point_back_at() -> None:
    turns = to_turns(
        [
            {"role": "user", "content": CHINESE},
            {"role": "assistant", "content": prompts.ENGLISH_ONLY},
            {"role": "user", "content": "the second one"},
            {
                "role": "assistant",
                "content": prompts.NO_EARLIER_ANSWER.format(message="the second one"),
            },
        ]
    )
    assert turns == []


def test_a_pair_is_not_made_with_a_paper_an_abstention_only_listed() -> None:
    turns = [
        Turn("hiking trails", prompts.ABSTAIN, (), nearest=(NEAR,)),
        Turn("image generation", "OnTopicGAN generates images [1].", (ON_TOPIC,)),
    ]
    assert with_earlier(turns, turns[1], [ON_TOPIC], None) == [ON_TOPIC]


@pytest.mark.parametrize(
    "message",
    [
        "the second one - what is its main limitation?",
        "the first paper: does it use RL?",
        "paper 2, what do they find about noisy labels?",
        "the latter \u2013 is it faster?",
        "the second one -- what does it do?",
        "the second paper; what does it find?",
    ],
)
def test_a_message_that_opens_on_a_pointer_needs_an_earlier_answer(message: str) -> None:
    assert opens_on_a_pointer(message)


@pytest.mark.parametrize(
    "message",
    [
        "which was the first paper to propose tree search?",
        "graph neural networks - which papers use them?",
        "what is the first method that uses attention, and why does it work?",
        "first-order methods vs zeroth-order: which is cheaper?",
        # a choice that names its options (the review of stop 65)
        "Which one - DPO or PPO?",
        "Which of the two, GRPO or PPO, is more stable?",
        "These two: GRPO vs PPO?",
        "Other than that, which papers study fairness?",
    ],
)
def test_a_message_that_only_mentions_an_order_points_at_nothing(message: str) -> None:
    assert not opens_on_a_pointer(message)


@pytest.mark.parametrize(
    "message", ["top 3 papers on RL", "the first two on KV caches", "paper 2 on AI"]
)
def test_a_two_letter_acronym_is_a_topic_of_its_own(message: str) -> None:
    assert not points_back_only(message)


@pytest.mark.parametrize(
    "message", ["NO, the second one", "PS: the second one?", "TL;DR of the second one?"]
)
def test_chat_shorthand_in_capitals_is_no_topic(message: str) -> None:
    assert points_back_only(message)


# -- with the real models


@pytest.mark.slow
@pytest.mark.parametrize("ask", [session, chat], ids=["api", "chat"])
@pytest.mark.parametrize("first", [[], [CHINESE]], ids=["first", "after-chinese"])
def test_a_pointer_with_no_earlier_papers_says_so(
    real_seed_index: Index, ask: Any, first: list[str]
) -> None:
    *_, second, third = ask(real_seed_index, [*first, "the second one", "how do they measure it?"])
    assert second.answer == prompts.NO_EARLIER_ANSWER.format(message="the second one")
    assert not second.citations
    searched = third.standalone or "how do they measure it?"
    assert "second" not in searched and "论" not in searched, searched


@pytest.mark.slow
@pytest.mark.parametrize("ask", [session, chat], ids=["api", "chat"])
def test_a_question_on_a_pointer_with_no_earlier_papers_says_so(
    real_seed_index: Index, ask: Any
) -> None:
    message = "the second one - what is its main limitation?"
    _, second, top = ask(real_seed_index, [CHINESE, message, "top 3 papers on RL"])
    assert second.answer == prompts.NO_EARLIER_ANSWER.format(message=message)
    assert not second.citations
    assert top.citations and not top.abstained, top.answer


@pytest.mark.slow
@pytest.mark.parametrize("ask", [session, chat], ids=["api", "chat"])
def test_them_after_one_paper_is_not_paired_with_an_abstentions_nearest(
    real_seed_index: Index, ask: Any
) -> None:
    hiking, diffusion, recent = ask(
        real_seed_index,
        [
            "best hiking trails in the Alps",
            "diffusion models for image generation?",
            "which of them is the most recent?",
        ],
    )
    assert hiking.abstained
    assert [c.hit.paper.id for c in diffusion.citations]
    nearest = {h.paper.id for h in hiking.nearest} - {c.hit.paper.id for c in diffusion.citations}
    assert not nearest & {c.hit.paper.id for c in recent.citations}, recent.answer
    assert "only the nearest" not in recent.answer


@pytest.mark.slow
def test_no_paper_near_enough_is_not_said_to_be_listed(real_seed_index: Index) -> None:
    answer = api.ask(
        "best hiking trails in the Alps",
        index=real_seed_index,
        backend=None,
        retriever="bm25",
        filters=Filters(author="Wei Ju"),
    )
    assert answer.abstained and not answer.nearest
    assert "listed below" not in answer.answer
    assert answer.answer.endswith(prompts.NONE_NEAR), answer.answer
    assert "came near" in render_cards(answer) and "has no papers" not in render_cards(answer)
