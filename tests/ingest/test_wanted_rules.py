"""What the fitted sentence score does not weigh (`rag.ingest.wanted.after_rules`)."""

from __future__ import annotations

import numpy as np
import pytest

from rag.ingest.wanted import after_rules, choice_scores

PAIRS = [
    ("Graph neural networks have shown remarkable capabilities on graph data.", "background"),
    ("We propose a soft strategy that corrects noisy labels from neighbouring nodes.", "method"),
    ("Experiments show the approach beats competitive baselines under label noise.", "result"),
]
# The background sentence scores highest, as it does when it holds every word of the topic.
SCORES = np.array([3.0, 1.0, 2.0])
OTHERS = np.array([0.8, 0.3, 0.4])  # likeness to the answer's other papers: several papers


def best(question: str, shared: np.ndarray | None, pairs=PAIRS, scores=SCORES) -> str:  # type: ignore[no-untyped-def]
    return pairs[int(np.argmax(after_rules(question, pairs, scores, shared)))][1]


@pytest.mark.parametrize(
    "question",
    [
        "Which papers are about graph neural networks?",
        "list the GNN papers",
        "What do these papers say about graph neural networks?",
    ],
)
def test_a_paper_among_several_is_not_given_the_field_s_background(question: str) -> None:
    assert best(question, OTHERS) == "result"


def test_a_paper_alone_keeps_its_fitted_order() -> None:
    assert best("What about graph neural networks?", None) == "background"
    assert best("What about graph neural networks?", np.zeros(3)) == "background"


def test_a_why_question_may_get_the_background() -> None:
    assert best("Why do graph neural networks need label correction?", OTHERS) == "background"


def test_a_bare_claim_keeps_its_fitted_order() -> None:
    # A claim to cite ("Statins reduce stroke.") may be restated by a background sentence.
    assert best("Graph neural networks have remarkable capabilities.", OTHERS) == "background"


def test_a_paper_of_background_sentences_keeps_one() -> None:
    pairs = [(s, "background") for s, _ in PAIRS]
    order = after_rules("Which papers are about GNNs?", pairs, SCORES, OTHERS)
    assert int(np.argmax(order)) == 0


def test_a_fragment_still_comes_last() -> None:
    pairs = [("To determine whether labels are noisy.", "objective"), *PAIRS[1:]]
    order = after_rules("Which papers are about GNNs?", pairs, np.array([9.0, 1.0, 2.0]), OTHERS)
    assert int(np.argmin(order)) == 0


def test_the_product_score_applies_the_rules() -> None:
    cosines = np.array([0.9, 0.2, 0.3])
    weights = {"cosine": 10.0}  # the background sentence is the closest: it would be first
    scores = choice_scores("Which papers are about GNNs?", PAIRS, cosines, weights, OTHERS)
    assert PAIRS[int(np.argmax(scores))][1] != "background"
    alone = choice_scores("Which papers are about GNNs?", PAIRS, cosines, weights, None)
    assert PAIRS[int(np.argmax(alone))][1] == "background"
