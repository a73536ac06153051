"""With the real bundled embeddings, questions in our own words find their paper first."""

from __future__ import annotations

import pytest

from rag import prompts
from rag.answer.nearest import NEAREST_SHOWN
from rag.answer.pipeline import answer
from rag.index.paper_index import Index
from rag.index.retrieve import search

# Each question paraphrases one seed abstract; the answer is that paper's first author.
QUESTIONS = [
    ("How can a classifier on graphs cope with wrongly annotated nodes?", "Wei Ju"),
    ("Designing mechanisms for selling items that stay truthful for bidders", "Haoran Sun"),
    (
        "Training a sequence classifier on one source domain so it works on unseen domains",
        "Yuhang Pei",
    ),
    (
        "Shrinking a chatbot's weight matrices with low-rank factorization, no retraining",
        "Ali Abbasi",
    ),
    ("Spotting abnormal graphs that come from a different distribution", "Yifan Wang"),
    (
        "Numerical solvers for many-dimensional PDEs using stochastic backward equations",
        "Jaemin Seo",
    ),
    ("Machine proofs that a polynomial is nonnegative", "Ruobing Zuo"),
    (
        "Does fair risk minimisation still work when the model can memorise its training set?",
        "Xiaoyi MAI",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("question", "first_author"), QUESTIONS)
def test_paraphrased_question_finds_its_paper_first(
    real_seed_index: Index, question: str, first_author: str
) -> None:
    hits = search(real_seed_index, question, k=3)
    assert hits[0].paper.authors[0] == first_author, [h.paper.authors[0] for h in hits]


@pytest.mark.slow
@pytest.mark.parametrize(("question", "first_author"), QUESTIONS)
def test_seed_question_does_not_abstain(
    real_seed_index: Index, question: str, first_author: str
) -> None:
    result = answer(real_seed_index, question, settings=real_seed_index.settings, backend=None)
    assert not result.abstained
    assert first_author in [c.hit.paper.authors[0] for c in result.citations]


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "sourdough bread recipe",
        "Who won the football world cup in 1998?",
        "What is the boiling point of water at high altitude?",
    ],
)
def test_off_topic_question_abstains(real_seed_index: Index, question: str) -> None:
    result = answer(real_seed_index, question, settings=real_seed_index.settings, backend=None)
    assert result.abstained and result.citations == ()
    # No paper comes near enough to be listed as the nearest (rag/answer/nearest.py).
    assert result.nearest == () and prompts.NONE_NEAR in result.answer


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "How does dropout prevent overfitting in neural networks?",
        "how much faster is speculative decoding?",
    ],
)
def test_a_near_miss_lists_the_papers_that_come_nearest(
    real_seed_index: Index, question: str
) -> None:
    result = answer(real_seed_index, question, settings=real_seed_index.settings, backend=None)
    assert result.abstained and result.citations == ()
    assert 0 < len(result.nearest) <= NEAREST_SHOWN


@pytest.mark.slow
def test_abstention_lists_first_the_paper_the_question_names_a_method_of(
    real_seed_index: Index,
) -> None:
    # No paper compares DPO with PPO, but CPO's is the one on DPO: the sentence vectors rank it
    # fifth (MiniLM knows no "DPO"), the per-paper judgement (BM25, term coverage) first.
    question = "how well does the DPO method work compared to PPO?"
    result = answer(real_seed_index, question, settings=real_seed_index.settings, backend=None)
    assert result.abstained
    assert result.nearest[0].paper.authors[0] == "Yonggang Zhang", result.nearest[0].paper


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("protein folding with diffusion", "uses “protein” or “folding”."),
        ("sourdough bread recipe", "uses “sourdough”, “bread” or “recipe”."),
    ],
)
def test_abstention_names_the_words_no_paper_uses(
    real_seed_index: Index, question: str, said: str
) -> None:
    result = answer(real_seed_index, question, settings=real_seed_index.settings, backend=None)
    assert result.abstained and said in result.answer
    assert result.answer.startswith("The collection has no paper on this question.")


@pytest.mark.slow
def test_abstention_names_no_word_that_a_paper_uses(real_seed_index: Index) -> None:
    # "PPO" is in TRM's abstract (and "DPO" in CPO's): no sentence about missing words.
    question = "how well does the DPO method work compared to PPO?"
    result = answer(real_seed_index, question, settings=real_seed_index.settings, backend=None)
    assert result.abstained and "uses “" not in result.answer


@pytest.mark.slow
def test_a_list_of_one_paper_is_a_paragraph(real_seed_index: Index) -> None:
    # "papers about auctions" drew a one-item "- " list, where other one-paper answers are
    # plain text (a new user at both widths).
    result = answer(
        real_seed_index,
        "papers about auctions and mechanism design",
        settings=real_seed_index.settings,
        backend=None,
    )
    assert len(result.citations) == 1
    assert not result.answer.lstrip().startswith("- ")
