"""A message that names no topic: about the last answer's papers, the collection, or nothing.

"results?" after an answer asks about its papers; "what subjects does the library span?" and
"brilliant, cheers" ask about no paper, and get the collection overview rather than "the
collection has no paper on this question" or a quoted paper. One calibrated judgement
(rag/answer/topicless.py) tells them apart from the message's meaning, not a list of words.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from rag import api, prompts
from rag.answer import overview, topicless
from rag.answer.overview import no_topic, request_after_thanks
from rag.answer.references import asks_for_more
from rag.index.paper_index import Index
from tests.answer.chat_turns import chat, first_authors


def test_the_weights_read_minilm_vectors() -> None:
    weights = topicless.weights()
    assert len(weights["coef"]) == 384
    assert 0.0 < weights["bar"] < 1.0


def test_another_embedding_model_leaves_the_message_unjudged() -> None:
    def embed(texts: list[str]) -> np.ndarray:
        raise AssertionError("the bundled model's weights must not read another model's vector")

    index: Any = SimpleNamespace(
        settings=SimpleNamespace(embedding_model="/models/my-own"),
        embedder=SimpleNamespace(embed=embed),
    )
    assert topicless.asks_no_paper(index, "brilliant, cheers") is None


@pytest.mark.parametrize(
    ("message", "more"),
    [
        ("Tell me more.", True),
        ("why?", True),
        ("go on", True),
        ("ok", False),  # no subject, but it asks for nothing: the judgement decides
        ("👍", False),
        ("how are you?", False),
        ("what else do you have?", False),
        ("results?", False),  # a word of its own
    ],
)
def test_only_a_message_asking_for_more_keeps_the_rewrite_rule(message: str, more: bool) -> None:
    assert asks_for_more(message) is more


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("What is CELL?", "results?"),  # before: the collection overview
        ("Which papers make LLM reasoning shorter?", "so the main point is?"),  # the same
        ("federated learning papers", "how?"),
        ("Tell me about ZS-SVD", "Tell me more."),  # the rule, as before
    ],
)
def test_a_message_with_no_topic_after_an_answer_asks_about_its_papers(
    real_seed_index: Index, first: str, second: str
) -> None:
    one, two = chat(real_seed_index, [first, second])
    assert two.citations, two.answer
    assert set(first_authors(two)) <= set(first_authors(one)), two.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    "second",
    [
        "brilliant, cheers",  # before: "the collection has no paper on this question"
        "what subjects does the library span?",  # before: the same
        "what kinds of papers are in here?",
        "how are you?",  # before: a CELL sentence, unasked
    ],
)
def test_a_message_about_the_collection_or_nothing_gets_the_overview(
    real_seed_index: Index, second: str
) -> None:
    one, two = chat(real_seed_index, ["What is CELL?", second])
    said = [one.answer]
    assert two.answer in (
        *overviews(real_seed_index),
        no_topic(real_seed_index, said=said, message=second),
    )
    assert not two.citations and not two.abstained


@pytest.mark.slow
def test_a_question_about_the_collection_is_not_told_it_has_no_paper(
    real_seed_index: Index,
) -> None:
    answer = api.ask("which research areas does this collection cover?", index=real_seed_index)
    assert answer.answer in overviews(real_seed_index)
    assert not answer.abstained


def overviews(index: Index) -> tuple[str, str]:
    """The collection overview, for a message with no words to search and for one whose
    words matched no paper."""
    return no_topic(index), no_topic(index, searched=True)


@pytest.mark.slow
@pytest.mark.parametrize(
    "message",
    [
        "is anything here about robotics or locomotion?",
        "does the library have anything on protein structure prediction?",
    ],
)
def test_a_topic_the_collection_lacks_is_never_told_it_names_no_topic(
    real_seed_index: Index, message: str
) -> None:
    answer = api.ask(message, index=real_seed_index, backend=None)
    assert not answer.citations, answer.answer
    assert "names no topic" not in answer.answer
    assert answer.abstained or answer.answer == no_topic(real_seed_index, searched=True)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("What is CELL?", "how long should i boil an egg"),
        ("Which papers are about auctions?", "cheapest way to ship a parcel abroad"),
    ],
)
def test_an_off_topic_message_after_an_answer_still_finds_no_paper(
    real_seed_index: Index, first: str, second: str
) -> None:
    _, two = chat(real_seed_index, [first, second])
    assert two.abstained, two.answer


def test_the_overview_shows_how_the_papers_spread_over_areas() -> None:
    # Before: only the three largest full areas, "Deep Learning · Large Language Models (10),
    # ...", which left out most of a collection spread over many small areas.
    areas = (
        ["Deep Learning · Large Language Models"] * 4
        + ["Deep Learning · Graph Neural Networks"] * 2
        + ["Deep Learning · Theory", "Deep Learning · Robustness", "Deep Learning"]
        + ["Theory · Game Theory"] * 2
        + [f"Area{i} · Sub" for i in range(7)]
        + [None, None]
    )
    papers = {str(i): SimpleNamespace(area=a) for i, a in enumerate(areas)}
    text = no_topic(SimpleNamespace(papers=papers))  # type: ignore[arg-type]
    assert (
        "holds 20 papers: Deep Learning 9 (Large Language Models 4, Graph Neural Networks 2, "
        "Robustness 1, 1 more area), Theory 2, Area0 1, Area1 1, Area2 1, Area3 1, 3 more areas; "
        "2 have no research area."
    ) in text, text
    assert "“Which papers deal with large language models?”" in text


@pytest.mark.slow
def test_the_overview_is_not_repeated_in_one_conversation(real_seed_index: Index) -> None:
    # Before: "thanks!" after "what's in this collection?" got the same paragraph of areas again.
    first, thanks = chat(real_seed_index, ["what's in this collection?", "thanks!"])
    assert first.answer == no_topic(real_seed_index)
    assert thanks.answer == prompts.THANKED_AGAIN.format(count="40 papers")
    assert "Deep Learning" not in thanks.answer
    assert not thanks.citations and not thanks.abstained


@pytest.mark.slow
def test_asked_again_for_the_collection_the_overview_is_given_again(
    real_seed_index: Index,
) -> None:
    # Before: after "thanks!" had drawn the overview, "what topics does the collection cover?"
    # got only "No paper is quoted: your message names no topic." And "ok, ty" ("ty" is in no
    # paper) was asked of ICGNN: "ty (ICGNN)?". "thanks!" after an answer is no request for the
    # collection's areas, which a new user found dumped on them (stop 58).
    turns = ["what does ICGNN do?", "thanks!", "what topics does the collection cover?", "ok, ty"]
    _, thanks, topics, ty = chat(real_seed_index, turns)
    assert thanks.answer == prompts.THANKED_AGAIN.format(count="40 papers")
    assert topics.answer == no_topic(real_seed_index)
    assert ty.answer == prompts.THANKED_AGAIN.format(count="40 papers")


@pytest.mark.slow
def test_thanks_with_a_request_for_the_collection_gets_the_collection(
    real_seed_index: Index,
) -> None:
    # A new user (stop 63): "thanks, can you list all papers in the library?" after an answer
    # got only "You're welcome. Ask about a topic, ..."
    _, asked = chat(
        real_seed_index,
        ["Which papers are about auctions?", "thanks, can you list all papers in the library?"],
    )
    assert asked.answer.startswith("You're welcome. The collection holds 40 papers: "), asked.answer
    assert not asked.citations
    # The review of that fix: thanks that only mention papers ask for nothing.
    _, thanked = chat(
        real_seed_index, ["Which papers are about auctions?", "thanks for the papers!"]
    )
    assert thanked.answer == prompts.THANKED_AGAIN.format(count="40 papers"), thanked.answer


@pytest.mark.parametrize(
    ("message", "question"),
    [
        (
            "thanks, can you list all papers in the library?",
            "can you list all papers in the library?",
        ),
        ("ok thanks! what else is in the collection?", "what else is in the collection?"),
        ("thanks for the papers!", ""),
        ("thanks, that's all the papers I needed", ""),
        ("thanks for listing those papers", ""),
    ],
)
def test_the_request_after_thanks_is_its_question(message: str, question: str) -> None:
    assert request_after_thanks(message) == question


@pytest.mark.slow
def test_the_first_overview_of_a_conversation_describes_the_collection(
    real_seed_index: Index,
) -> None:
    (thanks,) = chat(real_seed_index, ["thanks!"])
    # Before: "Your message names no topic, ..." to a thank-you. After an answer, "thanks!"
    # is told only what to ask (stop 58: a new user found the areas dumped on them).
    assert thanks.answer.startswith("You're welcome. The collection holds 40 papers: ")
    assert thanks.answer == no_topic(real_seed_index, message="thanks!")
    topic, again = chat(real_seed_index, ["Which papers are about auctions?", "thanks!"])
    assert topic.citations
    assert again.answer == prompts.THANKED_AGAIN.format(count="40 papers")


@pytest.mark.slow
@pytest.mark.parametrize("thanks", ["thanks, that's helpful", "cool, really useful"])
def test_thanks_with_a_word_the_papers_hold_is_no_question(
    real_seed_index: Index, thanks: str
) -> None:
    # Before: "thanks, that's helpful" after TreePO was searched, and "helpful" quoted
    # Melnychuk et al.'s paper on causal effects.
    first, reply = chat(real_seed_index, ["What does TreePO do?", thanks])
    assert not reply.citations, reply.answer
    assert reply.answer == no_topic(real_seed_index, said=[first.answer], message=thanks)


def test_the_searched_judgement_reads_the_features_it_was_fitted_on() -> None:
    searched = topicless.weights()["searched"]
    assert searched["features"] == list(topicless.SEARCHED_FEATURES)
    assert len(searched["coef"]) == len(searched["mean"]) == len(topicless.SEARCHED_FEATURES)
    assert 0.0 < searched["bar"] < 1.0


@pytest.mark.slow
@pytest.mark.parametrize(
    "message",
    ["full paper list?", "what are your capabilities", "show me everything you have"],
)
def test_a_message_about_the_collection_is_not_answered_from_a_word_a_paper_holds(
    real_seed_index: Index, message: str
) -> None:
    # Before: answered from the papers holding "full", "capabilities" or "everything".
    (first,) = chat(real_seed_index, [message])
    assert first.answer == no_topic(real_seed_index), first.answer
    _, after = chat(real_seed_index, ["Which papers are about auctions?", message])
    assert after.answer == no_topic(real_seed_index), after.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("message", "author"),
    [
        ("fair ERM", "Xiaoyi MAI"),
        ("list all federated papers", "Canran Xiao"),
        ("Which papers in the collection are on auctions?", "Haoran Sun"),
        ("what is in the library about clustering?", "Luwei Wang"),
    ],
)
def test_a_terse_or_collection_worded_topic_is_still_answered(
    real_seed_index: Index, message: str, author: str
) -> None:
    (answer,) = chat(real_seed_index, [message])
    assert author in first_authors(answer), answer.answer


@pytest.mark.slow
@pytest.mark.parametrize("thanks", ["love it", "that's it for today", "I appreciate it a lot"])
def test_small_talk_that_holds_a_pronoun_quotes_no_paper(
    real_seed_index: Index, thanks: str
) -> None:
    # Before: "love it" was asked as "love ICGNN" and answered with an ICGNN sentence.
    first, reply = chat(real_seed_index, ["graph label noise", thanks])
    said = [first.answer]
    assert reply.answer == no_topic(real_seed_index, said=said, message=thanks), reply.answer
    assert not reply.citations and reply.standalone is None


@pytest.mark.slow
def test_a_pronoun_after_small_talk_still_means_the_papers_shown_before(
    real_seed_index: Index,
) -> None:
    _, _, follow_up = chat(real_seed_index, ["graph label noise", "love it", "what do they find?"])
    assert follow_up.standalone is not None and "ICGNN" in follow_up.standalone
    assert [c.hit.paper.authors[0] for c in follow_up.citations] == ["Wei Ju"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "how does it work?",
        "who wrote it?",
        "is it any good?",
        "show me papers similar to it",  # names "similar": a search, not small talk
        "what else is like it",
    ],
)
def test_a_question_that_holds_a_pronoun_is_still_asked_of_the_papers_shown(
    real_seed_index: Index, question: str
) -> None:
    _, follow_up = chat(real_seed_index, ["graph label noise", question])
    assert follow_up.standalone is not None and "ICGNN" in follow_up.standalone


@pytest.mark.slow
def test_a_follow_up_after_no_paper_on_this_is_not_asked_of_earlier_papers(
    real_seed_index: Index,
) -> None:
    _, _, why = chat(real_seed_index, ["graph label noise", "sourdough recipes", "why?"])
    assert "Wei Ju" not in [c.hit.paper.authors[0] for c in why.citations], why.answer


@pytest.mark.parametrize(
    ("message", "thanked"),
    [("thanks!", True), ("ok, ty", True), ("cheers", True), ("I appreciate it a lot", True),
     ("love it", False), ("hello", False), ("what can you do?", False)],
)  # fmt: skip
def test_a_thank_you_is_answered_as_one(message: str, thanked: bool) -> None:
    assert overview.thanks(message) is thanked
