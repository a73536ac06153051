"""Sentence vectors kept on disk: the same vectors, embedded once across processes, never a
failure of their own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag.cite.claims import _SENTENCE_CACHE, cite
from rag.index.paper_index import Index
from rag.index.vector_cache import FILE, CachedEmbedder
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from tests.fake_embedding import FakeEmbedding


class Counting(FakeEmbedding):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        return super().embed(texts)


TEXTS = ["Noisy labels hurt graph networks.", "Fairness under distribution shift.", ""]


def test_vectors_are_the_models_and_each_text_is_embedded_once(tmp_path: Path) -> None:
    inner = Counting()
    first = CachedEmbedder(inner, tmp_path / FILE).embed(TEXTS)
    assert np.array_equal(first, FakeEmbedding().embed(TEXTS))
    later = Counting()  # another process: a new embedder over the same file
    again = CachedEmbedder(later, tmp_path / FILE).embed([*TEXTS, "A new sentence.", TEXTS[0]])
    assert np.array_equal(again[:3], first) and np.array_equal(again[4], first[0])
    assert later.texts == ["A new sentence."]
    assert CachedEmbedder(inner, tmp_path / FILE).embed([]).shape == (0, FakeEmbedding.dim)


def test_another_model_does_not_read_these_vectors(tmp_path: Path) -> None:
    CachedEmbedder(Counting(), tmp_path / FILE).embed(TEXTS)

    class Other(Counting):
        name = "another-model"

    other = Other()
    CachedEmbedder(other, tmp_path / FILE).embed(TEXTS)
    assert other.texts == TEXTS


@pytest.mark.parametrize("where", ["missing-folder", "not-a-database"])
def test_a_file_that_cannot_be_used_only_costs_time(tmp_path: Path, where: str) -> None:
    path = tmp_path / "gone" / FILE
    if where == "not-a-database":
        path = tmp_path / FILE
        path.write_text("this is not SQLite")
    inner = Counting()
    vectors = CachedEmbedder(inner, path).embed(TEXTS)
    assert np.array_equal(vectors, FakeEmbedding().embed(TEXTS)) and inner.texts == TEXTS


def test_cite_gives_the_same_answer_from_the_file(settings: Settings, seeds_copy: Path) -> None:
    index = Index(settings, Counting(), create=True)
    ingest([seeds_copy], index)
    claim = "Noisy labels on graphs can be corrected from the graph structure."
    _SENTENCE_CACHE.clear()
    first = cite(index, claim)
    assert (index.dir / FILE).is_file()
    _SENTENCE_CACHE.clear()  # as in a new process
    fresh = Counting()
    again = cite(Index(settings, fresh), claim)
    assert again == first and first.supports
    assert set(fresh.texts) == {claim}  # the claim only (search, score): sentences from the file
