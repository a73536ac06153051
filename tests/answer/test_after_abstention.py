"""Follow-ups after an answer that found no paper on its question.

"What about the second one?" after "What papers study machine translation?" abstained quoted the
first and fourth nearest papers as an answer, and "and its limitations?" after no paper on LSTM
sequence-to-sequence learning quoted the RoPE paper's method as those limitations (a new user's
trial, stop 59). A pointer is to the papers the abstention listed, in its order, said to be only
the nearest; the topic asked again is answered only if the collection has a paper on it.
"""

from __future__ import annotations

from typing import Any

import pytest

from rag import api, prompts
from rag.answer.history import Turn
from rag.answer.rendering import Answer
from rag.answer.rewrite import rule_rewrite
from rag.index.paper_index import Index
from rag.records import Paper
from rag.settings import Settings
from rag.ui.chat import with_abstentions
from rag.ui.render import render_turn
from tests.answer.chat_turns import chat, session

MT = "What papers study machine translation?"
LISTED_OPENING = "The last answer found no paper on machine translation; "


def paper(abstract: str, author: str) -> Paper:
    return Paper.create(authors=[author], abstract=abstract)


ALPHA = paper("We propose AlphaNet, a model for graphs.", "Ann Lee")
BETA = paper("We propose BetaGAN, a generator of molecules.", "Bo Kim")
GAMMA = paper("We propose GammaRL, an agent for games.", "Cy Park")
ABSTAINED = [Turn(MT, prompts.ABSTAIN, (), nearest=(ALPHA, BETA, GAMMA))]


@pytest.mark.parametrize(
    ("follow_up", "places"),
    [
        ("What about the second one?", [1]),
        ("tell me more about the first", [0]),
        ("and the third?", [2]),
        ("compare the first two", [0, 1]),
        ("what do they find?", [0, 1, 2]),
    ],
)
def test_a_pointer_after_an_abstention_is_to_the_papers_it_listed(
    follow_up: str, places: list[int]
) -> None:
    result = rule_rewrite(follow_up, ABSTAINED)
    assert result.papers == tuple(ABSTAINED[0].nearest[i] for i in places), result


def test_it_after_an_abstention_is_its_topic_asked_again() -> None:
    result = rule_rewrite("does it handle long sentences?", ABSTAINED)
    assert result.question == "does machine translation handle long sentences?"
    assert result.unanswered == "machine translation" and not result.papers


@pytest.mark.parametrize("follow_up", ["why not?", "anything else on translation?"])
def test_a_message_pointing_at_no_listed_paper_is_read_as_before(follow_up: str) -> None:
    assert rule_rewrite(follow_up, ABSTAINED) == rule_rewrite(
        follow_up, [Turn(MT, prompts.ABSTAIN)]
    )


def test_the_page_hands_an_abstention_over_with_the_papers_it_listed(
    seed_index: Index, settings: Settings
) -> None:
    settings = settings.model_copy(update={"nearest_floor": 0.0})  # fake vectors come near nothing
    # The page's messages hold no nearest paper (they are cards): its kept answers do.
    answer = api.ask("sourdough bread recipe with rye flour", index=seed_index, settings=settings)
    assert answer.abstained and answer.nearest
    error = {"role": "assistant", "content": '<span class="turn-label turn-error">Error</span>'}
    history = [
        {"role": "user", "content": answer.question},
        {"role": "assistant", "content": render_turn(answer)},
        {"role": "user", "content": "x"},
        error,
    ]
    assert with_abstentions(history, [answer]) == [(answer.question, answer), *history[2:]]
    assert with_abstentions(history, []) == history  # answers and replies that do not pair up


# -- with the real models


def cited(answer: Answer) -> list[Paper]:
    return [c.hit.paper for c in answer.citations]


@pytest.mark.slow
@pytest.mark.parametrize("ask", [session, chat], ids=["api", "chat"])
def test_the_second_one_after_an_abstention_is_the_second_paper_it_listed(
    real_seed_index: Index, ask: Any
) -> None:
    one, two, three = ask(
        real_seed_index, [MT, "What about the second one?", "How does it compare to the first?"]
    )
    assert one.abstained and len(one.nearest) >= 2
    nearest = [h.paper for h in one.nearest]
    assert cited(two) == [nearest[1]], two.answer
    assert two.answer.startswith(LISTED_OPENING + "the second paper it listed"), two.answer
    # "it" is the second, compared to the first: both (stop 59 answered of the first alone)
    assert {p.id for p in cited(three)} == {nearest[0].id, nearest[1].id}, three.answer
    assert three.answer.startswith(
        "An earlier answer found no paper on machine translation; the first and second papers"
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("follow_up", "places", "which"),
    [
        ("tell me more about the first", [0], "the first paper it listed"),
        ("and the third?", [2], "the third paper it listed"),
        ("compare the first two", [0, 1], "the first and second papers it listed"),
        ("which of them is most recent?", [0, 1, 2, 3, 4], "the papers it listed"),
        # before: not read as a pointer, answered from papers not listed (stop 59's re-trial)
        ("ok, what is the closest one then?", [0], "the first paper it listed"),
    ],
)
def test_a_follow_up_on_the_listed_papers_says_they_are_only_the_nearest(
    real_seed_index: Index, follow_up: str, places: list[int], which: str
) -> None:
    one, two = session(real_seed_index, [MT, follow_up])
    assert cited(two) == [one.nearest[i].paper for i in places], two.answer
    assert two.answer.startswith(LISTED_OPENING + which), two.answer


@pytest.mark.slow
@pytest.mark.parametrize("ask", [session, chat], ids=["api", "chat"])
def test_a_topic_the_collection_has_no_paper_on_stays_unanswered(
    real_seed_index: Index, ask: Any
) -> None:
    first, *follow_ups = ask(
        real_seed_index,
        [
            "What is known about sequence-to-sequence learning with LSTMs?",
            "does it handle long sentences?",
            "and its limitations?",
            "which later paper improved on it?",
        ],
    )
    assert first.abstained
    for answer in follow_ups:
        assert answer.abstained and not answer.citations, answer.answer
        assert "sequence-to-sequence learning with LSTMs" in (answer.standalone or "")


@pytest.mark.slow
@pytest.mark.parametrize("ask", [session, chat], ids=["api", "chat"])
def test_follow_ups_after_a_real_answer_say_nothing_of_the_nearest(
    real_seed_index: Index, ask: Any
) -> None:
    listed, second, limits = ask(
        real_seed_index,
        ["Which papers study graph neural networks?", "What about the second one?", "its limits?"],
    )
    assert len(listed.citations) >= 2
    assert cited(second) == [cited(listed)[1]], second.answer
    assert cited(limits) == [cited(listed)[1]], limits.answer
    for answer in (second, limits):
        assert "found no paper" not in answer.answer and not answer.abstained


@pytest.mark.slow
def test_a_follow_up_after_a_hedged_answer_does_not_call_its_paper_off_topic(
    real_seed_index: Index,
) -> None:
    # "ways to shorten CoT traces?" is answered from ConPress after the hedge that no paper
    # writes "shorten"; "data needed?" was then told that ConPress is "only the nearest, not a
    # paper on it", which is false (stop 59's review).
    first, second = session(real_seed_index, ["ways to shorten CoT traces?", "data needed?"])
    assert not first.abstained and cited(first) == cited(second)
    assert "not a paper on it" not in second.answer and "found no paper" not in second.answer
