"""The question's terms a paper's sentences are told apart by (`rag.ingest.wanted.choice_terms`)."""

from __future__ import annotations

from rag.ingest.wanted import choice_terms, question_terms

TEXTS = [
    "Post-hoc interpretability methods attribute behaviour to components in isolation.",
    "In this work, we present ExPLAIND, a unified framework for model explanations.",
    "Finally, we use ExPLAIND to analyze a Transformer that exhibits Grokking.",
    "Our findings support previously proposed stages of Grokking.",
]
ROPE = [
    "Long contexts strain position encodings.",
    "We propose RoPE-Perturbed Self-Distillation, a training regularizer.",
    "Experiments show gains on long-context benchmarks.",
]


def terms_of(question: str, texts: list[str]) -> list[str]:
    return choice_terms(question, question_terms(question), texts)


def test_a_finding_asked_of_a_named_method_is_told_apart_by_its_other_words() -> None:
    # Every sentence about ExPLAIND may name it: the one naming it and grokking is no more
    # about what was found on grokking than the finding that names grokking alone.
    assert terms_of("What did ExPLAIND find about grokking?", TEXTS) == ["grokk"]


def test_a_question_on_the_method_alone_or_what_it_is_keeps_the_name() -> None:
    assert terms_of("ExPLAIND results?", TEXTS) == question_terms("ExPLAIND results?")
    assert "explaind" in terms_of("What is ExPLAIND?", TEXTS)
    assert "explaind" in terms_of("How does ExPLAIND work on grokking?", TEXTS)


def test_a_part_of_a_method_s_name_is_a_topic_of_its_own() -> None:
    # "RoPE" is a part of "RoPE-Perturbed Self-Distillation", not the method.
    assert "rope" in terms_of("what do they say about rotary embeddings (RoPE)?", ROPE)
    # the whole name, even spelled loosely, is the method
    assert terms_of("rope perturbed self distillation gains on long contexts", ROPE) == [
        t
        for t in question_terms("rope perturbed self distillation gains on long contexts")
        if t not in {"rope", "perturb", "self", "distil"}
    ]
