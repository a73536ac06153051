"""The Chroma side of the index: a chunk collection for retrieval, a paper collection for records.

Embedded (`PersistentClient` under the index folder) or a Chroma server (`rag.index.chroma_client`),
through the same code. Our own embeddings are always passed: Chroma's default embedding function
downloads a model and must never run.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import IndexMismatchError, IndexNotFoundError
from rag.index.chroma_client import ChromaServer, embedded_client
from rag.index.chroma_reader import ReaderUnavailable, ReadOnlyClient
from rag.records import Paper

log = logging.getLogger(__name__)

PAGE = 5000  # rows per `get` page when reading a whole collection


@dataclass(frozen=True)
class ChunkMatch:
    """One chunk returned by a dense query."""

    paper_id: str
    text: str
    similarity: float


def embedded_index_exists(index_dir: Path) -> bool:
    """Whether `index_dir` holds an embedded Chroma index (checked without importing Chroma)."""
    return (index_dir / "chroma.sqlite3").exists()


def _client(index_dir: Path, server: ChromaServer | None, create: bool) -> Any:
    """Return a client: a server's, Chroma's engine read-only, or `chromadb.PersistentClient`."""
    if server:
        return server.connect()
    if index_dir.is_file():  # "--index notes.md" was told no index was there, to ingest first
        raise IndexNotFoundError(
            f"{index_dir} is a file, not an index folder: pass --index a folder (a new one to "
            "ingest into, or one `rag ingest` made)."
        )
    if create:
        return embedded_client(index_dir)
    if not embedded_index_exists(index_dir):
        raise IndexNotFoundError(
            f"No index at {index_dir}: run `rag ingest seeds/` first "
            "(or pass --index / set RAG_INDEX_DIR)."
        )
    try:
        return ReadOnlyClient(index_dir)
    except ReaderUnavailable as exc:
        log.debug("reading %s through chromadb's client: %s", index_dir, exc)
        return embedded_client(index_dir)


def _scalar_metadata(paper: Paper) -> dict[str, str | int | bool]:
    """Chroma metadata is scalar: lists are joined, None is left out."""
    meta: dict[str, str | int | bool] = {
        "paper_id": paper.id,
        "record": paper.to_json(),
        "source_file": paper.source_file,
        "citation_key": paper.citation_key,
    }
    if paper.area:
        meta["area"] = paper.area
    if paper.year is not None:
        meta["year"] = paper.year
    return meta


def _add_or_replace(
    collection: Any,
    ids: list[str],
    vectors: np.ndarray,
    documents: list[str],
    metadatas: Sequence[dict[str, Any]],
) -> None:
    """Write rows to a collection: `add` those it does not hold, `upsert` only those it does.

    Never an upsert of new ids: in chromadb 1.5.9, embedded and server alike, once a batch that
    upserted new ids has been queried, a row written afterwards can be left out of the vector
    index that answers queries while `get` and `count` show it, until Chroma restarts (about
    one such batch in 30; `tests/index/test_store.py`). A reader then never finds a paper
    another process added by its passages. Rows written by `add` do not do this.
    """
    held = set(collection.get(ids=ids, include=[])["ids"])
    for write, rows in (
        (collection.add, [i for i, row_id in enumerate(ids) if row_id not in held]),
        (collection.upsert, [i for i, row_id in enumerate(ids) if row_id in held]),
    ):
        if rows:
            write(
                ids=[ids[i] for i in rows],
                embeddings=vectors[rows].tolist(),
                documents=[documents[i] for i in rows],
                metadatas=[metadatas[i] for i in rows],
            )


class ChromaStore:
    """Both collections of one index, with the embedding model they were built with."""

    def __init__(
        self,
        index_dir: Path,
        collection: str,
        model_name: str,
        dim: int,
        *,
        server: ChromaServer | None = None,
        create: bool = False,
        passage_method: str = "windows",
    ) -> None:
        self.location = server.where if server else str(index_dir)
        self.embedded = server is None
        self._dir = index_dir
        self._client = _client(index_dir, server, create)
        meta = {
            "hnsw:space": "cosine",
            "embedding_model": model_name,
            "dimension": dim,
            "passage_method": passage_method,
        }
        self._names = names = (f"{collection}_chunks", f"{collection}_papers")
        if create:
            self.chunks, self.papers = (
                self._client.get_or_create_collection(n, metadata=meta, embedding_function=None)
                for n in names
            )
        else:
            try:
                self.chunks, self.papers = (
                    self._client.get_collection(n, embedding_function=None) for n in names
                )
            except Exception as exc:  # chromadb raises NotFoundError or ValueError by version
                raise IndexNotFoundError(
                    f"No collection {collection!r} at {self.location}: "
                    "run `rag ingest seeds/` first."
                ) from exc
        built = self.chunks.metadata or {}
        if built.get("embedding_model") != model_name or built.get("dimension") != dim:
            raise IndexMismatchError(
                f"The index at {self.location} was built with embedding model "
                f"{built.get('embedding_model')!r} ({built.get('dimension')} dimensions), "
                f"not {model_name!r} ({dim}): use that model, or ingest into a new --index."
            )
        # How the passage vectors were made (`rag.settings.Settings.passage_vectors`); indexes
        # from before late chunking do not say, and made them one window at a time.
        self.passage_method = str(built.get("passage_method", "windows"))
        self.max_batch = int(self._client.get_max_batch_size())
        self.writes = 0  # write calls attempted through this store: 0 after a no-op ingest

    def release(self) -> None:
        """Drop Chroma's process-wide cache of this embedded client (no-op for a server).

        The next client for the same folder then reads the files afresh.
        """
        identifier = getattr(self._client, "_identifier", None)
        if not self.embedded or identifier is None:
            return  # a server's client, or the read-only engine (freed with this store)
        from chromadb.api.shared_system_client import SharedSystemClient

        SharedSystemClient._identifier_to_system.pop(identifier, None)
        SharedSystemClient._identifier_to_refcount.pop(identifier, None)

    # -- reading
    def count(self) -> int:
        return int(self.papers.count())

    def chunk_count(self) -> int:
        return int(self.chunks.count())

    def paper_ids(self) -> list[str]:
        """Every paper id, read without the records (about 2 µs a paper)."""
        ids: list[str] = []
        while True:
            page = self.papers.get(include=[], limit=PAGE, offset=len(ids))["ids"]
            ids.extend(page)
            if len(page) < PAGE:
                return ids

    def records(self) -> dict[str, Paper]:
        """Every paper record, by id (about 0.1 ms a paper)."""
        return {paper.id: paper for paper, _ in self.iter_papers()}

    def iter_papers(self, include_embeddings: bool = False) -> Iterator[tuple[Paper, Any]]:
        """Yield every paper record (and its paper-level embedding when asked)."""
        include = ["metadatas", "embeddings"] if include_embeddings else ["metadatas"]
        offset = 0
        while True:
            page = self.papers.get(include=include, limit=PAGE, offset=offset)
            metas = page["metadatas"] or []
            embs = page.get("embeddings") if include_embeddings else None
            for i, meta in enumerate(metas):
                yield Paper.from_json(str(meta["record"])), (embs[i] if embs is not None else None)
            if len(metas) < PAGE:
                return
            offset += PAGE

    def paper_embeddings(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        got = self.papers.get(ids=list(ids), include=["embeddings"])
        return {
            i: np.asarray(e, dtype=np.float32)
            for i, e in zip(got["ids"], got["embeddings"], strict=True)
        }

    def query(
        self, embedding: np.ndarray, n: int, paper_ids: Collection[str] | None = None
    ) -> list[ChunkMatch]:
        """Return the `n` chunks nearest to `embedding`, optionally within some papers."""
        where = {"paper_id": {"$in": list(paper_ids)}} if paper_ids is not None else None
        if paper_ids is not None and not paper_ids:
            return []
        # Chroma returns what there is when asked for more (counting first cost 15 ms at 100k)
        res = self.chunks.query(
            query_embeddings=[embedding.tolist()],
            n_results=n,
            where=where,
            include=["metadatas", "documents", "distances"],
        )
        return [
            ChunkMatch(str(m["paper_id"]), str(d), 1.0 - float(dist))
            for m, d, dist in zip(
                res["metadatas"][0], res["documents"][0], res["distances"][0], strict=True
            )
        ]

    def passages_of(self, paper_ids: Sequence[str]) -> list[tuple[str, str, np.ndarray]]:
        """Return every passage of some papers: (paper id, text, vector).

        For a handful of papers this lookup is far cheaper than a nearest-neighbour query
        restricted to them (a filtered query took about 185 ms over 250k passages).
        """
        if not paper_ids:
            return []
        got = self.chunks.get(
            where={"paper_id": {"$in": list(paper_ids)}},
            include=["metadatas", "documents", "embeddings"],
        )
        return [
            (str(meta["paper_id"]), str(text), np.asarray(vector, dtype=np.float32))
            for meta, text, vector in zip(
                got["metadatas"], got["documents"], got["embeddings"], strict=True
            )
        ]

    def passage_texts(self, paper_ids: Sequence[str]) -> list[tuple[str, str]]:
        """Return every passage of some papers as (paper id, text), without their vectors."""
        if not paper_ids:
            return []
        got = self.chunks.get(
            where={"paper_id": {"$in": list(paper_ids)}}, include=["metadatas", "documents"]
        )
        return [
            (str(meta["paper_id"]), str(text))
            for meta, text in zip(got["metadatas"], got["documents"], strict=True)
        ]

    @property
    def roles_model(self) -> str | None:
        """The fingerprint of the role model that gave the stored sentence roles (None: an
        index from before it was recorded)."""
        value = (self.papers.metadata or {}).get("roles_model")
        return str(value) if value is not None else None

    # -- writing
    def set_roles_model(self, fingerprint: str) -> None:
        """Record which role model gave the stored sentence roles."""
        self._writable()
        self.writes += 1
        # Chroma fixes the `hnsw:` settings at creation and refuses them in a modify.
        meta = {k: v for k, v in (self.papers.metadata or {}).items() if not k.startswith("hnsw:")}
        self.papers.modify(metadata={**meta, "roles_model": fingerprint})

    def _writable(self) -> None:
        """Before the first write of a store opened read-only, switch to Chroma's client."""
        if isinstance(self._client, ReadOnlyClient):
            self._client = embedded_client(self._dir)
            self.chunks, self.papers = (
                self._client.get_collection(n, embedding_function=None) for n in self._names
            )

    def _batched(self, n: int) -> Iterator[slice]:
        """Slices of at most `max_batch` rows, for writing (a store read-only switches first)."""
        for start in range(0, n, self.max_batch):
            self._writable()
            yield slice(start, start + self.max_batch)

    def add(
        self,
        papers: Sequence[Paper],
        paper_vectors: np.ndarray,
        chunks: Sequence[tuple[str, str]],
        chunk_vectors: np.ndarray,
    ) -> None:
        """Write papers and their chunks (`chunks` holds (paper_id, text) pairs).

        Rows already stored (chunks a killed ingest left behind) are replaced, the others added.
        """
        counters: dict[str, int] = {}
        chunk_ids, chunk_metas = [], []
        for pid, _ in chunks:
            counters[pid] = counters.get(pid, 0) + 1
            chunk_ids.append(f"{pid}-{counters[pid] - 1}")
            chunk_metas.append({"paper_id": pid})
        for part in self._batched(len(chunks)):
            self.writes += 1
            _add_or_replace(
                self.chunks,
                chunk_ids[part],
                chunk_vectors[part],
                [t for _, t in chunks[part]],
                chunk_metas[part],
            )
        # Papers last: a paper record exists only once all its chunks do (resumable ingest).
        for part in self._batched(len(papers)):
            batch = papers[part]
            self.writes += 1
            _add_or_replace(
                self.papers,
                [p.id for p in batch],
                paper_vectors[part],
                [p.abstract for p in batch],
                [_scalar_metadata(p) for p in batch],
            )

    def update_records(self, papers: Sequence[Paper]) -> None:
        """Rewrite the metadata of papers already stored (e.g. their source moved)."""
        for part in self._batched(len(papers)):
            batch = papers[part]
            self.writes += 1
            self.papers.update(
                ids=[p.id for p in batch], metadatas=[_scalar_metadata(p) for p in batch]
            )

    def delete(self, paper_ids: Sequence[str]) -> None:
        """Remove papers and all their chunks."""
        ids = list(paper_ids)
        for part in self._batched(len(ids)):
            batch = ids[part]
            self.writes += 1
            self.papers.delete(ids=batch)
            self.chunks.delete(where={"paper_id": {"$in": batch}})
