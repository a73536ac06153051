"""A sentence whose subject points back ("However, these approaches assume X") is never shown
without the sentence it points to: alone, under the paper's name, it reads as the paper's claim.

CELL's abstract says prior methods assume the target domain's sensitive attributes are known,
and that CELL does without them. Quoted alone, "These approaches assume that sensitive
attributes of the target domain are available [1]" answers "does CELL need them?" with yes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from rag.answer.discourse import points_back
from rag.answer.pipeline import answer
from rag.backends.base import Prompt
from rag.index.paper_index import Index
from tests.fakes import FakeLLM

PRIOR = "Most prior methods rely on adversarial learning"
ASSUME = "these approaches assume that sensitive attributes of the target domain are available"


@pytest.mark.parametrize(
    "text",
    [
        "However, these approaches assume that X holds.",
        "This leads to explanations that lack a unified view.",
        "Such methods fail on long inputs.",
        "They also ignore the graph structure.",
        "Moreover, their cost grows with the depth.",
        # a demonstrative past the subject names something said before too
        "We show that this bound is tight.",
        "We characterize when this assumption is violated.",
        "We prove this equivalence is conditional rather than universal.",
    ],
)
def test_a_subject_that_refers_back_is_recognised(text: str) -> None:
    assert points_back(text)


@pytest.mark.parametrize(
    "text",
    [
        "This paper studies fairness on graphs.",
        "In this work, we study fairness on graphs.",
        "We compare regularisers such as dropout and weight decay.",
        "We choose the weights such that the loss is convex.",
        "This position paper argues for open benchmarks.",
        "In this research, we study fairness on graphs.",
        # late in the sentence, a demonstrative names what the sentence itself said
        "Experiments on reasoning benchmarks demonstrate that PoLar consistently improves "
        "accuracy over standard inference, and that these gains persist out of distribution.",
        "To address this limitation, we propose CELL.",
        "Thermal effects dominate at low temperature.",
        "Theory predicts a phase transition.",
        "It is known that attention heads specialise.",
    ],
)
def test_a_sentence_that_stands_alone_is_not_flagged(text: str) -> None:
    assert not points_back(text)


def _lines_citing_cell(result: object, index: Index) -> list[str]:
    cell = next(p for p in index.papers.values() if "CELL" in (p.label or ""))
    numbers = {c.n for c in result.citations if c.hit.paper.id == cell.id}  # type: ignore[attr-defined]
    return [
        s["text"]
        for s in result.sentences  # type: ignore[attr-defined]
        if s["shown"] and numbers & set(s["citations"])
    ]


@pytest.mark.slow
def test_the_composer_shows_the_sentence_pointed_back_to(real_seed_index: Index) -> None:
    question = "Why do fairness-aware graph adaptation methods fail in real deployments?"
    result = answer(real_seed_index, question, settings=real_seed_index.settings, backend=None)
    lines = _lines_citing_cell(result, real_seed_index)
    assert lines, result.answer
    assert any(ASSUME in line.lower() for line in lines), result.answer
    for line in lines:
        if ASSUME in line.lower():
            assert line.index(PRIOR) < line.lower().index(ASSUME)


class _CopiesBackground(FakeLLM):
    """A small model's habit: it copies CELL's "These approaches assume ..." with its number."""

    def generate(self, prompt: Prompt, **kwargs: object) -> Iterator[str]:  # type: ignore[override]
        n = re.search(r"^\[(\d+)\] [^\n]*CELL", prompt.user, flags=re.M)
        self.enqueue(f"These approaches assume that sensitive attributes of the target domain "
                     f"are available [{n.group(1) if n else 1}].")  # fmt: skip
        yield from super().generate(prompt, **kwargs)  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_model_sentence_that_points_back_alone_is_not_shown(real_seed_index: Index) -> None:
    question = "Does CELL need the sensitive attributes of the target domain?"
    result = answer(
        real_seed_index, question, settings=real_seed_index.settings, backend=_CopiesBackground()
    )
    rejected = [s for s in result.sentences if s.get("reason") == "points_back"]
    assert rejected and not rejected[0]["shown"]
    for line in _lines_citing_cell(result, real_seed_index):
        if ASSUME in line.lower():
            assert PRIOR in line, result.answer


@pytest.mark.slow
def test_after_a_background_opening_the_authors_are_named_where_their_claim_starts(
    real_seed_index: Index,
) -> None:
    # "DPO vs RLHF" quoted "characterize when this assumption is violated" with nothing before
    # it (a new user); shown after the sentences it points back to, the line opens on the
    # field's claim the CPO paper refutes, labelled background, and their own claim must read
    # as theirs, not as "They prove ..." going on from it (a review).
    result = answer(real_seed_index, "DPO vs RLHF", settings=real_seed_index.settings, backend=None)
    line = next(s["text"] for s in result.sentences if "this assumption" in s["text"])
    assert line.startswith("Zhang et al. (CPO), as background: "), line
    assert "Zhang et al. (CPO) prove this equivalence" in line, line
    assert line.index("implicit assumption") < line.index("this assumption"), line
