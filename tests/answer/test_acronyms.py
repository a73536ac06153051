"""Acronyms the abstracts define count for the question terms they stand for."""

from __future__ import annotations

import pytest

from rag.answer.abstention import question_terms, term_coverage
from rag.index.paper_index import Index
from rag.text import definitions, singular


def test_definitions_read_the_words_an_acronym_spells() -> None:
    found = definitions(
        [
            "Advances in large language models (LLMs) are costly. We cut cost (CC) in half.",
            "We train physics-informed neural networks (PINNs) and use the KV (key-value) cache.",
            "Results of the study (see Table) are shown.",  # no acronym: not a definition
        ]
    )
    assert found["llm"] == {("large", "language", "models")}
    assert found["pinn"] == {("physics-informed", "neural", "networks")}
    assert found["cc"] == {("cut", "cost")}
    assert "table" not in found and "key" not in found


@pytest.mark.parametrize(
    ("acronym", "one"), [("LLMs", "LLM"), ("GNNs", "GNN"), ("BOS", "BOS"), ("Ms", "Ms")]
)
def test_singular(acronym: str, one: str) -> None:
    assert singular(acronym) == one


@pytest.mark.slow
def test_a_paper_that_spells_an_acronym_out_holds_it(real_seed_index: Index) -> None:
    papers = real_seed_index.papers.values()
    terms = question_terms(real_seed_index, "backdoors in federated LLMs")
    # IndexGuard says "large language models", never "LLM"; another abstract defines it.
    indexguard = next(p for p in papers if p.authors[0] == "Javad Dogani")
    assert "LLM" not in indexguard.abstract
    assert term_coverage(real_seed_index, terms, indexguard.id) == 1.0
    # ZS-SVD says "LLM", the question "LLMs".
    zs_svd = next(p for p in papers if p.authors[0] == "Ali Abbasi")
    assert "LLMs" not in zs_svd.abstract
    compress = question_terms(real_seed_index, "Which papers compress LLMs?")
    assert term_coverage(real_seed_index, compress, zs_svd.id) == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("joiner", ["vs", "versus", "VS"])
def test_the_word_joining_a_comparison_weighs_nothing(real_seed_index: Index, joiner: str) -> None:
    # "CPO vs DPO": the paper on both holds all the question says. "vs", which no abstract
    # uses, had counted fully against every paper (the highest IDF of all).
    terms = question_terms(real_seed_index, f"CPO {joiner} DPO")
    assert [t for t, _ in terms] == ["cpo", "dpo"]
    cpo = next(p for p in real_seed_index.papers.values() if p.authors[0] == "Yonggang Zhang")
    assert term_coverage(real_seed_index, terms, cpo.id) == 1.0
