"""Words of the asker's situation ("my thesis", "I need") do not stand for a missing topic.

With the real MiniLM over the seeds (the word judgement is fitted on labelled words by
bench/answers/topic_words.py); the messages are ones a new user typed.
"""

from __future__ import annotations

import pytest

from rag import api
from rag.answer import topic_words
from rag.answer.abstention import (
    question_terms,
    without_situation_words,
    words_no_paper_holds,
)
from rag.index.paper_index import Index

FEDERATED = {"Renxiang Guan", "Javad Dogani", "Canran Xiao"}


def answered(index: Index, question: str) -> api.Answer:
    return api.ask(question, index=index, backend=None)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "papers"),
    [
        ("for my thesis I need work on federated learning", FEDERATED),
        ("I need papers on auctions for my review", {"Haoran Sun"}),
        (
            "I'm reviewing a manuscript about induction heads, related papers?",
            {"Francesco D'Angelo"},
        ),
        ("I need to understand grokking for a seminar", {"Florian Eichin"}),
        # the asker's reason after the question (stop 63): the collection overview, as papers
        # hold "related" and "section"
        (
            "which papers deal with privacy because I need them for a related work section",
            {"Renxiang Guan", "Javad Dogani"},
        ),
        ("anything on auctions? since we have to write the background section", {"Haoran Sun"}),
    ],
)
def test_the_asker_s_situation_does_not_hide_the_topic(
    real_seed_index: Index, question: str, papers: set[str]
) -> None:
    # Each said "the collection has no paper on this" (no abstract says "thesis", "need",
    # "manuscript", "seminar") or gave the collection overview.
    answer = answered(real_seed_index, question)
    assert not answer.abstained, answer.answer
    assert {c.hit.paper.authors[0] for c in answer.citations} & papers, answer.answer


@pytest.mark.slow
def test_only_a_reason_after_the_question_is_left_out_of_its_terms(
    real_seed_index: Index,
) -> None:
    for reason in (
        "which papers deal with privacy because I need them for a related work section",
        "anything on auctions? since we have to write the background section",
    ):
        assert not {t for t, _ in question_terms(real_seed_index, reason)} & {"section", "relat"}
    # "because of" names a cause, no asker; an opening clause is no reason after a question
    terms = {
        t for t, _ in question_terms(real_seed_index, "does training collapse because of LLD?")
    }
    assert "lld" in terms
    opening = "since I work on graphs, which papers handle noisy labels?"
    assert "graph" in {t for t, _ in question_terms(real_seed_index, opening)}


@pytest.mark.slow
def test_a_topic_the_collection_lacks_still_says_so(real_seed_index: Index) -> None:
    question = "I need papers on protein structure prediction for my thesis"
    answer = answered(real_seed_index, question)
    assert answer.abstained
    missing = words_no_paper_holds(real_seed_index, question)
    assert "protein" in missing
    assert "thesis" not in missing and "need" not in missing


@pytest.mark.slow
def test_only_words_no_paper_holds_are_judged(real_seed_index: Index) -> None:
    # "lecture" and "seminar" are among the held-out words the judgement was not fitted on
    assert not topic_words.names_topic(real_seed_index, "lecture")
    assert not topic_words.names_topic(real_seed_index, "seminar")
    assert topic_words.names_topic(real_seed_index, "sourdough")
    terms = [t for t, _ in question_terms(real_seed_index, "my lecture on federated learning")]
    assert terms == ["feder", "learn"]
    # a word some paper holds is a term as before, whatever the judgement would say of it
    assert ("project", False) in question_terms(real_seed_index, "a project on unlearning")


@pytest.mark.slow
def test_the_search_leaves_out_the_asker_s_situation(real_seed_index: Index) -> None:
    # "writing" moved the question's vector off graphs: CLINIC, a GNN paper, was left out.
    question = "I'm writing a survey on graph neural networks, what do you have?"
    searched = without_situation_words(real_seed_index, question)
    assert "writing" not in searched and "graph neural networks" in searched
    cited = {c.hit.paper.authors[0] for c in answered(real_seed_index, question).citations}
    assert {"Wei Ju", "Yifan Wang", "Yumeng Zhao"} <= cited
    # a question all of whose words are of that kind is searched as typed
    assert without_situation_words(real_seed_index, "need lecture") == "need lecture"


def test_another_embedding_model_keeps_every_word(seed_index: Index) -> None:
    # The fake embedder of the fast tests is not the model the weights read.
    assert topic_words.names_topic(seed_index, "lecture")


@pytest.mark.slow
def test_a_number_in_words_is_no_missing_topic(real_seed_index: Index) -> None:
    # answered with "No paper's title or abstract uses “five”, so what follows is only the
    # nearest the collection comes to this question." before the induction-heads paper
    question = "explain induction heads like I'm five"
    assert words_no_paper_holds(real_seed_index, question) == []
    answer = answered(real_seed_index, question)
    assert "five" not in answer.answer.split("[")[0], answer.answer
    assert answer.citations[0].hit.paper.authors[0] == "Francesco D'Angelo", answer.answer


@pytest.mark.slow
def test_a_kind_of_writing_may_frame_a_question_a_topic_word_may_not(
    real_seed_index: Index,
) -> None:
    # "I'm writing a survey on efficient reasoning": "survey" (0.53) names no topic of the
    # papers' sure enough to weigh against "efficient reasoning"; "seasons" (0.94) does.
    assert topic_words.may_frame(real_seed_index, "survey")
    assert topic_words.may_frame(real_seed_index, "tutorial")
    assert not topic_words.may_frame(real_seed_index, "seasons")
    assert not topic_words.may_frame(real_seed_index, "hallucination")
    assert topic_words.weights()["framed_bar"] > topic_words.weights()["bar"]
