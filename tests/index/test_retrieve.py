"""Search: hybrid beats each side alone, filters never leak, the BM25 side stays in sync."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from rag.errors import ConfigError, FilterMatchesNothingError
from rag.index.lexical import BM25Index, fingerprint
from rag.index.paper_index import Index
from rag.index.retrieve import Filters, search
from rag.ingest.pipeline import ingest, remove
from rag.settings import Settings
from tests.fake_embedding import FakeEmbedding

# A small "semantic" embedder: words that mean the same share one dimension, and a word it does
# not know (a made-up acronym) adds nothing, as with a real model that has never seen it.
CONCEPTS = {
    "car": ["car", "cars", "automobile", "automobiles", "vehicle", "vehicles"],
    "engine": ["engine", "engines", "motor", "motors"],
    "fuel": ["fuel", "gasoline", "petrol"],
    "waste": ["waste", "wasted", "burn", "burns", "inefficiently"],
    "protein": ["protein", "proteins"],
    "folding": ["folding", "fold", "folds", "misfolding"],
    "measure": ["measure", "measuring", "measurement", "measurements", "assay"],
    "cell": ["cell", "cells", "cellular"],
    "kinetics": ["kinetics", "rate", "rates", "speed"],
    "structure": ["structure", "structures", "shape"],
    "soil": ["soil", "soils", "earth"],
    "nitrogen": ["nitrogen", "nitrate"],
    "plant": ["plant", "plants", "roots"],
}
VOCAB = {word: i for i, words in enumerate(CONCEPTS.values()) for word in words}


class ConceptEmbedding:
    name = "fake-concepts"
    dim = len(CONCEPTS) + 1

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in zip(rows, texts, strict=True):
            for word in re.findall(r"[a-z]+", text.lower()):
                if word in VOCAB:
                    row[VOCAB[word]] += 1.0
            row[-1] = 0.05  # never a zero vector
            row /= np.linalg.norm(row)
        return rows


ENGINE = "Automobile engines waste fuel when they idle in traffic."
ACRONYM = "We introduce QZRT, an assay measuring protein folding in living cells."
PAPERS = [
    ENGINE,
    ACRONYM,
    "Protein folding kinetics: protein folding rates and folding structure.",
    "Protein folding shapes protein structure; misfolding of proteins.",
    "Cellular protein folding: the kinetics of folding in cells.",
    "Soil bacteria fix nitrogen near plant roots.",
]


def write_corpus(path: Path) -> Path:
    rows = [{"authors": [f"Author {i}"], "abstract": a} for i, a in enumerate(PAPERS)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def concept_index(tmp_path: Path, settings: Settings) -> Index:
    corpus = write_corpus(tmp_path / "papers.jsonl")
    index = Index(settings, ConceptEmbedding(), create=True)
    ingest([corpus], index)
    return index


def abstracts(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.paper.abstract for h in hits]


def test_hybrid_finds_a_rare_exact_term_that_dense_misses(concept_index: Index) -> None:
    query = "QZRT protein folding"
    assert ACRONYM not in abstracts(search(concept_index, query, k=3, retriever="dense"))
    assert abstracts(search(concept_index, query, k=1, retriever="bm25")) == [ACRONYM]
    assert ACRONYM in abstracts(search(concept_index, query, k=3, retriever="hybrid"))


def test_hybrid_finds_a_paraphrase_that_bm25_misses(concept_index: Index) -> None:
    query = "cars with motors that burn gasoline"
    assert ENGINE not in abstracts(search(concept_index, query, k=3, retriever="bm25"))
    assert abstracts(search(concept_index, query, k=1, retriever="dense")) == [ENGINE]
    hybrid = search(concept_index, query, k=3, retriever="hybrid")
    assert abstracts(hybrid)[0] == ENGINE


def test_relevance_is_the_cosine_of_the_best_passage(concept_index: Index) -> None:
    query = "cars with motors that burn gasoline"
    (hit,) = search(concept_index, query, k=1)
    vectors = ConceptEmbedding().embed([query, ENGINE])
    assert hit.relevance == pytest.approx(float(vectors[0] @ vectors[1]), abs=1e-4)


@pytest.mark.parametrize("retriever", ["hybrid", "dense", "bm25"])
def test_filters_never_leak(seed_index: Index, retriever: str) -> None:
    by_area = search(
        seed_index, "language models", k=20, retriever=retriever,
        filters=Filters(area="graph neural"),
    )  # fmt: skip
    assert by_area and all("Graph Neural Networks" in (h.paper.area or "") for h in by_area)

    by_author = search(
        seed_index, "attention", k=20, retriever=retriever, filters=Filters(author="yuksel")
    )
    assert len(by_author) == 2  # the two papers of Oğuz Yüksel, and nothing else
    assert all("Oğuz Yüksel" in h.paper.authors for h in by_author)


def test_bm25_side_indexes_authors_and_area(seed_index: Index) -> None:
    (hit,) = search(seed_index, "Loubes", k=1, retriever="bm25")
    assert "Jean-Michel Loubes" in hit.paper.authors
    (hit,) = search(seed_index, "chemistry", k=1, retriever="bm25")
    assert "Chemistry" in (hit.paper.area or "")
    assert "chemistry" not in hit.paper.abstract.lower()  # found by its area line alone


def test_unknown_retriever_is_a_config_error(seed_index: Index) -> None:
    with pytest.raises(ConfigError, match="hybrid, dense, bm25"):
        search(seed_index, "graphs", retriever="sparse")


def test_a_filter_matching_nothing_says_so(seed_index: Index) -> None:
    with pytest.raises(FilterMatchesNothingError, match="author='nobody-at-all'"):
        search(seed_index, "graphs", filters=Filters(author="nobody-at-all"))


def test_a_year_filter_on_papers_without_years_says_none_has_one(seed_index: Index) -> None:
    # The seeds give no year: "loosen it" sent a new user looking for a year that is not there.
    with pytest.raises(FilterMatchesNothingError, match="no paper in the index has a year"):
        search(seed_index, "graphs", filters=Filters(year_min=2020))
    with pytest.raises(FilterMatchesNothingError, match="loosen it"):
        search(seed_index, "graphs", filters=Filters(year_min=2020, author="nobody-at-all"))


def bm25_is_saved_and_current(index: Index) -> bool:
    saved = BM25Index.load(index.bm25_dir)
    return saved is not None and saved.fingerprint == fingerprint(index.papers)


def test_bm25_side_survives_restart_reingest_and_removal(
    tmp_path: Path, settings: Settings
) -> None:
    corpus = write_corpus(tmp_path / "papers.jsonl")
    index = Index(settings, FakeEmbedding(), create=True)
    ingest([corpus], index)
    assert bm25_is_saved_and_current(index)

    reopened = Index(settings, FakeEmbedding())
    assert abstracts(search(reopened, "QZRT", k=1, retriever="bm25")) == [ACRONYM]

    report = ingest([corpus], reopened)
    assert report.added == 0 and bm25_is_saved_and_current(reopened)
    assert abstracts(search(reopened, "QZRT", k=1, retriever="bm25")) == [ACRONYM]

    (victim,) = [pid for pid, p in reopened.papers.items() if p.abstract == ACRONYM]
    assert remove(reopened, [victim]) == 1
    assert bm25_is_saved_and_current(reopened)
    assert search(reopened, "QZRT", k=5, retriever="bm25") == []
    again = Index(settings, FakeEmbedding())
    assert ACRONYM not in abstracts(search(again, "QZRT protein", k=10, retriever="bm25"))
    assert len(again.bm25().ids) == len(PAPERS) - 1


def test_a_passage_whose_paper_record_is_not_written_yet_is_skipped(seed_index: Index) -> None:
    # Another process writing a batch has put this passage in, not yet its paper record.
    text = "zeolite catalysis for ammonia synthesis at low temperature"
    vector = seed_index.embedder.embed([text])[0]
    seed_index.store.chunks.upsert(
        ids=["unwritten-0"],
        embeddings=[vector.tolist()],
        documents=[text],
        metadatas=[{"paper_id": "unwritten"}],
    )
    for retriever in ("hybrid", "dense"):
        hits = search(seed_index, text, k=5, retriever=retriever)
        assert hits and all(h.paper.id != "unwritten" for h in hits)


def test_a_hit_found_by_bm25_alone_gets_its_best_passage(fake_index: Index, tmp_path: Path) -> None:
    from rag.ingest.chunking import chunk_paper

    sentences = [f"Sentence {i} describes the zyxomorph assay, step {i}." for i in range(60)]
    corpus = tmp_path / "long.jsonl"
    corpus.write_text(json.dumps({"authors": ["Ana Ruiz"], "abstract": " ".join(sentences)}))
    ingest([corpus], fake_index)
    (hit,) = search(fake_index, "zyxomorph step 41", k=1, retriever="bm25")
    passages = chunk_paper(hit.paper)
    assert len(passages) > 1
    vectors = FakeEmbedding().embed(["zyxomorph step 41", *passages])
    cosines = (
        vectors[1:]
        @ vectors[0]
        / (np.linalg.norm(vectors[1:], axis=1) * np.linalg.norm(vectors[0]))
    )
    best = int(np.argmax(cosines))
    assert hit.relevance == pytest.approx(float(cosines[best]), abs=1e-4)
    assert passages[best].startswith(hit.snippet.rstrip("…"))
