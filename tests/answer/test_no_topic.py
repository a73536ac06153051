"""A question that names no topic gets the collection described, never "no paper on this"."""

from __future__ import annotations

import pytest

from rag import api
from rag.index.paper_index import Index


@pytest.mark.parametrize(
    "question",
    [
        "hello",
        "What can you do?",
        "Summarize the collection.",
        "tell me something interesting",
        # Before, "many" was the topic: a ConRAD sentence on SWE-Bench answered it.
        "how many papers are in the collection?",
    ],
)
def test_a_question_without_a_topic_describes_the_collection(
    seed_index: Index, question: str
) -> None:
    answer = api.ask(question, index=seed_index, backend=None)
    assert not answer.abstained  # "the collection has no paper on this" would be false
    assert answer.citations == ()
    assert "no topic" in answer.answer
    assert "40 papers" in answer.answer
    # How the 40 papers spread: the largest top-level area, with its own largest areas.
    assert "Deep Learning 23 (Large Language Models 10, " in answer.answer
    assert "2 have no research area" in answer.answer


def test_a_follow_up_without_a_topic_still_reads_the_history(seed_index: Index) -> None:
    first = api.ask("noisy labels on graphs", index=seed_index, backend=None)
    assert first.citations
    more = api.ask(
        "Tell me more.", index=seed_index, backend=None, history=[("noisy labels on graphs", first)]
    )
    assert "no topic" not in more.answer
    assert more.citations


def test_an_empty_collection_says_it_holds_no_paper(fake_index: Index) -> None:
    answer = api.ask("hello", index=fake_index, backend=None)
    assert "holds no paper yet" in answer.answer
    assert not answer.abstained
