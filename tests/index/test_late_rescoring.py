"""A late index answers as a windows index does: its first papers are scored by their windows.

Late chunking pools each window's vector from one pass over the paper (fast ingest); the
first papers a search returns are scored again by their windows encoded on their own, the
cosine the abstention and the per-paper judgement of answers were fitted on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.answer.pipeline import answer
from rag.index.paper_index import Index
from rag.index.retrieve import RESCORED, best_passages, search
from rag.ingest.pipeline import ingest
from rag.settings import Settings
from tests.conftest import SEEDS
from tests.fake_embedding import FakeEmbedding

QUESTIONS = (
    "Which papers use federated learning?",
    "noisy labels on graphs",
    "DPO vs RLHF",
    "How do transformers learn Markov chains in context?",
    # Pooled cosines alone abstained on the first and dropped Yingru Li from the second.
    "scientific foundation models",
    "lazy likelihood displacement versus off-policy mismatch as causes of LLM RL collapse",
)


def _seed_index(folder: Path, method: str) -> Index:
    settings = Settings(index_dir=folder, backend="extractive", passage_vectors=method)
    index = Index(settings, create=True)
    ingest([SEEDS], index)
    return index


@pytest.fixture(scope="module")
def real_late_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    return _seed_index(tmp_path_factory.mktemp("real-late-index"), "late")


@pytest.fixture(scope="module")
def real_windows_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    return _seed_index(tmp_path_factory.mktemp("real-windows-index"), "windows")


def test_only_a_rescoring_search_encodes_windows_and_only_once(
    settings: Settings, seeds_copy: Path
) -> None:
    fake = FakeEmbedding()
    index = Index(settings.model_copy(update={"passage_vectors": "late"}), fake, create=True)
    ingest([seeds_copy], index)
    before = fake.texts_embedded
    search(index, "noisy labels on graphs", k=5)
    assert fake.texts_embedded == before + 1  # the query alone: a plain search stays as fast
    search(index, "noisy labels on graphs", k=5, rescore=True)
    windows = fake.texts_embedded - before - 2
    assert windows >= RESCORED  # every window of the first papers, each on its own
    again = fake.texts_embedded
    search(index, "noisy labels on graphs", k=5, rescore=True)
    assert fake.texts_embedded == again + 1  # the windows come from the index's vector cache


@pytest.mark.slow
@pytest.mark.parametrize("question", QUESTIONS)
def test_the_first_papers_get_their_windows_cosine(
    real_late_index: Index, real_windows_index: Index, question: str
) -> None:
    hits = search(real_late_index, question, k=RESCORED, rescore=True)
    vector = real_windows_index.embedder.embed([question])[0]
    own = best_passages(real_windows_index, vector, [h.paper.id for h in hits])
    for hit in hits:
        assert hit.relevance == pytest.approx(own[hit.paper.id][0], abs=1e-4), hit.paper.id
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


@pytest.mark.slow
@pytest.mark.parametrize("question", QUESTIONS)
def test_an_answer_cites_the_papers_a_windows_index_cites(
    real_late_index: Index, real_windows_index: Index, question: str
) -> None:
    late = answer(real_late_index, question, settings=real_late_index.settings, backend=None)
    windows = answer(
        real_windows_index, question, settings=real_windows_index.settings, backend=None
    )
    assert [c.hit.paper.id for c in late.citations] == [c.hit.paper.id for c in windows.citations]
    assert late.answer == windows.answer
