"""An open index: the Chroma collections, the BM25 side kept in sync, and the paper catalog."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rag.chunking import paper_text
from rag.embedding import Embedder, load_embedder
from rag.errors import IndexBusyError
from rag.lexical import BM25Index, fingerprint
from rag.records import Paper
from rag.settings import Settings
from rag.store import ChromaStore

log = logging.getLogger(__name__)


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
        self.embedder = embedder or load_embedder(
            settings.embedding_model, settings.embed_batch_size
        )
        self.dir = Path(settings.index_dir)
        self.store = ChromaStore(
            self.dir,
            settings.collection,
            self.embedder.name,
            self.embedder.dim,
            chroma_url=settings.chroma_url,
            create=create,
        )
        self._papers: dict[str, Paper] | None = None
        self._bm25: BM25Index | None = None
        self._lock = threading.RLock()

    @property
    def bm25_dir(self) -> Path:
        return self.dir / f"bm25-{self.settings.collection}"

    # -- the catalog of papers, read once and refreshed after writes
    @property
    def papers(self) -> dict[str, Paper]:
        with self._lock:
            if self._papers is None:
                self._papers = {p.id: p for p, _ in self.store.iter_papers()}
            return self._papers

    def refresh(self) -> None:
        """Forget cached state so that the next read sees what another writer stored."""
        with self._lock:
            self._papers = None
            self._bm25 = None

    def bm25(self) -> BM25Index:
        """Return the BM25 index, rebuilding it from the collection when missing or stale."""
        with self._lock:
            wanted = fingerprint(self.papers)
            if self._bm25 is not None and self._bm25.fingerprint == wanted:
                return self._bm25
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
        try:
            yield
        finally:
            lock.release()
            self.refresh()
