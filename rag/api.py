"""The Python API: the same operations the CLI and the UI use, over an index opened once."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from rag.answer import Answer, answer_stream
from rag.backends.base import Backend, get_backend
from rag.embedding import Embedder
from rag.index import Index
from rag.records import Hit, IngestReport, Paper
from rag.retrieve import Filters
from rag.retrieve import search as _search
from rag.settings import Settings, load_settings

_OPEN: dict[tuple[str, ...], Index] = {}
_BACKENDS: dict[tuple[str, ...], Backend] = {}
_LOCK = threading.Lock()


def open_index(
    settings: Settings | None = None, *, create: bool = False, embedder: Embedder | None = None
) -> Index:
    """Return the index the settings point at, opened once per process.

    Raises:
        IndexNotFoundError: there is no index there and `create` is false.
        IndexMismatchError: it was built with another embedding model.
    """
    settings = settings or load_settings()
    key = (
        str(Path(settings.index_dir).resolve()),
        settings.chroma_url or "",
        settings.collection,
        settings.embedding_model,
        str(id(embedder)) if embedder else "",
    )
    with _LOCK:
        index = _OPEN.get(key)
        if index is None:
            index = Index(settings, embedder, create=create)
            _OPEN[key] = index
        elif index.store.count() != len(index.papers):
            index.refresh()  # another process wrote to it
        return index


def backend_for(settings: Settings, name: str | None = None) -> Backend | None:
    """Return the configured answer backend (None means the extractive answer)."""
    name = name or settings.backend
    if name == "extractive":
        return None
    key = (name, settings.model_dump_json())
    with _LOCK:
        if key not in _BACKENDS:
            _BACKENDS[key] = get_backend(name, settings)
        return _BACKENDS[key]


def ingest(
    paths: Sequence[str | Path],
    *,
    settings: Settings | None = None,
    index: Index | None = None,
    fmt: str | None = None,
    progress: bool = False,
) -> IngestReport:
    """Add the papers in files or folders to the index (created when missing)."""
    from rag.ingest import ingest as _ingest

    index = index or open_index(settings, create=True)
    return _ingest(paths, index, fmt=fmt, progress=progress)


def search(
    query: str,
    *,
    settings: Settings | None = None,
    index: Index | None = None,
    k: int = 10,
    retriever: str | None = None,
    filters: Filters | None = None,
) -> list[Hit]:
    """Return the best papers for `query`, best first (see `rag.retrieve.search`)."""
    index = index or open_index(settings)
    return _search(
        index, query, k=k, retriever=retriever or index.settings.retriever, filters=filters
    )


def ask_stream(
    question: str,
    *,
    settings: Settings | None = None,
    index: Index | None = None,
    backend: Backend | str | None = "default",
    filters: Filters | None = None,
    top_k: int | None = None,
    retriever: str | None = None,
) -> Iterator[str | Answer]:
    """Yield the checked answer text piece by piece, then the `Answer`.

    `backend` is a Backend, a backend name, None (extractive), or "default" (from settings).
    """
    index = index or open_index(settings)
    settings = settings or index.settings
    if isinstance(backend, str):
        backend = backend_for(settings, None if backend == "default" else backend)
    return answer_stream(
        index,
        question,
        settings=settings,
        backend=backend,
        filters=filters,
        top_k=top_k,
        retriever=retriever,
    )


def ask(question: str, **kwargs: object) -> Answer:
    """Return the checked `Answer` to `question` (same arguments as `ask_stream`)."""
    for event in ask_stream(question, **kwargs):  # type: ignore[arg-type]
        if isinstance(event, Answer):
            return event
    raise AssertionError("ask_stream ended without an Answer")


def list_papers(*, settings: Settings | None = None, index: Index | None = None) -> list[Paper]:
    """Return every paper in the index, ordered by citation key."""
    index = index or open_index(settings)
    return sorted(index.papers.values(), key=lambda p: (p.citation_key, p.id))
