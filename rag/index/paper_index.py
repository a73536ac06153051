"""An open index: the Chroma collections, the BM25 side kept in sync, and the paper catalog."""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rag.errors import IndexBusyError, IndexMismatchError
from rag.index import catalog
from rag.index.chroma_client import ChromaServer
from rag.index.embedding import (
    Embedder,
    SentenceTransformerEmbedder,
    load_embedder,
    load_query_embedder,
    prepare_query_embedder,
)
from rag.index.late_chunking import METHOD as LATE_METHOD
from rag.index.lexical import BM25Index, fingerprint, paper_text
from rag.index.model_files import model_dimension, model_name
from rag.index.store import ChromaStore
from rag.index.vector_cache import FILE as SENTENCE_VECTORS
from rag.index.vector_cache import CachedEmbedder
from rag.records import Paper
from rag.settings import Settings

log = logging.getLogger(__name__)


# A new index's passage method when `passage_vectors` is unset. Late chunking retrieves as well
# (SciFact nDCG@10 0.745 both) at up to 2.8 times the ingest rate, and a search scores its first
# papers by their windows encoded on their own (`rag.index.retrieve.RESCORED`), so answers on a
# late index cite what they cite on a windows one (bench/results/paper_choice.md).
NEW_INDEX_METHOD = "late"


def recorded_method(setting: str) -> str:
    """Return what an index records for passage vectors made by a `passage_vectors` setting."""
    return LATE_METHOD if setting == "late" else setting


def setting_of(recorded: str) -> str:
    """Return the `passage_vectors` setting that adds to an index recording `recorded`."""
    return "windows" if recorded == "windows" else "late"


GENERATION_FILE = ".generation"  # rewritten by every write: other processes then reopen
WRITING_FILE = ".writing"  # present from a write's start until its new token is in place


class Index:
    """Everything needed to read and write one index, opened once and reused.

    Args:
        settings: where the index is and which embedding model it uses.
        embedder: an embedder to use instead of loading the configured model (tests).
        create: create the collections when they do not exist (ingest); otherwise a missing
            index raises IndexNotFoundError.
    """

    def __init__(
        self, settings: Settings, embedder: Embedder | None = None, *, create: bool = False
    ) -> None:
        self.settings = settings
        self.dir = Path(settings.index_dir)
        self._embedder = embedder
        self._ingest_embedder = embedder  # a given embedder (tests) does both
        self._embedder_lock = threading.Lock()
        self._sentence_embedder: Embedder | None = None
        self._dim: int | None = None
        if embedder is not None:
            name, dim = embedder.name, embedder.dim
        else:
            # The model is loaded on first use: listing, removing, a re-ingest that embeds
            # nothing and every error path then never pay for torch and the weights.
            name = model_name(settings.embedding_model)
            dim = model_dimension(settings.embedding_model) or 0
            if not dim:  # the config does not tell: ask the model itself
                name, dim = self.ingest_embedder.name, self.ingest_embedder.dim
        self._model = (name, dim)
        self.store = self._open_store(create)
        self._dim = dim
        self._generation = self._read_generation()
        self._papers: dict[str, Paper] | None = None
        self._bm25: BM25Index | None = None
        self._lock = threading.RLock()

    @property
    def embedder(self) -> Embedder:
        """The query-time embedding model of this index, loaded on first use.

        ONNX Runtime by default (no torch; the same vectors as the ingest encoder), see
        `rag.index.embedding.load_query_embedder`.
        """
        with self._embedder_lock:
            if self._embedder is None:
                s = self.settings
                self._embedder = self._checked(
                    load_query_embedder(
                        s.embedding_model,
                        s.embed_batch_size,
                        encoder=s.query_encoder,
                        onnx_dir=s.onnx_dir,
                    )
                )
            return self._embedder

    @property
    def sentence_embedder(self) -> Embedder:
        """The query embedder, with the vectors of abstract sentences kept in the index folder.

        For texts that recur across processes: the sentences `cite` and `ask` choose from
        (`rag.index.vector_cache`); questions and claims go to `embedder`.
        """
        if self._sentence_embedder is None:
            self._sentence_embedder = CachedEmbedder(self.embedder, self.dir / SENTENCE_VECTORS)
        return self._sentence_embedder

    @property
    def ingest_embedder(self) -> Embedder:
        """The embedding model ingest uses (sentence-transformers), loaded on first use.

        Ingest keeps torch: for batches ONNX Runtime was no faster on these CPUs. Loading it
        also makes the ONNX export for later queries when there is none yet.
        """
        with self._embedder_lock:
            if self._ingest_embedder is None:
                s = self.settings
                loaded = self._checked(load_embedder(s.embedding_model, s.embed_batch_size))
                if isinstance(loaded, SentenceTransformerEmbedder):
                    prepare_query_embedder(s.embedding_model, s.query_encoder, s.onnx_dir)
                self._ingest_embedder = loaded
            return self._ingest_embedder

    def _checked(self, loaded: Embedder) -> Embedder:
        if self._dim is not None and self._dim != loaded.dim:
            raise IndexMismatchError(
                f"The embedding model {loaded.name!r} makes {loaded.dim}-dimensional "
                f"vectors, not the {self._dim} this index holds: use the model the "
                "index was built with, or ingest into a new --index."
            )
        return loaded

    @property
    def passage_vectors(self) -> str:
        """How this index's ingests make passage vectors: the setting, else as it was built."""
        return self.settings.passage_vectors or setting_of(self.store.passage_method)

    def check_passage_method(self) -> None:
        """Refuse to add passage vectors made otherwise than those the index holds.

        Queries are embedded the same way for either method, so reading never minds; only
        mixing two kinds of passage vectors in one collection would rank papers unevenly.

        Raises:
            IndexMismatchError: the index was built with another `passage_vectors` method,
                or with one this version no longer makes.
        """
        built, wanted = self.store.passage_method, recorded_method(self.passage_vectors)
        if built == wanted:
            return
        if built not in ("windows", LATE_METHOD):
            raise IndexMismatchError(
                f"The index at {self.store.location} holds passage vectors made by the "
                f"{built!r} method, which this version no longer makes: ingest into a new "
                "--index to rebuild it (searching it still works)."
            )
        name, setting = self.passage_vectors, setting_of(built)
        raise IndexMismatchError(
            f"The index at {self.store.location} holds passage vectors made by the "
            f"{setting!r} method, not {name!r}: unset RAG_PASSAGE_VECTORS (or set "
            f"RAG_PASSAGE_VECTORS={setting}) to add to it, or ingest into a new --index to "
            "rebuild it with the other method."
        )

    @property
    def bm25_dir(self) -> Path:
        return self.dir / f"bm25-{self.settings.collection}"

    # -- the catalog of papers, read once and refreshed after writes
    @property
    def catalog_path(self) -> Path:
        return self.dir / f"catalog-{self.settings.collection}.jsonl"

    @property
    def papers(self) -> dict[str, Paper]:
        with self._lock:
            if self._papers is None:
                self._papers = self._read_catalog()
            return self._papers

    def _read_catalog(self) -> dict[str, Paper]:
        """Every paper record: from the local copy where it can be trusted, else from Chroma.

        Not on a server (another machine may change records without touching this folder),
        nor while a write is under way or died part-way (records may differ under the same ids).
        """
        if not self.store.embedded or (self.dir / WRITING_FILE).exists():
            return self.store.records()
        papers = catalog.load(self.catalog_path, self._generation, self.store.paper_ids())
        if papers is None:
            papers = self.store.records()
            catalog.save(self.catalog_path, self._generation, papers)
        return papers

    def refresh(self) -> None:
        """Forget cached state so that the next read sees what another writer stored."""
        with self._lock:
            self._papers = None
            self._bm25 = None

    # -- other processes' writes
    def _open_store(self, create: bool = False) -> ChromaStore:
        name, dim = self._model
        return ChromaStore(
            self.dir,
            self.settings.collection,
            name,
            dim,
            server=ChromaServer.from_settings(self.settings),
            create=create,
            passage_method=recorded_method(self.settings.passage_vectors or self._new_method()),
        )

    def _new_method(self) -> str:
        """A new index's method when the setting is unset: `NEW_INDEX_METHOD`, or windows when
        the given embedder cannot pool passage vectors from one pass (the configured
        sentence-transformers model always can)."""
        given = self._ingest_embedder
        return NEW_INDEX_METHOD if given is None or hasattr(given, "embed_late") else "windows"

    def _read_generation(self) -> str:
        try:
            return (self.dir / GENERATION_FILE).read_text()
        except OSError:
            return ""

    def changed_elsewhere(self) -> bool:
        """Return whether another process wrote to the index since this one last read it.

        Embedded, every write leaves a new generation token in the index folder; on a Chroma
        server, whose folder is not shared, a changed paper count tells.
        """
        if self.settings.chroma_url:
            return self.store.count() != len(self.papers)
        return self._read_generation() != self._generation

    def reopen(self) -> None:
        """Read the index afresh after another process wrote to it.

        An embedded Chroma client caches its segments for the whole process and does not see
        another process's writes (queries then fail with "Error finding id"), so it is
        dropped and opened again; the catalog and BM25 are re-read.
        """
        with self._lock:
            if self.store.embedded:  # a server already sees every write: re-read only
                self.store.release()
                self.store = self._open_store()
            self._generation = self._read_generation()
            self.refresh()

    def bm25(self) -> BM25Index:
        """Return the BM25 index, rebuilding it from the collection when missing or stale."""
        with self._lock:
            # Checked against this catalog when it was set, and refresh() drops both: hashing
            # every id again per query cost 26 ms at 100k papers.
            if self._bm25 is not None:
                return self._bm25
            wanted = fingerprint(self.papers)
            loaded = BM25Index.load(self.bm25_dir)
            if loaded is None or loaded.fingerprint != wanted:
                log.info("rebuilding the BM25 index from %d papers", len(self.papers))
                ids = sorted(self.papers)
                loaded = BM25Index.build(ids, [paper_text(self.papers[i]) for i in ids])
                loaded.save(self.bm25_dir)
            self._bm25 = loaded
            return loaded

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the write lock of the index folder for the duration of a write.

        Raises:
            IndexBusyError: another process is writing this index.
        """
        from filelock import FileLock, Timeout

        self.dir.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.dir / ".write.lock"))
        try:
            lock.acquire(timeout=2)
        except Timeout:
            raise IndexBusyError(
                f"The index at {self.dir} is being written by another process; wait for it to "
                "finish, or use a Chroma server (--chroma-url) for concurrent writers."
            ) from None
        writes = self.store.writes
        marker = self.dir / WRITING_FILE
        try:
            # Until the new token is in place nobody trusts the copy of the records: a write
            # killed before it (kill -9) may have changed records without changing any id.
            marker.touch()
            if self.changed_elsewhere():
                self.reopen()  # write through a client that sees the other process's writes
                writes = self.store.writes
            yield
        finally:
            # A write that changed nothing (a re-ingest of the same files) leaves other
            # processes' catalogs alone: re-reading one costs seconds at 100k papers.
            changed = self.store.writes != writes
            try:
                if changed:
                    self._write_generation()
                marker.unlink(missing_ok=True)
            except OSError as exc:
                log.warning("could not mark the index as changed for other processes: %s", exc)
            finally:
                lock.release()
                if changed:
                    self.refresh()

    def _write_generation(self) -> None:
        token = uuid.uuid4().hex
        path = self.dir / GENERATION_FILE
        tmp = path.with_name(f"{GENERATION_FILE}.{token}")
        try:
            tmp.write_text(token)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        self._generation = token
