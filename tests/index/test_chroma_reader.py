"""Reading an index through Chroma's engine (no `import chromadb`): same answers, writes switch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chromadb
import numpy as np
import pytest

from rag.index import store as store_module
from rag.index.chroma_reader import ReaderUnavailable, ReadOnlyClient
from rag.index.paper_index import Index
from rag.index.store import ChromaStore
from rag.ingest.pipeline import ingest, remove
from rag.settings import Settings
from tests.conftest import ROOT
from tests.fake_embedding import FakeEmbedding


@pytest.fixture
def seeded(fake_index: Index, seeds_copy: Path) -> Index:
    ingest([seeds_copy], fake_index)
    fake_index.store.release()
    return fake_index


def _both(index: Index, name: str) -> tuple[object, object]:
    client = chromadb.PersistentClient(path=str(index.dir))
    return ReadOnlyClient(index.dir).get_collection(name), client.get_collection(name)


def test_the_engine_reads_what_chromas_client_reads(seeded: Index) -> None:
    fast, full = _both(seeded, "papers_chunks")
    assert fast.metadata == full.metadata and fast.count() == full.count()  # type: ignore[attr-defined]
    vector = FakeEmbedding().embed(["label noise on graphs"])[0].tolist()
    for where in (None, {"paper_id": {"$in": sorted(seeded.papers)[:3]}}):
        a = fast.query([vector], n_results=7, where=where)  # type: ignore[attr-defined]
        b = full.query(  # type: ignore[attr-defined]
            query_embeddings=[vector],
            n_results=7,
            where=where,
            include=["metadatas", "documents", "distances"],
        )
        assert a["ids"] == b["ids"] and a["documents"] == b["documents"]
        assert a["metadatas"] == b["metadatas"]
        assert np.allclose(a["distances"], b["distances"])
    ids = sorted(seeded.papers)[:5]
    papers_fast, papers_full = _both(seeded, "papers_papers")
    a = papers_fast.get(ids=ids, include=["embeddings", "metadatas"])  # type: ignore[attr-defined]
    b = papers_full.get(ids=ids, include=["embeddings", "metadatas"])  # type: ignore[attr-defined]
    assert a["ids"] == b["ids"] and a["metadatas"] == b["metadatas"]
    assert np.allclose(np.asarray(a["embeddings"]), np.asarray(b["embeddings"]))
    page = papers_fast.get(include=[], limit=15, offset=30)  # type: ignore[attr-defined]
    assert page["ids"] == papers_full.get(include=[], limit=15, offset=30)["ids"]  # type: ignore[attr-defined]
    assert len(page["ids"]) == 10


def test_an_index_opened_to_read_switches_to_chromas_client_to_write(
    seeded: Index, settings: Settings, fake_embedding: FakeEmbedding
) -> None:
    reader = Index(settings, fake_embedding)
    assert isinstance(reader.store._client, ReadOnlyClient)
    gone = next(p for p in reader.papers.values() if p.citation_key == "mai")
    remove(reader, [])  # nothing to write: still read-only
    assert isinstance(reader.store._client, ReadOnlyClient)
    remove(reader, [gone.id])
    assert not isinstance(reader.store._client, ReadOnlyClient)
    assert reader.store.count() == 39 and gone.id not in reader.store.paper_ids()
    assert not reader.store.passages_of([gone.id])
    reader.store.release()
    again = Index(settings, fake_embedding)  # a later command reads what was written
    assert isinstance(again.store._client, ReadOnlyClient)
    assert again.store.count() == 39 and gone.id not in again.papers


def test_an_index_the_engine_cannot_open_is_read_through_chromas_client(
    seeded: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(index_dir: Path) -> None:
        raise ReaderUnavailable("a migration to apply")

    monkeypatch.setattr(store_module, "ReadOnlyClient", refuse)
    fake = FakeEmbedding()
    opened = ChromaStore(seeded.dir, "papers", fake.name, fake.dim)
    assert opened.count() == 40


def test_a_missing_engine_is_reported_as_unavailable(tmp_path: Path) -> None:
    with pytest.raises(ReaderUnavailable):
        ReadOnlyClient(tmp_path / "nothing-here")


def test_reading_an_index_does_not_import_chromas_python_client(seeded: Index) -> None:
    fake = FakeEmbedding()
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
        "from rag.index.store import ChromaStore\n"
        f"s = ChromaStore(__import__('pathlib').Path({str(seeded.dir)!r}), 'papers', "
        f"{fake.name!r}, {fake.dim})\n"
        "print(s.count(), len(s.passages_of(s.paper_ids()[:2])) > 0, 'chromadb' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["40", "True", "False"]
