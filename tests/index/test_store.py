"""The Chroma store's writes: new rows are added, never upserted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rag.index.store import ChromaStore
from rag.records import Paper

DIM = 8


class _Recording:
    """A Chroma collection whose writes are noted (kind and ids) before they are made."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[tuple[str, list[str]]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def add(self, **kwargs: Any) -> None:
        self.calls.append(("add", list(kwargs["ids"])))
        self.inner.add(**kwargs)

    def upsert(self, **kwargs: Any) -> None:
        self.calls.append(("upsert", list(kwargs["ids"])))
        self.inner.upsert(**kwargs)


def test_new_rows_are_added_and_only_stored_ones_replaced(tmp_path: Path) -> None:
    """chromadb 1.5.9 (embedded and server alike) can leave a row out of the vector index its
    queries use when an earlier batch upserted new ids and the collection was queried in
    between: about 1 batch in 30, `get` and `count` see the row, no query returns it until
    Chroma restarts. A reader then never finds by its passages a paper another process
    added (tests/index/test_server_mode.py). Rows written with `add` were always found."""
    store = ChromaStore(tmp_path, "papers", "random", DIM, create=True)
    store.chunks, store.papers = _Recording(store.chunks), _Recording(store.papers)
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((3, DIM)).astype(np.float32)
    papers = [Paper(id=f"p{i}", authors=("A. Author",), abstract=f"text {i}") for i in range(3)]
    # A killed ingest left the passage of p1 behind, without its paper record.
    store.chunks.inner.add(
        ids=["p1-0"], embeddings=[[1.0] * DIM], documents=["old"], metadatas=[{"paper_id": "p1"}]
    )

    store.add(papers, vectors, [(p.id, p.abstract) for p in papers], vectors)

    assert store.chunks.calls == [("add", ["p0-0", "p2-0"]), ("upsert", ["p1-0"])]
    assert store.papers.calls == [("add", ["p0", "p1", "p2"])]
    got = store.chunks.get(ids=["p1-0"], include=["documents", "embeddings"])
    assert got["documents"] == ["text 1"]  # the leftover is replaced, not kept
    assert np.allclose(got["embeddings"][0], vectors[1])
    found = {m.paper_id for m in store.query(vectors[2], 10)}
    assert found == {"p0", "p1", "p2"} and store.count() == 3
