"""A comparative or superlative no paper uses ("cheapest", "newest") asks how the papers on a
topic rank; it does not make the topic one the collection lacks.

With the real MiniLM over the seeds; the first questions are ones a new user typed, each
answered "The collection has no paper on this question. No paper's title or abstract uses
“cheapest”" before.
"""

from __future__ import annotations

import pytest

from rag import api
from rag.answer.abstention import only_ranks, question_terms, words_no_paper_holds
from rag.index.paper_index import Index

REASONING_EFFICIENCY = {"Jie Deng", "Yizhi Li", "Ziyue Li", "Ke Wang", "Yuesen Tang"}
# the abstracts that say "fine-tuning"
FINE_TUNING = {"Chuxue Cao", "Kunjal Panchal", "Yuesen Tang", "Jie Deng", "Javad Dogani"}
FINE_TUNING |= {"Yumeng Zhao", "Zichong Li", "Chenglin Li"}


@pytest.mark.parametrize("word", ["cheapest", "faster", "newest", "simplest", "sturdier", "best"])
def test_comparatives_and_superlatives_only_rank(word: str) -> None:
    assert only_ranks(word)


@pytest.mark.parametrize("word", ["interest", "forest", "test", "honest", "transformer", "fast"])
def test_words_that_only_end_alike_do_not(word: str) -> None:
    assert not only_ranks(word)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "papers"),
    [
        ("cheapest way to align a model", {"Yonggang Zhang"}),
        ("the newest ideas in reasoning efficiency", REASONING_EFFICIENCY),
        ("what's the fastest way to fine-tune a big model?", FINE_TUNING),
    ],
)
def test_a_ranking_word_no_paper_uses_does_not_hide_the_topic(
    real_seed_index: Index, question: str, papers: set[str]
) -> None:
    answer = api.ask(question, index=real_seed_index, backend=None)
    assert not answer.abstained, answer.answer
    assert {c.hit.paper.authors[0] for c in answer.citations} & papers, answer.answer


@pytest.mark.slow
def test_a_topic_the_collection_lacks_still_says_so(real_seed_index: Index) -> None:
    question = "fastest sorting algorithm"
    answer = api.ask(question, index=real_seed_index, backend=None)
    assert answer.abstained
    assert words_no_paper_holds(real_seed_index, question) == ["sorting"]
    # the word stays in what is searched and in the terms that choose among the papers
    assert ("fastest", False) in question_terms(real_seed_index, question)
    assert [t for t, _ in question_terms(real_seed_index, question, ranking=False)] == [
        "sort",
        "algorithm",
    ]
