"""The citation check: the support score, its lexical guards, and the calibrated threshold."""

from __future__ import annotations

import json

import pytest

from rag.answer.citations import (
    CitationChecker,
    PaperFacts,
    PromptLeakDetector,
    cut_short,
    numbers,
    strip_markers,
)
from rag.answer.evidence import Evidence
from rag.index.paper_index import Index
from rag.records import Hit, Paper
from rag.settings import Settings
from tests.conftest import ROOT
from tests.fake_embedding import FakeEmbedding

ICGNN = Paper.create(
    authors=["Wei Ju", "Wei Zhang"],
    abstract=(
        "Graph Neural Networks (GNNs) learn from graph-structured data. "
        "We propose a novel approach called ICGNN that harnesses the structure information of "
        "the graph to alleviate noisy labels. Then we leverage the Gaussian mixture model to "
        "detect whether the label of a node is noisy. Experiments on four benchmark datasets "
        "show gains of 3.5% over ten baselines."
    ),
    label="Ju et al. — ICGNN",
)
BREAD = Paper.create(
    authors=["Ann Baker"],
    abstract="Sourdough bread ferments rye flour overnight. The crust browns at 250 degrees.",
    label="Baker",
)


def checker(threshold: float = 0.5) -> CitationChecker:
    evidence = [
        Evidence(n, Hit(p, n, 1.0, "", 0.8), (p.abstract,), (0.8,))
        for n, p in enumerate([ICGNN, BREAD], start=1)
    ]
    leak = PromptLeakDetector("You answer questions about research papers using only sources.")
    return CitationChecker(FakeEmbedding(), evidence, threshold, leak)


def test_markers_are_read_and_removed() -> None:
    assert strip_markers("Graphs help [1][2, 3]. ") == ("Graphs help.", [1, 2, 3])
    assert strip_markers("No marker here") == ("No marker here", [])


def test_numbers_in_digits_and_words() -> None:
    assert numbers("four datasets, 3.5% and 10x over twelve runs") == {4, 3.5, 10, 12}


@pytest.mark.parametrize(
    ("sentence", "foreign"),
    [
        ("ICGNN detects noisy labels with a Gaussian mixture model.", ()),
        ("GNNs learn from graph-structured data, as Ju et al. show.", ()),
        ("ICGNN gains 3.5% on four datasets.", ()),
        ("ICGNN gains 35% on four datasets.", ("35",)),
        ("ICGNN is evaluated on eleven datasets.", ("11",)),
        ("ICGNN is built on GraphSAGE and certified in Coq.", ("GraphSAGE", "Coq")),
        ("The GNN detects noisy labels.", ()),  # the abstract spells the acronym out
        ("The LLM detects noisy labels.", ("LLM",)),
        ("Ju et al. detect noisy labels.", ()),
        # A claim given to people who did not write the paper, even as the first word.
        ("Zhao et al. — GNNs learn from graph-structured data.", ("Zhao",)),
        ("Zhao et al. show that GNNs learn from graph-structured data.", ("Zhao",)),
        ("MAI & Loubes show that GNNs learn from graph-structured data.", ("MAI", "Loubes")),
        ("Ju & Zhang detect noisy labels.", ()),
        ("Q&A on graphs detects noisy labels.", ()),  # "Q&A" names nobody
    ],
)
def test_foreign_numbers_and_names(sentence: str, foreign: tuple[str, ...]) -> None:
    assert PaperFacts(ICGNN).foreign(sentence) == foreign


def test_supported_sentence_is_kept_with_its_evidence() -> None:
    result = checker().check(
        "We leverage the Gaussian mixture model to detect noisy node labels [1]."
    )
    assert result.supported and result.sources == (1,) and not result.attributed
    assert "Gaussian mixture" in result.evidence[0]
    assert result.support >= 0.5


def test_fabricated_number_is_a_foreign_fact_even_when_it_reads_like_the_abstract() -> None:
    result = checker().check(
        "Experiments on four benchmark datasets show gains of 35% over ten baselines [1]."
    )
    assert not result.supported
    assert result.reason == "foreign_fact" and result.foreign == ("35",)


def test_a_line_under_another_papers_authors_is_not_supported() -> None:
    # SmolLM2 wrote ICGNN's sentence under "Zhao et al." and cited ICGNN.
    result = checker().check(
        "Zhao et al. — Graph Neural Networks learn from graph-structured data [1]."
    )
    assert not result.supported and "Zhao" in result.foreign
    assert (
        checker()
        .check("Ju et al. — Graph Neural Networks learn from graph-structured data [1].")
        .supported
    )


def test_marker_to_an_unretrieved_paper_does_not_count() -> None:
    result = checker().check("Sourdough bread ferments rye flour overnight [7].")
    # [7] was never retrieved: the check attributes the sentence to the paper that holds it.
    assert result.supported and result.sources == (2,) and result.attributed


def test_wrong_marker_is_moved_to_the_supporting_paper() -> None:
    result = checker().check("Sourdough bread ferments rye flour overnight [1].")
    assert result.supported and result.sources == (2,) and result.attributed


def test_unsupported_claim_is_rejected() -> None:
    result = checker().check("Transformers translate French poetry into Klingon [1].")
    assert not result.supported and result.reason in ("unsupported", "foreign_fact")
    assert result.sources == (1,)


def test_copy_of_the_instructions_is_a_leak() -> None:
    result = checker().check("You answer questions about research papers using only sources.")
    assert not result.supported and result.reason == "prompt_leak"


def test_a_long_clause_of_a_longer_sentence_is_not_cut_short() -> None:
    full = " ".join(f"word{i}" for i in range(30))
    assert not cut_short(" ".join(full.split()[:10]), full)  # a clause that says something
    assert cut_short(" ".join(full.split()[:4]), full)


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("Experiments on four benchmark datasets [1].", False),  # cut before what they show
        ("We propose a novel approach [1].", False),
        # the main clause without its last words ("over ten baselines") still says something
        ("Experiments on four benchmark datasets show gains of 3.5% [1].", True),
        ("Graph Neural Networks (GNNs) learn from graph-structured data [1].", True),
        # a long clause of a long sentence says something
        (
            "We propose a novel approach called ICGNN that harnesses the structure [1].",
            True,
        ),
    ],
)
def test_an_abstract_sentence_cut_short_is_no_claim(text: str, claim: bool) -> None:
    # The local model wrote "Experiments on benchmark datasets [2]." as a paper's line.
    assert (checker().check(text).reason != "not_a_claim") is claim


# "ICGNN: [1]." came from the local model as a line of its own, and was shown as "ICGNN: [1].":
# the name is in the paper, so it passed the support check while it claims nothing.
@pytest.mark.parametrize("text", ["", "[1].", "42.", "...", "ICGNN: [1].", "Ju et al. (ICGNN):"])
def test_non_claims_are_not_supported(text: str) -> None:
    assert checker().check(text).reason == "not_a_claim"


# -- the calibrated threshold, with the real embedding model


@pytest.mark.slow
def test_calibrated_threshold_keeps_its_precision_on_the_labelled_pairs(
    real_seed_index: Index,
) -> None:
    """The labelled pairs of bench/data: at the default threshold, precision stays >= 0.9."""
    settings = Settings()
    papers = {p.citation_key: p for p in real_seed_index.papers.values()}
    rows = [
        json.loads(line)
        for line in (ROOT / "bench" / "data" / "support_pairs.jsonl").read_text().splitlines()
    ]
    rows = [r for r in rows if r["key"] != "*"]
    by_key: dict[str, list[dict]] = {}
    for row in rows:
        by_key.setdefault(row["key"], []).append(row)
    passed: dict[tuple[int, str], list[bool]] = {}
    for key, group in by_key.items():
        hit = Hit(papers[key], 1, 1.0, "", 0.8)
        check = CitationChecker(
            real_seed_index.embedder, [Evidence(1, hit, (), ())], settings.support_threshold
        )
        for row in group:
            ok = check.check(row["sentence"] + " [1]").supported
            passed.setdefault((row["label"], row["kind"]), []).append(ok)
    kept_true = sum(sum(v) for (label, _), v in passed.items() if label == 1)
    kept_false = sum(sum(v) for (label, _), v in passed.items() if label == 0)
    assert kept_true / (kept_true + kept_false) >= 0.9
    assert sum(passed[(1, "paraphrase")]) / len(passed[(1, "paraphrase")]) >= 0.5
    # Wrong numbers and wrong names are what the lexical guard exists for.
    for kind in ("wrong_number", "wrong_name"):
        assert sum(passed[(0, kind)]) / len(passed[(0, kind)]) <= 0.1, kind
