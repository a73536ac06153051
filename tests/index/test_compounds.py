"""A compound typed otherwise than the collection writes it is read as the collection writes it.

"Fastest finetuning of big models?" was told no paper uses "finetuning" (eight seed abstracts
say "fine-tuning"), and "over-parameterized models" missed both papers that say
"overparameterized".
"""

from __future__ import annotations

import pytest

from rag import api
from rag.index.paper_index import Index
from rag.index.spelling import corrected


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("Fastest finetuning of big models?", "Fastest fine-tuning of big models?"),
        ("multiview clustering", "multi-view clustering"),
        ("nonconvex optimization", "non-convex optimization"),  # a research area: "Non-Convex"
        ("over-parameterized models", "overparameterized models"),
        ("multi modal LLMs", "multimodal LLMs"),
        ("graph multi modal models", "graph multimodal models"),  # every pair of neighbours
        ("Multi-modal large language models", "Multimodal large language models"),
    ],
)
def test_a_compound_is_read_as_the_collection_writes_it(
    seed_index: Index, typed: str, read: str
) -> None:
    assert corrected(seed_index, typed) == read


@pytest.mark.parametrize(
    "typed",
    [
        "long-context language models",  # written so in the collection
        "in-context learning",
        "supervised fine tuning",  # "fine tuning" is how BM25 reads "fine-tuning" already
        "any one paper on graphs",  # "anyone": a stop word is never joined to the next
        "GPT-style models",  # a name
        "notebook tips",  # an English word the collection lacks is not cut ("note book")
        # no paper writes "modelsize": its stem is "model", which every paper holds
        "does scaling model size improve reasoning?",
        "graph size",
    ],
)
def test_other_words_stay_as_typed(seed_index: Index, typed: str) -> None:
    assert corrected(seed_index, typed) == typed


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "papers"),
    [
        ("Fastest finetuning of big models?", {"Jie Deng", "Zichong Li", "Kunjal Panchal"}),
        ("over-parameterized models", {"Maria Matveev", "Xiaoyi MAI"}),
    ],
)
def test_such_a_question_is_answered_from_the_papers(
    real_seed_index: Index, question: str, papers: set[str]
) -> None:
    answer = api.ask(question, index=real_seed_index, backend=None)
    assert not answer.abstained, answer.answer
    assert {c.hit.paper.authors[0] for c in answer.citations} & papers, answer.answer
