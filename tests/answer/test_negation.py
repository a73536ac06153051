"""What a paper says it does without (`rag.answer.negation`)."""

from __future__ import annotations

import pytest

from rag.answer.negation import asked_the_opposite, negated_only_stems, negated_spans
from rag.records import Paper


def governed(text: str) -> list[str]:
    return [text[a:b].strip() for a, b in negated_spans(text)]


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        (
            "It elicits concise reasoning without external teachers, manual pruning, or "
            "reinforcement learning.",
            ["external teachers, manual pruning, or reinforcement learning"],
        ),
        (
            "It models clusters as distributions rather than points, to enhance robustness "
            "against data heterogeneity.",
            ["points"],
        ),
        (
            "by modifying the graph, rather than fine-tuning the model parameters.",
            ["fine-tuning the model parameters"],
        ),
        ("It works in a rehearsal-free manner.", ["rehearsal"]),
        ("which not only minimizes the difference of distributions", []),
        ("BSDE approaches can avoid the curse of dimensionality.", []),
    ],
)
def test_the_words_a_negation_governs(text: str, spans: list[str]) -> None:
    assert governed(text) == spans


class Owner:  # what the stems are cached under (an index's BM25)
    pass


def test_a_word_said_elsewhere_too_is_not_negated_only() -> None:
    paper = Paper(
        id="p",
        authors=("A. Author",),
        abstract="We train with reinforcement learning. Unlike prior work, it needs no reward "
        "model and works without curricula.",
    )
    stems = negated_only_stems(paper, str.lower, Owner())
    assert "curricula" in stems and "reward" in stems
    assert "reinforcement" not in stems and "learning" not in stems


@pytest.mark.parametrize(
    ("words", "opposite"),
    [
        ("do not use RL?", "use RL"),
        ("don't need training?", "need training"),
        ("are not about graphs?", "about graphs"),
        ("without fine-tuning?", "fine-tuning"),
        ("never use reinforcement learning", "use reinforcement learning"),
        ("cannot scale?", "scale"),
        ("use RL, not supervision?", None),  # picks those that use RL
        ("is about graphs?", None),
        ("not only scales but is exact?", None),
        # more forms (this stop's review): "wouldn't", "have no", "lack"
        ("wouldn't use RL?", "use RL"),
        ("have no code?", "code"),
        ("lack labels?", "labels"),
        # a verb in the third person: "which of them needs no training?" offered a graph
        # prompting paper as the collection's best on "training" (a new user, stop 65)
        ("needs no training?", "training"),
        ("works without labels?", "labels"),
        ("relies on no teacher?", "teacher"),
        ("is no better than PPO?", None),
        # a comparison, not a negation (the review of stop 65)
        ("performs no better than GRPO?", None),
        ("takes no longer than an hour?", None),
        ("needs no more than one GPU?", None),
    ],
)
def test_a_choice_asking_for_those_that_do_not(words: str, opposite: str | None) -> None:
    assert asked_the_opposite(words) == opposite
