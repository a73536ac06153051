"""What a question wants from an abstract, read by the fitted model (`rag.ingest.want_model`).

The patterns alone read "How does ICGNN figure out which nodes have wrong labels?" as asking for
a finding and "What is wrong with how ... have been benchmarked?" too, so the answer quoted a
result for a question on how a method works and for one on what is wrong with earlier work. These questions
were written blind by helpers who read only the seed abstracts, in their held-out part
(bench/data/finding_questions_blind.jsonl, bench/data/named_role_questions.jsonl): the model was
fitted on none of them.
"""

from __future__ import annotations

import pytest

from rag.ingest.want_model import KINDS, classify, question_features
from rag.ingest.wanted import Want, wanted, wanted_by_patterns


@pytest.mark.parametrize(
    ("question", "want"),
    [
        ("How does ICGNN figure out which nodes have wrong labels?", Want.DEFINITION),
        ("How does IndexGuard vet client updates?", Want.DEFINITION),
        ("what is cache coherent resampling in ASMC?", Want.DEFINITION),
        (
            "How do they restore the attention lost when visual tokens are dropped in MLLMs?",
            Want.DEFINITION,
        ),
        ("How is a client deleted in IDFT?", Want.DEFINITION),
        (
            "What is semantic sparsity bias and why does it hurt image-text alignment?",
            Want.MOTIVATION,
        ),
        (
            "What is wrong with how backprop-free LLM fine-tuning methods have been benchmarked?",
            Want.MOTIVATION,
        ),
    ],
)
def test_a_question_the_patterns_misread_is_read_by_the_model(question: str, want: Want) -> None:
    assert wanted_by_patterns(question) is Want.FINDING  # what the patterns alone said
    assert wanted(question) is want


@pytest.mark.parametrize(
    ("question", "want"),
    [
        ("Does SW-DRSO improve robustness to corrupted sets?", Want.FINDING),
        ("How much does ConPress cut reasoning tokens?", Want.FINDING),
        ("how well does CLINIC detect OOD graphs?", Want.FINDING),
        ("What is ZS-SVD?", Want.DEFINITION),
        ("Why are existing circuits unreliable?", Want.MOTIVATION),
        # a first fit read "what's" as asking what a thing is, over the word that says what
        ("what's the conclusion then", Want.FINDING),
        ("what is the result?", Want.FINDING),
        ("what's the motivation?", Want.MOTIVATION),
        # a claim or a keyword query wants the finding that bears on it, with no model
        ("Statins reduce the risk of stroke.", Want.FINDING),
        ("graph neural networks", Want.FINDING),
    ],
)
def test_what_the_patterns_read_right_stays_right(question: str, want: Want) -> None:
    assert wanted(question) is want


def test_the_model_weighs_the_question_s_words_and_the_patterns_given() -> None:
    features = question_features("What limits it?", ["re:motivation"])
    assert {"w:limits", "b:what_limits", "o:what", "o2:what_limits", "re:motivation"} <= features
    table = {"w:limits": (0.0, 0.0, 2.0), "o:what": (1.0, 0.5, 0.0)}
    assert classify(features, table) == "motivation"
    assert classify({"o:what"}, table) == "finding"
    assert classify(set(), {}) == KINDS[0]
